#!/usr/bin/env bash
# Benchmark (issue 22): the data-parallel and parameter-server modes on 4
# CPU workers (oversubscribed on this machine's cores), each with no
# straggler, with one worker slowed by 2x (--straggler-delay-ms: the last
# worker sleeps one uncompressed data-parallel step's time before each
# step's compute) and with a straggler that moves (@rotate: worker
# (step-1) mod 4 sleeps as long). gpt2-tiny, global batch 8 x 64, AdamW, the samples of STEPS
# steps (the fixed budget): samples per second (the logged updates after
# the first two steps' worth), the loss at the end of the budget (the mean
# of the last tenth of the logged losses: per step, or per asynchronous
# update of one worker's share) and the bytes each worker sends per step
# (--explain), for synchronous data parallelism with --grad-compression=
# none|bf16|fp16|powersgd:4|topk:0.01, and parameter servers (--parallel=ps, 4
# workers + 1 or 2 servers): synchronous (pushes uncompressed, bf16 and
# topk:0.01), and asynchronous with --staleness 1 and 4; asynchronous data
# parallelism (--parallel=dp --sync=async) with --staleness 1 and 4.
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
compile() { # NAME [DIST-COMPILE FLAGS...]
  local name=$1
  shift
  "$root/build/bin/dist-compile" "$work/gpt2-tiny.onnx" --input-shape="idx=${batch}x64" \
    --input-shape="targets=${batch}x64" --train --optimizer=adamw --lr=1e-3 \
    --mesh="$ranks" --explain -o "$work/$name" "$@" > "$work/$name.explain" 2> /dev/null
}
kinds=(none bf16 fp16 powersgd:4 topk:0.01)
for kind in "${kinds[@]}"; do
  compile "dp-${kind/:/}" --parallel=dp --grad-compression="$kind"
done
compile dp-async --parallel=dp --sync=async
compile ps1 --parallel=ps --servers=1
compile ps2 --parallel=ps --servers=2
compile ps1-bf16 --parallel=ps --servers=1 --grad-compression=bf16
compile ps1-topk --parallel=ps --servers=1 --grad-compression=topk:0.01
rm -f "$work"/*.jsonl
run() { # NAME PROGRAM PROCESSES [TRAINER FLAGS...]
  local name=$1 program=$2 processes=$3
  shift 3
  "${mpirun[@]}" -np "$processes" "$work/$program" --steps "$steps" --synthetic 1 \
    --log-json "$work/$name.jsonl" "$@" > /dev/null
}
# One uncompressed step's time, measured here: the straggler's delay.
run calibrate dp-none "$ranks"
delay=$(/usr/bin/python3 -c "import json,statistics,sys; print('%.1f' % statistics.median(json.loads(l)['ms'] for l in list(open(sys.argv[1]))[2:]))" "$work/calibrate.jsonl")
modes=()
for kind in "${kinds[@]}"; do
  modes+=("dp-${kind/:/}|dp-${kind/:/}|$ranks|")
done
modes+=("dp-async1|dp-async|$ranks|--staleness 1"
        "dp-async4|dp-async|$ranks|--staleness 4"
        "ps1|ps1|$((ranks + 1))|" "ps2|ps2|$((ranks + 2))|"
        "ps1-bf16|ps1-bf16|$((ranks + 1))|" "ps1-topk|ps1-topk|$((ranks + 1))|"
        "ps1-async1|ps1|$((ranks + 1))|--sync async --staleness 1"
        "ps1-async4|ps1|$((ranks + 1))|--sync async --staleness 4")
for mode in "${modes[@]}"; do
  IFS='|' read -r name program processes flags <<< "$mode"
  # shellcheck disable=SC2086
  run "$name-even" "$program" "$processes" $flags
  # shellcheck disable=SC2086
  run "$name-slow" "$program" "$processes" $flags --straggler-delay-ms "$delay"
  # shellcheck disable=SC2086
  run "$name-rotate" "$program" "$processes" $flags --straggler-delay-ms "$delay@rotate"
done
echo "one step of dp none: $delay ms (the straggler's delay)"
printf "%-16s %-10s %22s %10s %10s\n" mode straggler "sent per worker/step" "samples/s" "loss"
for mode in "${modes[@]}"; do
  IFS='|' read -r name program processes flags <<< "$mode"
  for when in even slow rotate; do
    /usr/bin/python3 - "$name" "$when" "$work/$program.explain" "$work/$name-$when.jsonl" "$batch" "$ranks" <<'PY'
import json, re, sys
name, when, explain, log, batch, workers = sys.argv[1:7]
batch, workers = int(batch), int(workers)
text = open(explain).read()
m = re.search(r"\d+ collectives, ([0-9.]+ [KMG]?i?B) per rank per step", text) or \
    re.search(r"each rank all-reduces ([0-9.]+ [KMG]?i?B) of gradients", text)
if m:
    sent = m.group(1)
else:
    m = re.search(r"pushes ([0-9.]+ [KMG]?i?B) of gradients.* and pulls ([0-9.]+ [KMG]?i?B)", text)
    sent = "%s + %s" % (m.group(1), m.group(2))
updates = [json.loads(l) for l in open(log)]
per_update = batch / workers if "worker" in updates[0] else batch
skip = int(2 * batch / per_update)
timed = updates[skip:]
if "staleness" in updates[0] and "worker" not in updates[0]:
    # Asynchronous data parallelism: update k is applied after step k + S,
    # so the first update's time holds S + 1 steps and the last S (applied
    # after the last step) take none: time the updates of whole steps.
    s = max(u["staleness"] for u in updates)
    timed = updates[skip + s:len(updates) - s]
rate = 1000.0 * per_update * len(timed) / sum(u["ms"] for u in timed)
tenth = max(1, len(updates) // 10)
loss = sum(u["loss"] for u in updates[-tenth:]) / tenth
print("%-16s %-10s %22s %10.1f %10.4f" % (
    name, {"even": "none", "slow": "1 at 2x", "rotate": "rotating"}[when],
    sent, rate, loss))
PY
  done
done
