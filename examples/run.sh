#!/usr/bin/env bash
# Exports an example model from PyTorch to ONNX, compiles it to a native
# executable with dist-compile, and runs it once on seeded random inputs.
#
#   examples/run.sh [MODEL] [WORKDIR]   MODEL: mlp, gpt2-tiny (default), cnn-small
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
model=${1:-gpt2-tiny}
work=${2:-/tmp/dist-example}
mkdir -p "$work"
echo "== export $model with PyTorch 1.13 -> $work/$model.onnx"
/usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$work/$model.onnx" \
  --static 2>/dev/null
echo "== dist-compile $model.onnx -o $model (+ $model.safetensors)"
"$root/build/bin/dist-compile" "$work/$model.onnx" -o "$work/$model" --time-phases
echo "== ./$model (inputs: seeded random values; see ./$model --help)"
"$work/$model"
