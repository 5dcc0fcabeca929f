#!/usr/bin/env bash
# Benchmark: how our passes scale with the op count of a training step.
# Builds chains of N (mul, tanh) pairs (bench/chain_model.py), derives the
# training step (dist-autodiff, dist-optimizer: about 11 dist ops per pair)
# and lowers it to linalg (dist-lower-to-linalg), printing the time of each
# stage per N. Linear scaling shows as a constant time per op.
#
#   bench/pass-scaling.sh [WORKDIR] [N...]     default /tmp/dist-bench-scaling 1000 2000 4000
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-bench-scaling}
shift || true
sizes=("${@:-1000 2000 4000}")
mkdir -p "$work"
opt="$root/build/bin/dist-opt"
for n in ${sizes[@]}; do
  python3 "$root/bench/chain_model.py" "$n" > "$work/chain-$n.mlir"
  start=$(date +%s.%N)
  "$opt" "$work/chain-$n.mlir" --dist-autodiff --dist-optimizer -o "$work/step-$n.mlir"
  mid=$(date +%s.%N)
  "$opt" "$work/step-$n.mlir" \
    --pass-pipeline='builtin.module(dist-lower-to-linalg{entry=train_step})' \
    -o /dev/null
  end=$(date +%s.%N)
  ops=$(grep -c ' = dist\.' "$work/step-$n.mlir")
  python3 - "$n" "$ops" "$start" "$mid" "$end" <<'PY'
import sys
n, ops = int(sys.argv[1]), int(sys.argv[2])
a, b, c = map(float, sys.argv[3:])
print("N=%-6d step: %6d dist ops   autodiff+optimizer %5.2f s (%.1f us/op)   "
      "lower to linalg %5.2f s (%.1f us/op)"
      % (n, ops, b - a, (b - a) / ops * 1e6, c - b, (c - b) / ops * 1e6))
PY
done
