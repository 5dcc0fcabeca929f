#!/usr/bin/env bash
# Benchmark (issue 6): 2-rank data-parallel weak scaling on this machine.
# Efficiency = (1-rank step time at batch B) / (2-rank step time at B per
# rank, global batch 2B), ours with dist-overlap-collectives on and off,
# and PyTorch 1.13 DistributedDataParallel (gloo, 2 processes) as the
# baseline, all measured in this run with one thread per process (2 ranks
# on the 2 cores). Times are medians over STEPS steps after two warm-up
# steps (ours: rank 0's logged ms).
#
#   bench/dp-scaling.sh [WORKDIR] [STEPS] [MODELS]
#   (default /tmp/dist-dp-bench 5 "gpt2-tiny gpt2-small"; gpt2-tiny at
#   B = 8 x 64 tokens, gpt2-small at B = 2 x 128)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-dp-bench}
steps=${2:-5}
models=${3:-gpt2-tiny gpt2-small}
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
median() {
  /usr/bin/python3 -c 'import json,statistics,sys; print("%.3f" % statistics.median(json.loads(l)["ms"] for l in list(open(sys.argv[1]))[2:]))' "$1"
}

for model in $models; do
  if [ "$model" = gpt2-small ]; then batch=2 seq=128; else batch=8 seq=64; fi
  onnx="$work/$model.onnx"
  [ -f "$onnx" ] || /usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$onnx" 2>/dev/null
  compile() { # NAME GLOBAL_BATCH FLAGS...
    local out=$1 global=$2
    shift 2
    "$root/build/bin/dist-compile" "$onnx" --input-shape="idx=${global}x$seq" \
      --input-shape="targets=${global}x$seq" --train --optimizer=adamw \
      --lr=1e-4 "$@" -o "$work/$model-$out"
  }
  compile one "$batch"
  compile dp2 "$((2 * batch))" --mesh=2 --parallel=dp
  compile dp2-blocking "$((2 * batch))" --mesh=2 --parallel=dp --overlap=false
  n=$((steps + 2))
  "$work/$model-one" --steps $n --synthetic 1 --log-json "$work/$model-one.jsonl" > /dev/null
  "${mpirun[@]}" -np 2 "$work/$model-dp2" --steps $n --synthetic 1 \
    --log-json "$work/$model-dp2.jsonl" > /dev/null
  "${mpirun[@]}" -np 2 "$work/$model-dp2-blocking" --steps $n --synthetic 1 \
    --log-json "$work/$model-dp2-blocking.jsonl" > /dev/null
  single=$(/usr/bin/python3 "$root/bench/ddp_baseline.py" "$model" "$batch" "$steps" single)
  ddp=$(/usr/bin/python3 "$root/bench/ddp_baseline.py" "$model" "$batch" "$steps" ddp)
  /usr/bin/python3 - "$model" "$batch" "$seq" "$(median "$work/$model-one.jsonl")" \
    "$(median "$work/$model-dp2.jsonl")" "$(median "$work/$model-dp2-blocking.jsonl")" \
    "${single#*: }" "${ddp#*: }" <<'PY'
import sys
model, batch, seq = sys.argv[1:4]
one, dp2, blocking, pt1, pt2 = map(float, sys.argv[4:9])
print("%s (B = %s x %s per rank): dist 1 rank %.1f ms, 2 ranks %.1f ms "
      "(overlap off %.1f ms): efficiency %.2f (off %.2f, overlap gain %.2fx); "
      "PyTorch 1 process %.1f ms, DDP 2 processes %.1f ms: efficiency %.2f; "
      "dist 2-rank step / DDP step = %.2f" % (
          model, batch, seq, one, dp2, blocking, one / dp2, one / blocking,
          blocking / dp2, pt1, pt2, pt1 / pt2, dp2 / pt2))
PY
done
