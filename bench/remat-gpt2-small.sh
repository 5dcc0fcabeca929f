#!/bin/bash
# Peak memory and step time of gpt2-small (batch 2 x 256, AdamW) with
# --remat=none, full and selective, measured in one run on this machine.
# usage: bench/remat-gpt2-small.sh [WORKDIR]   (needs /usr/bin/python3 with torch)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/remat-bench}
mkdir -p "$work"
[ -f "$work/gpt2-small.onnx" ] ||
  /usr/bin/python3 "$root/examples/onnx/export.py" gpt2-small "$work/gpt2-small.onnx" > /dev/null
for mode in none full selective; do
  "$root/build/bin/dist-compile" "$work/gpt2-small.onnx" \
    --input-shape=idx=2x256 --input-shape=targets=2x256 \
    --train --optimizer=adamw --remat=$mode -o "$work/trainer-$mode"
done
echo "| --remat= | peak RSS | ms/step | peak / none | time / none |"
echo "|---|---|---|---|---|"
for mode in none full selective; do
  line=$("$work/trainer-$mode" --steps 3 --synthetic 1 | tail -1)
  ms=$(sed -E 's/.*\| ([0-9.]+) ms\/step.*/\1/' <<<"$line")
  mem=$(sed -E 's/.*peak mem ([0-9.]+) MiB.*/\1/' <<<"$line")
  [ "$mode" = none ] && { base_ms=$ms; base_mem=$mem; }
  awk -v m="$mode" -v mem="$mem" -v ms="$ms" -v bm="$base_mem" -v bt="$base_ms" \
    'BEGIN { printf "| %s | %s MiB | %s | %.3f | %.3f |\n", m, mem, ms, mem / bm, ms / bt }'
done
