"""python/dist_export.py's check of an export against its module
(test/Training/export-check.test): a module whose in-place fill_diagonal_
on a slice PyTorch 1.13's exporter drops (Hugging Face ProphetNet's
ngram_attention_bias) is refused with ExportMismatch and leaves no file;
the same module written out of place exports and passes, and so does one
whose outputs hold -inf and whose forward changes its input in place; a
module with active dropout is not compared (None).

usage: export_check.py WORKDIR
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
from dist_export import ExportMismatch, check_export, export_for_training  # noqa: E402

work = sys.argv[1]
os.makedirs(work, exist_ok=True)


class InPlace(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)

    def bias(self):
        bias = torch.ones(2, 6, 6) * -1.0
        for i in range(2):
            bias[i].fill_diagonal_(0)
        return bias

    def forward(self, x):
        return (self.fc(x) + self.bias()).sum(), self.fc(x)


class OutOfPlace(InPlace):
    def bias(self):
        return torch.ones(2, 6, 6) * -1.0 + torch.eye(6)


class MaskedScores(OutOfPlace):
    """Scores with -inf where masked: equal infinities are not a mismatch;
    the forward also changes its input in place (after the check read it)."""

    def forward(self, x):
        scores = self.fc(x).masked_fill(torch.eye(6, dtype=torch.bool), float("-inf"))
        loss = scores.softmax(-1).sum()
        x.mul_(2.0)
        return loss, scores


class WithDropout(OutOfPlace):
    def forward(self, x):
        return torch.nn.functional.dropout(self.fc(x), 0.5, True).sum(), x


torch.manual_seed(0)
x = torch.randn(2, 6, 6)
names = dict(input_names=["x"], output_names=["loss", "y"])
good = os.path.join(work, "out-of-place.onnx")
module = OutOfPlace()
export_for_training(module, (x,), good, **names)
print("out of place: exported, worst %.1e" % check_export(module, (x,), good))
bad = os.path.join(work, "in-place.onnx")
try:
    export_for_training(InPlace(), (x,), bad, **names)
    print("in place: exported (no error)")
except ExportMismatch as e:
    print("in place: ExportMismatch: %s" % e)
print("in place: file left: %s" % ("yes" if os.path.exists(bad) else "no"))
drop = os.path.join(work, "dropout.onnx")
module = MaskedScores()
masked = os.path.join(work, "masked.onnx")
export_for_training(module, (x.clone(),), masked, **names)
print("masked: exported, worst %.1e" % check_export(module, (x.clone(),), masked))
module = WithDropout()
export_for_training(module, (x,), drop, **names)
print("dropout: check %s" % check_export(module, (x,), drop))
