#!/bin/bash
# Memory and step time of gpt2-small (batch 2 x 256, AdamW, one rank) with
# --remat=none, full, selective and auto (at half the activation memory
# that none keeps for the backward), and with --precision=bf16 and fp16,
# all measured in one run on this machine: the predicted tensor peak
# (--explain), the measured one (the JSON log's tensor_peak_mib), the
# process's peak RSS and the time of step 3.
# usage: bench/remat-gpt2-small.sh [WORKDIR]   (needs /usr/bin/python3 with torch)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/remat-bench}
mkdir -p "$work"
[ -f "$work/gpt2-small.onnx" ] ||
  /usr/bin/python3 "$root/examples/onnx/export.py" gpt2-small "$work/gpt2-small.onnx" > /dev/null
compile() { # NAME FLAGS...
  local name=$1
  shift
  "$root/build/bin/dist-compile" "$work/gpt2-small.onnx" \
    --input-shape=idx=2x256 --input-shape=targets=2x256 \
    --train --optimizer=adamw --explain "$@" -o "$work/trainer-$name" > "$work/$name.explain"
}
compile none
compile full --remat=full
compile selective --remat=selective
# Half of what the backward reads without remat (full's --explain says).
saved=$(sed -nE 's/^remat full .*reads [0-9]+ forward activations \(([0-9.]+) MiB\).*/\1/p' "$work/full.explain")
half=$(awk -v s="$saved" 'BEGIN { printf "%.1f", s / 2 }')
compile auto --remat=auto --memory-budget="$half"
compile bf16 --precision=bf16
compile fp16 --precision=fp16
echo "| config | held for the backward | predicted tensor peak | measured tensor peak | peak RSS | ms/step | tensors / none | time / none |"
echo "|---|---|---|---|---|---|---|---|"
for name in none full selective auto bf16 fp16; do
  line=$("$work/trainer-$name" --steps 3 --synthetic 1 --log-json "$work/$name.jsonl" | tail -1)
  rss=$(sed -E 's/.*peak mem ([0-9.]+) MiB.*/\1/' <<<"$line")
  json=$(tail -1 "$work/$name.jsonl")
  ms=$(sed -E 's/.*"ms": ([0-9.e+-]+).*/\1/' <<<"$json")
  tensors=$(sed -E 's/.*"tensor_peak_mib": ([0-9.e+-]+).*/\1/' <<<"$json")
  predicted=$(sed -nE 's/^memory of .* peak ([0-9.]+) MiB.*/\1/p' "$work/$name.explain")
  held=$(sed -nE 's/^remat [a-z]+ on .*; kept [0-9]+ \(([0-9.]+) MiB\).*/\1 MiB/p' "$work/$name.explain")
  [ -n "$held" ] || { [ "$name" = none ] && held="$saved MiB" || held="(no remat)"; }
  label=$name
  [ "$name" = auto ] && label="auto ($half MiB)"
  [ "$name" = none ] && { base_ms=$ms; base_t=$tensors; }
  awk -v n="$label" -v h="$held" -v p="$predicted" -v t="$tensors" -v r="$rss" -v ms="$ms" \
      -v bt="$base_t" -v bm="$base_ms" \
    'BEGIN { printf "| %s | %s | %.0f MiB | %.0f MiB | %s MiB | %.0f | %.3f | %.3f |\n", n, h, p, t, r, ms, t / bt, ms / bm }'
done
