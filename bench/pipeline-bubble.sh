#!/usr/bin/env bash
# Benchmark (issue 20): the pipeline bubble, measured per rank, against
# GPipe's (S - 1) / (M + S - 1), and the activation memory per stage of
# GPipe against 1F1B, as M grows; and the step time of PP2 against DP2 at
# the same global batch. Each rank's --trace gives its step spans and the
# time it waited (receives, collectives) inside them: bubble = waiting /
# step time, the median over the traced steps. Memory: --explain's
# predicted activations of each stage (test/Memory checks that prediction
# against the trainer's measured peak).
#
#   bench/pipeline-bubble.sh [WORKDIR] [MODEL] [STAGES] [MICROBATCHES]
#   (default /tmp/dist-pp-bench gpt2-tiny 2 "1 2 4 8 16"; micro-batches
#   of 2 x 64 tokens, so the batch is M x 2 x 64: GPipe keeps every
#   micro-batch's activations, 1F1B at most S of them)
#
# One process per core: on this 2-core machine S = 2 is measured; S = 4
# would time-share the cores and measure the scheduler, not the pipeline.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-pp-bench}
model=${2:-gpt2-tiny}
stages=${3:-2}
micro=${4:-1 2 4 8 16}
micro_batch=2 seq=64 steps=6
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
onnx="$work/$model.onnx"
[ -f "$onnx" ] || /usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$onnx" 2>/dev/null
compile() { # NAME BATCH FLAGS...
  local out=$1 batch=$2
  shift 2
  "$root/build/bin/dist-compile" "$onnx" --input-shape="idx=${batch}x$seq" \
    --input-shape="targets=${batch}x$seq" --train --optimizer=adamw \
    --lr=1e-4 "$@" -o "$work/$out" 2> /dev/null
}
run() { # NAME RANKS
  rm -f "$work/$1".trace*.json
  "${mpirun[@]}" -np "$2" "$work/$1" --steps $steps --synthetic 1 \
    --trace "$work/$1.trace.json" --trace-steps 3:$steps \
    --log-json "$work/$1.jsonl" > /dev/null
}
echo "$model, micro-batches of $micro_batch x $seq, $stages stages, one thread per process"
echo "schedule M  bubble/rank (measured)   GPipe formula  activations/stage (MiB, predicted)  step ms"
for schedule in gpipe 1f1b; do
  for m in $micro; do
    name="pp$stages-$schedule-m$m"
    compile "$name" $((m * micro_batch)) --mesh="$stages" --parallel=pp --microbatches="$m" \
      --schedule="$schedule" --explain > "$work/$name.explain"
    run "$name" "$stages"
    /usr/bin/python3 "$root/bench/pipeline_bubble.py" "$schedule" "$m" \
      "$stages" "$work/$name"
  done
done
compile dp2 16 --mesh=2 --parallel=dp
run dp2 2
compile pp2 16 --mesh=2 --parallel=pp --microbatches=8
run pp2 2
/usr/bin/python3 - "$work/dp2.jsonl" "$work/pp2.jsonl" <<'PY'
import json, statistics, sys
ms = [statistics.median(json.loads(l)["ms"] for l in list(open(p))[2:])
      for p in sys.argv[1:]]
print("step time at the same global batch (16 x 64): DP2 %.1f ms, PP2 (1F1B, M = 8) "
      "%.1f ms: PP2 / DP2 = %.2f" % (ms[0], ms[1], ms[1] / ms[0]))
PY
