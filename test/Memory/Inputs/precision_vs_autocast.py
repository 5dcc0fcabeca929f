"""Trains an example model with a dist-compile --train --precision=bf16
executable and with PyTorch 1.13 under torch.autocast("cpu",
dtype=torch.bfloat16) on the same module, initial weights and fixed batch
(AdamW), and compares the curves:

- every step's loss within 2e-2 relative of autocast's;
- both curves go down alike: the total decrease of each within 20% of the
  other's, and the decrease is real (over 1% of the first loss);
- the run is really in bf16: some step's loss differs from PyTorch's float32
  training of the same module by more than 1e-5 relative (the float32 bar
  of train_vs_pytorch.py), so a silently float32 build fails here.

With PRECISION fp16 (a --precision=fp16 executable, dynamic loss
scaling), the reference curve is PyTorch's float32 training: PyTorch 1.13's
CPU autocast has no float16 (loss_scaling_vs_gradscaler.py checks float16's
arithmetic and the scaler step by step).

usage: precision_vs_autocast.py MODEL TRAINER WORKDIR STEPS LR [PRECISION]
"""
import copy
import json
import os
import subprocess
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Training", "Inputs"))
from examples_io import example  # noqa: E402

name, trainer, work, steps, lr = sys.argv[1:6]
precision = sys.argv[6] if len(sys.argv) > 6 else "bf16"
steps, lr = int(steps), float(lr)

module, inputs, args = example(name, work)
log = os.path.join(work, "log.jsonl")
subprocess.run([trainer, "--steps", str(steps), "--log-json", log] + args,
               check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line)["loss"] for line in open(log)]


def train(model, autocast):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = model(*inputs)[0]
        loss.float().backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


fp32_module = copy.deepcopy(module)
fp32 = train(fp32_module, autocast=False)
ref = train(module, autocast=True) if precision == "bf16" else fp32
against = "autocast" if precision == "bf16" else "float32"

worst = max(abs(a - b) / abs(b) for a, b in zip(ours, ref))
off_fp32 = max(abs(a - b) / abs(b) for a, b in zip(ours, fp32))
drop_ours, drop_ref = ours[0] - ours[-1], ref[0] - ref[-1]
print("%s %s: %d steps, loss %.6f -> %.6f (%s %.6f -> %.6f, float32 "
      "%.6f -> %.6f)" % (name, precision, len(ours), ours[0], ours[-1], against,
                         ref[0], ref[-1], fp32[0], fp32[-1]))
print("worst per-step relative error against %s %.2e (bar 2e-2)" % (against, worst))
print("decrease %.4f, %s's %.4f" % (drop_ours, against, drop_ref))
print("largest per-step difference from float32 training %.2e (must exceed "
      "1e-5)" % off_fp32)
ok = (len(ours) == steps and worst <= 2e-2 and drop_ref > 0.01 * ref[0]
      and drop_ours > 0.01 * ours[0]
      and abs(drop_ours - drop_ref) <= 0.2 * drop_ref and off_fp32 > 1e-5)
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
