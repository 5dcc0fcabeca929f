"""Trains an example model with a dist-compile --train --precision=fp16
(--loss-scale=dynamic) executable and, in PyTorch 1.13 on the same module,
weights and fixed batch, with the same float16 arithmetic emulated in
float32 and PyTorch's GradScaler algorithm around AdamW; compares which
steps are skipped, the scale of every step, the final scale and growth
tracker (from the executable's checkpoint) and the losses.

PyTorch 1.13 on the CPU has neither float16 matrix products nor
GradScaler's kernels (torch.cuda.amp only), so the reference is built from
parts: every nn.Linear computes round16(round16(x) @ round16(W)^T) + b (and
nn.Conv2d likewise), where round16(t) = t.half().float() rounds to float16
(and autograd rounds the gradient through it the same way): float16 inputs,
float32 sums, a float16 product, as the executable's matrix products; the backward is seeded with
the scale (loss * S); GradScaler's update (the defaults of
torch.cuda.amp.GradScaler: growth factor 2, backoff 0.5) is transcribed
from torch/cuda/amp/grad_scaler.py: a step with any inf/NaN gradient is
skipped (the optimizer's step not called) and halves the scale, and
growth-interval clean steps in a row double it.

usage: loss_scaling_vs_gradscaler.py MODEL TRAINER WORKDIR STEPS LR INIT INTERVAL
"""
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Training", "Inputs"))
from examples_io import example, read_tensors  # noqa: E402

name, trainer, work, steps, lr, init, interval = sys.argv[1:8]
steps, lr, init, interval = int(steps), float(lr), float(init), int(interval)
defaults = {k: v.default for k, v in
            inspect.signature(torch.cuda.amp.GradScaler.__init__).parameters.items()}
growth, backoff = defaults["growth_factor"], defaults["backoff_factor"]

module, inputs, args = example(name, work)
log = os.path.join(work, "log.jsonl")
ckpt = os.path.join(work, "ckpt")
subprocess.run([trainer, "--steps", str(steps), "--log-json", log, "--ckpt",
                ckpt] + args, check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line) for line in open(log)]
state = read_tensors(os.path.join(ckpt, "step-%08d" % steps,
                                  "optimizer.safetensors"))


def round16(t):
    return t.half().float()


def linear16(x, weight, bias=None):
    y = round16(round16(x) @ round16(weight).t())
    return y if bias is None else y + bias


conv2d = F.conv2d


def conv2d16(x, weight, bias=None, *args):
    y = round16(conv2d(round16(x), round16(weight), None, *args))
    return y if bias is None else y + bias.view(1, -1, 1, 1)


# nn.Linear and nn.Conv2d look these up at each call.
F.linear = linear16
F.conv2d = conv2d16

optimizer = torch.optim.AdamW(module.parameters(), lr=lr, weight_decay=0.0)
scale = torch.tensor(init, dtype=torch.float32)
tracker = 0
ref = []
for _ in range(steps):
    optimizer.zero_grad()
    loss = module(*inputs)[0]
    (loss * scale).backward()
    # GradScaler.unscale_: grads * (1 / scale) (computed in float64, rounded
    # to float32), found_inf if any is inf or NaN.
    inverse = torch.tensor(1.0 / scale.double().item(), dtype=torch.float32)
    found = False
    for p in module.parameters():
        p.grad.mul_(inverse)
        found = found or not bool(torch.isfinite(p.grad).all())
    used = scale.item()
    if not found:
        optimizer.step()
    # torch._amp_update_scale_.
    if found:
        scale = scale * backoff
        tracker = 0
    else:
        tracker += 1
        if tracker == interval:
            grown = scale * growth
            if torch.isfinite(grown):
                scale = grown
            tracker = 0
    ref.append({"loss": loss.item(), "loss_scale": used, "skipped": found})

skips_ours = [e["step"] for e in ours if e["skipped"]]
skips_ref = [i + 1 for i, e in enumerate(ref) if e["skipped"]]
scales_same = [e["loss_scale"] for e in ours] == [e["loss_scale"] for e in ref]
final = (float(state["loss_scale"]), int(state["loss_scale_growth_tracker"]))
worst = max(abs(a["loss"] - b["loss"]) / abs(b["loss"]) for a, b in zip(ours, ref))
print("%s fp16: %d steps, skipped %s (GradScaler: %s)" %
      (name, len(ours), skips_ours, skips_ref))
print("scales of every step %s; final scale %g tracker %d (GradScaler: %g, %d)" %
      ("equal" if scales_same else "DIFFER", final[0], final[1], scale.item(), tracker))
print("worst per-step loss relative difference %.2e (bar 1e-3)" % worst)
ok = (len(ours) == steps and skips_ours == skips_ref and scales_same and skips_ref
      and len(skips_ref) < steps and final == (scale.item(), tracker) and worst <= 1e-3)
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
