#!/bin/bash
# Runs an MPI program across two "hosts" on this machine: network namespaces
# joined by a veth pair (10.77.N.1 and 10.77.N.2), each with its own
# hostname (a UTS namespace), Open MPI's remote agent (ssh) replaced by
# netns_agent.sh, which runs the daemon's command inside the namespace.
# mpirun itself runs in the first namespace; the hostfile gives each host
# two slots, so ranks 0-1 run on h1 and 2-3 on h2 and talk over TCP.
#
# usage: netns_hosts.sh "MPIRUN" NP PROGRAM ARGS...
#        netns_hosts.sh --torchrun NP PROGRAM ARGS...
# With --torchrun, no MPI: scripts/launch.py starts NP/2 processes on each
# host with torchrun's variables (rank 0's store at h1's address), as
# torchrun --nnodes 2 would.
# Prints the host of each rank, the program's exit status and the bytes the
# veth pair carried during the run; the namespaces are removed on exit.
set -u
mpirun=$1 np=$2
shift 2
launcher=$(cd "$(dirname "$0")/../../.." && pwd)/scripts/launch.py
here=$(cd "$(dirname "$0")" && pwd)
id=$$
export DIST_NETNS_PREFIX="dist$id"
net=$(( id % 200 + 20 ))
cleanup() {
  ip netns del "${DIST_NETNS_PREFIX}-h1" 2>/dev/null
  ip netns del "${DIST_NETNS_PREFIX}-h2" 2>/dev/null
}
trap cleanup EXIT
for host in h1 h2; do
  ip netns add "${DIST_NETNS_PREFIX}-$host" || exit 1
  ip -n "${DIST_NETNS_PREFIX}-$host" link set lo up
done
ip link add "v${id}a" netns "${DIST_NETNS_PREFIX}-h1" type veth peer name "v${id}b" netns "${DIST_NETNS_PREFIX}-h2" || exit 1
ip -n "${DIST_NETNS_PREFIX}-h1" addr add "10.77.$net.1/24" dev "v${id}a"
ip -n "${DIST_NETNS_PREFIX}-h2" addr add "10.77.$net.2/24" dev "v${id}b"
ip -n "${DIST_NETNS_PREFIX}-h1" link set "v${id}a" up
ip -n "${DIST_NETNS_PREFIX}-h2" link set "v${id}b" up
hosts=$(mktemp)
printf 'h1 slots=%d\nh2 slots=%d\n' $(( np / 2 )) $(( np - np / 2 )) > "$hosts"
on_host() { # HOST COMMAND...: runs COMMAND on HOST
  local host=$1
  shift
  ip netns exec "${DIST_NETNS_PREFIX}-$host" unshare --uts sh -c "hostname $host"' && exec "$@"' sh "$@"
}
torchrun() {
  local per=$(( np / 2 )) status0 status1
  on_host h2 python3 "$launcher" -n "$per" --nnodes 2 --node-rank 1 --master "10.77.$net.1:$(( 29500 + net ))" "$@" &
  local second=$!
  on_host h1 python3 "$launcher" -n "$per" --nnodes 2 --node-rank 0 --master "10.77.$net.1:$(( 29500 + net ))" "$@"
  status0=$?
  wait $second
  status1=$?
  return $(( status0 ? status0 : status1 ))
}
launch() {
  if [ "$mpirun" = --torchrun ]; then
    torchrun "$@"
    return
  fi
  ip netns exec "${DIST_NETNS_PREFIX}-h1" unshare --uts sh -c 'hostname head && exec "$@"' sh \
    $mpirun --mca plm_rsh_agent "$here/netns_agent.sh" --hostfile "$hosts" -np "$np" "$@"
}
echo "ranks on hosts: $(launch sh -c 'echo ${OMPI_COMM_WORLD_RANK:-$RANK} $(hostname)' < /dev/null | sort -n | cut -d' ' -f2 | tr '\n' ' ')"
bytes() { ip -n "${DIST_NETNS_PREFIX}-h1" -s -j link show "v${id}a" | python3 -c 'import json,sys; s=json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["bytes"] + s["tx"]["bytes"])'; }
before=$(bytes)
launch "$@" < /dev/null
status=$?
echo "exit status $status"
echo "veth bytes during the run: $(( $(bytes) - before ))"
rm -f "$hosts"
exit $status
