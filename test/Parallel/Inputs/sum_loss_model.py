"""Exports a two-layer classifier whose cross-entropy is summed over the
batch (reduction='sum'), with a dynamic batch axis: a model parameter-server
mode refuses (its servers average the workers' gradients).

usage: sum_loss_model.py OUT.onnx
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
from dist_export import export_for_training  # noqa: E402


class SumLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x, labels):
        logits = self.fc(x)
        return F.cross_entropy(logits, labels, reduction="sum"), logits


torch.manual_seed(0)
export_for_training(SumLoss(), (torch.randn(8, 16), torch.randint(0, 4, (8,))),
                    sys.argv[1], input_names=["x", "labels"],
                    output_names=["loss", "logits"],
                    dynamic_axes={"x": {0: "batch"}, "labels": {0: "batch"}})
