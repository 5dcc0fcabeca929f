#!/usr/bin/env bash
# How the kernels of a model's CUDA step use the GPU (no GPU needed):
#
#   scripts/kernel-shapes.sh MODEL [dist-compile flags...] [-- kernel-shapes.py flags]
#
# e.g. scripts/kernel-shapes.sh gpt2-small.onnx --input-shape=idx=8x1024 \
#        --input-shape=targets=8x1024 --train --optimizer=adamw --max-grad-norm=1 -- --check
#
# Compiles MODEL with `dist-compile --target=cuda` up to the outlined
# kernels (the pipeline of --print-pipeline, stopped after
# dist-dedupe-gpu-kernels: no CUDA toolkit needed) and prints, per kernel,
# its launches, threads, the bytes of its buffers and the elements of its
# largest buffer per thread (scripts/kernel-shapes.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dc=${DIST_COMPILE:-$root/build/bin/dist-compile}
[ $# -ge 1 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
model=$1; shift
flags=(); shapes=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; shapes=("$@"); break; fi
  flags+=("$1"); shift
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pipeline=$("$dc" "$model" "${flags[@]}" --target=cuda --print-pipeline | head -1)
case "$pipeline" in
  *dist-dedupe-gpu-kernels*) ;;
  *) echo "error: no dist-dedupe-gpu-kernels in the pipeline of $model" >&2; exit 1 ;;
esac
prefix="${pipeline%%dist-dedupe-gpu-kernels*}dist-dedupe-gpu-kernels)"
# --pipeline holds the whole pipeline (training, precision included): only
# the flags that shape the import.
keep=()
for f in "${flags[@]}"; do
  case "$f" in --input-shape=*|--bind-input=*) keep+=("$f") ;; esac
done
"$dc" "$model" "${keep[@]}" --target=cuda --emit=mlir --pipeline="$prefix" -o "$work/step.mlir"
exec python3 "$root/scripts/kernel-shapes.py" "$work/step.mlir" "${shapes[@]}"
