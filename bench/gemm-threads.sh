#!/usr/bin/env bash
# Benchmark: gemm threads of the processes mpirun starts on one machine.
# distrt gives each of the N local processes cores/N BLAS threads (at
# least 1) unless OPENBLAS_NUM_THREADS is set; OpenBLAS alone would start
# one thread per core in every process. Runs MODEL data-parallel on 2
# ranks both ways in this run and prints the median step times and their
# ratio (gpt2-tiny at global batch 16 x 64, gpt2-small at 4 x 128).
#
#   bench/gemm-threads.sh [WORKDIR] [STEPS] [MODEL]
#   (default /tmp/dist-gemm-bench 20 gpt2-small)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-gemm-bench}
steps=${2:-20}
model=${3:-gpt2-small}
if [ "$model" = gpt2-small ]; then shape=4x128; else shape=16x64; fi
mkdir -p "$work"
unset OPENBLAS_NUM_THREADS GOTO_NUM_THREADS OMP_NUM_THREADS
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
median() {
  /usr/bin/python3 -c 'import json,statistics,sys; print("%.3f" % statistics.median(json.loads(l)["ms"] for l in list(open(sys.argv[1]))[2:]))' "$1"
}
onnx="$work/$model.onnx"
[ -f "$onnx" ] || /usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$onnx" 2>/dev/null
"$root/build/bin/dist-compile" "$onnx" --input-shape=idx=$shape \
  --input-shape=targets=$shape --train --optimizer=adamw --mesh=2 \
  --parallel=dp -o "$work/dp2"
cores=$(nproc)
rm -f "$work/shared.jsonl" "$work/all.jsonl"
"${mpirun[@]}" -np 2 "$work/dp2" --steps "$steps" --synthetic 1 \
  --log-json "$work/shared.jsonl" > /dev/null
"${mpirun[@]}" -np 2 -x OPENBLAS_NUM_THREADS="$cores" "$work/dp2" \
  --steps "$steps" --synthetic 1 --log-json "$work/all.jsonl" > /dev/null
shared=$(median "$work/shared.jsonl")
all=$(median "$work/all.jsonl")
echo "$model DP2 ($shape), $cores cores: $all ms/step with $cores threads per process (OpenBLAS's default), $shared ms/step with the shared default"
/usr/bin/python3 -c "print('speedup of the shared default: %.2fx' % ($all / $shared))"
