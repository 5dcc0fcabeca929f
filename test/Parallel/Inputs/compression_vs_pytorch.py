"""Checks --grad-compression against PyTorch: one SGD step (lr LR) of a
dist-compile --train --mesh=2 --parallel=dp --grad-compression=TYPE
executable under the launcher, and the same step of the module it was
exported from, computed as the two ranks would: each rank's part of the
gradient of the global mean loss (its half of the batch), rounded to TYPE,
the two parts added in float32 and the sum rounded to TYPE (what the
runtime's 16-bit MPI sum does), then widened.

The executable's gradient is read back from its weights, (w0 - w1) / lr in
float64. An element matches a reference when it is within 1e-4 relative
(+ 2e-7 absolute, the float32 rounding of w1): a quarter of the 16-bit
rounding step of bfloat16's (3.9e-3). Passes when at least 99% of the
elements match the compressed reference (a rank's float32 gradient that
PyTorch rounds differently can land on the other side of a 16-bit rounding
boundary) and at most 50% match the uncompressed sum (so an executable that
did not compress fails).

usage: compression_vs_pytorch.py MODEL TRAINER WORKDIR TYPE LR LAUNCHER...
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Training", "Inputs"))
from examples_io import example, read_tensors  # noqa: E402

name, trainer, work, kind, lr = sys.argv[1:6]
launcher = sys.argv[6:]
lr = float(lr)
narrow = {"bf16": torch.bfloat16, "fp16": torch.float16}[kind]

module, inputs, args = example(name, work)
ckpt = os.path.join(work, "ckpt")
log = os.path.join(work, "log.jsonl")
shutil.rmtree(ckpt, ignore_errors=True)
subprocess.run(launcher + [trainer, "--steps", "1", "--ckpt", ckpt,
                           "--log-json", log] + args,
               check=True, stdout=subprocess.DEVNULL)
before = read_tensors(trainer + ".safetensors")
after = read_tensors(os.path.join(ckpt, "step-00000001", "params.safetensors"))
ours_loss = json.loads(open(log).readline())["loss"]

# The ranks' parts: rank r holds the r-th half of every input's batch; the
# loss is a mean over the global batch, so its part is half its own mean.
parts = []
for r in range(2):
    module.zero_grad()
    half = [t.chunk(2, dim=0)[r] for t in inputs]
    (module(*half)[0] * 0.5).backward()
    parts.append({n: p.grad.detach().clone() for n, p in module.named_parameters()
                  if p.requires_grad})
module.zero_grad()
loss = module(*inputs)[0].item()

matched_c = matched_u = total = 0
for n, g0 in parts[0].items():
    g1 = parts[1][n]
    compressed = (g0.to(narrow).float() + g1.to(narrow).float()).to(narrow).double()
    whole = (g0 + g1).double()
    ours = (before[n].astype(np.float64) - after[n].astype(np.float64)) / lr
    ours = torch.from_numpy(ours.reshape(tuple(whole.shape)))

    def matches(ref):
        return int(((ours - ref).abs() <= 1e-4 * ref.abs() + 2e-7).sum())
    matched_c += matches(compressed)
    matched_u += matches(whole)
    total += whole.numel()

loss_err = abs(ours_loss - loss) / abs(loss)
print("%s %s: %d gradient elements; %.2f%% match the %s-compressed sum, "
      "%.2f%% the float32 sum; first loss %.6f (PyTorch %.6f)" % (
          name, kind, total, 100.0 * matched_c / total, kind,
          100.0 * matched_u / total, ours_loss, loss))
ok = matched_c >= 0.99 * total and matched_u <= 0.5 * total and loss_err <= 1e-5
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
