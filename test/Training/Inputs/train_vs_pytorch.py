"""Trains an example model with a dist-compile --train executable and with
PyTorch 1.13 on the same module, initial weights and fixed batch, and
compares the loss of every step (relative error <= 1e-5).

usage: train_vs_pytorch.py MODEL TRAINER WORKDIR STEPS OPTIMIZER [k=v ...]
OPTIMIZER is sgd or adamw; k=v are the hyperparameters the trainer was
compiled with: lr, momentum, weight_decay, max_grad_norm (0: off).
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch

root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(root, "examples", "onnx"))
import models  # noqa: E402

name, trainer, work, steps, opt = sys.argv[1:6]
steps = int(steps)
hp = dict(lr=1e-3, momentum=0.0, weight_decay=0.0, max_grad_norm=0.0)
for kv in sys.argv[6:]:
    k, v = kv.split("=")
    hp[k] = float(v)

os.makedirs(work, exist_ok=True)
module, inputs, input_names, _ = models.build(name)
args = []
for n, t in zip(input_names, inputs):
    path = os.path.join(work, n + ".npy")
    np.save(path, t.numpy())
    args += ["--input", "%s=%s" % (n, path)]
log = os.path.join(work, "log.jsonl")
subprocess.run([trainer, "--steps", str(steps), "--log-json", log] + args,
               check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line)["loss"] for line in open(log)]

params = list(module.parameters())
if opt == "sgd":
    optimizer = torch.optim.SGD(params, lr=hp["lr"], momentum=hp["momentum"],
                                weight_decay=hp["weight_decay"])
else:
    optimizer = torch.optim.AdamW(params, lr=hp["lr"],
                                  weight_decay=hp["weight_decay"])
ref = []
for _ in range(steps):
    optimizer.zero_grad()
    loss = module(*inputs)[0]
    loss.backward()
    if hp["max_grad_norm"] > 0:
        torch.nn.utils.clip_grad_norm_(params, hp["max_grad_norm"])
    optimizer.step()
    ref.append(loss.item())

worst = 0.0
for i, (a, b) in enumerate(zip(ours, ref)):
    worst = max(worst, abs(a - b) / abs(b))
print("%s %s: %d steps, loss %.6f -> %.6f (torch %.6f -> %.6f)" %
      (name, opt, len(ours), ours[0], ours[-1], ref[0], ref[-1]))
print("worst per-step relative error %.2e" % worst)
ok = len(ours) == steps and worst <= 1e-5
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
