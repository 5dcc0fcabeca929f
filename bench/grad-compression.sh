#!/usr/bin/env bash
# Benchmark (issue 22): gradient compression on this machine's CPU ranks:
# bytes the gradient reduction sends per rank per step (--explain), the
# median step time (steps 3 on; the fastest of ROUNDS runs, every
# configuration once per round) and the loss after STEPS steps, for
# --grad-compression=none|bf16|fp16|powersgd:4|topk:0.01 on gpt2-small (2 ranks, batch 4 x 64)
# and gpt2-tiny (4 ranks oversubscribed on the 2 cores, batch 8 x 64).
#
#   bench/grad-compression.sh [WORKDIR] [STEPS] [ROUNDS]   (default /tmp/dist-compression-bench 10 3)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-compression-bench}
steps=${2:-10}
rounds=${3:-3}
mkdir -p "$work"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
export_models "$work" gpt2-tiny gpt2-small
configs=()
for config in gpt2-small:2:4 gpt2-tiny:4:8; do
  IFS=: read -r model ranks batch <<< "$config"
  for kind in none bf16 fp16 powersgd:4 topk:0.01; do
    name=$model-$ranks-${kind/:/}
    configs+=("$name $model $ranks")
    "$root/build/bin/dist-compile" "$work/$model.onnx" --input-shape="idx=${batch}x64" \
      --input-shape="targets=${batch}x64" --train --optimizer=adamw --lr=1e-4 \
      --mesh="$ranks" --parallel=dp --grad-compression="$kind" --explain \
      -o "$work/$name" > "$work/$name.explain" 2> /dev/null
  done
done
rm -f "$work"/*.jsonl
for r in $(seq "$rounds"); do
  for config in "${configs[@]}"; do
    read -r name model ranks <<< "$config"
    "${mpirun[@]}" -np "$ranks" "$work/$name" --steps "$steps" --synthetic 1 \
      --log-json "$work/$name.$r.jsonl" > /dev/null
  done
done
printf "%-11s %5s %-10s %14s %10s %10s  %s\n" model ranks kind "sent per step" "ms/step" "loss" "runs (ms)"
for config in "${configs[@]}"; do
  read -r name model ranks <<< "$config"
  /usr/bin/python3 - "$model" "$ranks" "${name##*-}" "$work/$name.explain" "$work/$name".*.jsonl <<'PY'
import json, re, statistics, sys
model, ranks, kind, explain = sys.argv[1:5]
text = open(explain).read()
sent = re.search(r"\d+ collectives, ([0-9.]+ [KMG]?i?B) per rank per step", text).group(1)
runs = [[json.loads(l) for l in open(log)] for log in sys.argv[5:]]
medians = [statistics.median(s["ms"] for s in steps[2:]) for steps in runs]
print("%-11s %5s %-6s %14s %10.1f %10.4f  %.0f-%.0f" % (
    model, ranks, kind, sent, min(medians), runs[0][-1]["loss"], min(medians), max(medians)))
PY
done
