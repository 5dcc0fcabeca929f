"""Exports an example model to ONNX (opset 14), as torch.onnx.export emits it.

usage: /usr/bin/python3 examples/onnx/export.py MODEL OUT.onnx [--static | --dynamic-batch]
MODEL: mlp, gpt2-tiny, gpt2-3heads, gpt2-mha, gpt2-small, gpt2-medium,
gpt2-large, gpt2-xl, cnn-small. The GPT-2 models but gpt2-mha are exported
with dynamic batch and sequence axes unless --static
is given; gpt2-mha (gpt2-tiny on nn.MultiheadAttention, tanh GELU, untied
head, NegativeLogLikelihoodLoss) is static. --dynamic-batch makes the first
(batch) axis of every input dynamic (what parameter-server mode needs, and how
PyTorch users export with dynamic_axes={name: {0: "batch"}}).
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
import models  # noqa: E402
from dist_export import export_for_training  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("model")
parser.add_argument("out")
parser.add_argument("--static", action="store_true")
parser.add_argument("--dynamic-batch", action="store_true")
args = parser.parse_args()

module, inputs, names, dynamic = models.build(args.model)
if args.dynamic_batch:
    dynamic = {name: {0: "batch"} for name in names}
# Training mode keeps what a training compiler must see: BatchNormalization
# with batch statistics (eval mode would fold it into the convolutions), no
# merged or folded weights; the dist.trainable list marks buffers (the
# attention masks) as not trained.
export_for_training(module, inputs, args.out, input_names=names,
                    output_names=["loss", "logits"],
                    dynamic_axes=None if args.static else (dynamic or None))
