#!/bin/sh
# Open MPI's remote agent (plm_rsh_agent) for netns_hosts.sh: "HOST
# COMMAND..." runs COMMAND in the network namespace $DIST_NETNS_PREFIX-HOST
# with HOST as its hostname, as ssh would run it on that host.
host=$1
shift
exec ip netns exec "$DIST_NETNS_PREFIX-$host" unshare --uts sh -c "hostname $host && $*"
