#!/usr/bin/env bash
# Benchmark (issue 22): data-parallel modes on 4 CPU ranks (oversubscribed
# on this machine's cores), each with and without one rank slowed by 2x
# (--straggler-delay-ms: the last rank sleeps one uncompressed step's time
# before each step's compute). gpt2-tiny, global batch 8 x 64, AdamW, STEPS
# steps (the fixed budget): samples per second (median step), the loss after
# the budget and the bytes each rank sends per step (--explain), for
# synchronous data parallelism with --grad-compression=none|bf16|fp16|
# powersgd:4.
#
#   bench/straggler.sh [WORKDIR] [STEPS]   (default /tmp/dist-straggler-bench 60)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-straggler-bench}
steps=${2:-60}
ranks=4
batch=8
mkdir -p "$work"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
export_models "$work" gpt2-tiny
kinds=(none bf16 fp16 powersgd:4)
for kind in "${kinds[@]}"; do
  "$root/build/bin/dist-compile" "$work/gpt2-tiny.onnx" --input-shape="idx=${batch}x64" \
    --input-shape="targets=${batch}x64" --train --optimizer=adamw --lr=1e-3 \
    --mesh="$ranks" --parallel=dp --grad-compression="$kind" --explain \
    -o "$work/dp-${kind/:/}" > "$work/dp-${kind/:/}.explain" 2> /dev/null
done
rm -f "$work"/*.jsonl
run() { # NAME KIND [TRAINER FLAGS...]
  local name=$1 kind=$2
  shift 2
  "${mpirun[@]}" -np "$ranks" "$work/dp-${kind/:/}" --steps "$steps" --synthetic 1 \
    --log-json "$work/$name.jsonl" "$@" > /dev/null
}
# One uncompressed step's time, measured here: the straggler's delay.
run calibrate none
delay=$(/usr/bin/python3 -c "import json,statistics,sys; print('%.1f' % statistics.median(json.loads(l)['ms'] for l in list(open(sys.argv[1]))[2:]))" "$work/calibrate.jsonl")
for kind in "${kinds[@]}"; do
  run "${kind/:/}-even" "$kind"
  run "${kind/:/}-slow" "$kind" --straggler-delay-ms "$delay"
done
echo "one step uncompressed: $delay ms (the straggler's delay)"
printf "%-12s %-10s %14s %10s %10s %10s\n" mode straggler "sent per step" "ms/step" "samples/s" "loss"
for kind in "${kinds[@]}"; do
  for when in even slow; do
    /usr/bin/python3 - "$kind" "$when" "$work/dp-${kind/:/}.explain" "$work/${kind/:/}-$when.jsonl" "$batch" <<'PY'
import json, re, statistics, sys
kind, when, explain, log, batch = sys.argv[1:6]
sent = re.search(r"\d+ collectives, ([0-9.]+ [KMG]?i?B) per rank per step", open(explain).read()).group(1)
steps = [json.loads(l) for l in open(log)]
ms = statistics.median(s["ms"] for s in steps[2:])
print("%-12s %-10s %14s %10.1f %10.1f %10.4f" % (
    "dp " + kind, "1 at 2x" if when == "slow" else "none", sent, ms,
    1000.0 * int(batch) / ms, steps[-1]["loss"]))
PY
  done
done
