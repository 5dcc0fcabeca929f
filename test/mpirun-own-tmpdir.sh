#!/usr/bin/env bash
# %mpirun (test/lit.cfg.py): the MPI launcher with a temporary directory of
# its own. Open MPI keeps each job's session directory under
# $TMPDIR/ompi.<host>.<uid>/, shared by the jobs lit runs at the same time;
# one job ending removes that directory while another starts in it, and the
# other fails in orte_init ("A call to mkdir was unable to create the
# desired directory"). The directory is inside lit's temporary directory,
# which lit removes. exec: a timeout's signal reaches the launcher itself.
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpi-job.XXXXXX") || exit 1
export TMPDIR="$dir"
exec "$@"
