#!/usr/bin/env bash
# Benchmark: compile time of the training step of convolutional networks
# with grouped and depthwise convolutions (torchvision MobileNetV2, timm
# ConvNeXt-atto) and of ResNet-18, at 64x64 images, batch 8 (the
# test/Models configurations). For each model: `dist-compile` of the
# forward executable (the baseline) and of `--train --optimizer=sgd`, in
# the same run, with --time-phases; prints both times and their ratio.
# Target (issue 15): the training step of each under 30 s.
#
#   bench/compile-models.sh [WORKDIR]   (needs build/bin/dist-compile and the
#                                        .venv of scripts/setup.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-bench-compile}
mkdir -p "$work"
py="$root/.venv/bin/python3"
compile="$root/build/bin/dist-compile"
for model in mobilenet_v2 convnext_atto resnet18; do
  onnx="$work/$model.onnx"
  [ -f "$onnx" ] || "$py" "$root/test/Models/Inputs/export.py" "$model" train "$onnx" 2>/dev/null
  start=$(date +%s.%N)
  "$compile" "$onnx" -o "$work/$model-fwd"
  mid=$(date +%s.%N)
  "$compile" "$onnx" --train --optimizer=sgd --lr=0.001 -o "$work/$model-train"
  end=$(date +%s.%N)
  python3 - "$model" "$start" "$mid" "$end" <<'PY'
import sys
name, a, b, c = sys.argv[1], *map(float, sys.argv[2:])
print("%-14s forward compile %6.1f s   --train compile %6.1f s   ratio %.2f"
      % (name, b - a, c - b, (c - b) / (b - a)))
PY
done
