#!/usr/bin/env bash
# Exports an example model from PyTorch to ONNX, compiles it with dist-compile
# into a trainer (autodiff + AdamW) and trains it for a few steps on seeded
# synthetic data, printing one line per step; then compiles and runs the
# forward-only executable once.
#
#   examples/run.sh [MODEL] [WORKDIR] [STEPS]   MODEL: mlp, gpt2-tiny (default), cnn-small
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
model=${1:-gpt2-tiny}
work=${2:-/tmp/dist-example}
steps=${3:-8}
mkdir -p "$work"
echo "== export $model with PyTorch 1.13 -> $work/$model.onnx"
/usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$work/$model.onnx" \
  --static 2>/dev/null
echo "== dist-compile $model.onnx --train --optimizer=adamw -o $model-trainer"
"$root/build/bin/dist-compile" "$work/$model.onnx" --train --optimizer=adamw \
  --lr=1e-3 --weight-decay=0.01 --max-grad-norm=1 --warmup-steps=2 \
  -o "$work/$model-trainer" --time-phases
echo "== ./$model-trainer --steps $steps --synthetic 0 (see --help)"
rm -rf "$work/$model-ckpt"
"$work/$model-trainer" --steps "$steps" --synthetic 0 \
  --ckpt "$work/$model-ckpt" --save-every 4 --log-json "$work/$model-log.jsonl"
echo "== checkpoints in $work/$model-ckpt, per-step JSON in $work/$model-log.jsonl"
echo "== dist-compile $model.onnx -o $model (forward only) and run it"
"$root/build/bin/dist-compile" "$work/$model.onnx" -o "$work/$model"
"$work/$model" | cut -c1-120
