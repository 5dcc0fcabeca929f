"""Exports a test/Models model to ONNX.

usage: .venv/bin/python3 test/Models/Inputs/export.py MODEL MODE OUT.onnx [--float64] [--opset=N]
MODEL: gpt2, llama, bert, t5, bart, vit, resnet18, mobilenet_v2, convnext_atto.
MODE: train (TrainingMode.TRAINING, no constant folding, static shapes),
eval (torch.onnx.export's defaults: eval mode, constant folding; dynamic
batch and sequence axes, so dist-compile needs --input-shape) or helper
(python/dist_export.py: train plus the dist.trainable list, so buffers are
frozen).
--float64: parameters, buffers and float inputs in float64.
--opset=N: the ONNX opset (default 14).
"""
import argparse
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_zoo as models  # noqa: E402

parser = argparse.ArgumentParser(usage=__doc__)
parser.add_argument("model", choices=list(models.MODELS))
parser.add_argument("mode", choices=["train", "eval", "helper"])
parser.add_argument("out")
parser.add_argument("--float64", action="store_true")
parser.add_argument("--opset", type=int, default=14)
args = parser.parse_args()
# torch.onnx and transformers warn about traced Python control flow; the
# traced shapes are the ones the tests use.
warnings.filterwarnings("ignore")
models.export(args.model, args.mode, args.out, args.float64, args.opset)
