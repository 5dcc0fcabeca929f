"""Trains a test/Models model with a dist-compile --train --optimizer=sgd
executable and with torch.optim.SGD on the module it was exported from (same
initial weights, same fixed batch, same learning rate; eval() mode for eval
exports, else train()) and compares the loss of every step.

usage: check_train.py MODEL MODE TRAINER WORKDIR STEPS LR [TOL] [--float64]
Prints the worst per-step relative error of the loss and "ok" when it is
<= TOL (default 1e-5) and the trainer ran STEPS steps; exits 1 otherwise.
For train and helper exports the trainer also checkpoints after the last
step and the module's buffers (batch norm's running statistics, and any
other buffer the export holds as an initializer) must match the checkpoint
(<= 1e-4 by norm, as test/Training/Inputs/train_vs_pytorch.py checks; a
running mean relative to the larger of its norm and its running standard
deviation's, since a batch norm that follows another one sees batch means
that are 0 but for rounding, ~1e-8, which no two summation orders agree on;
a buffer of zeros absolutely). For helper exports, the parameters PyTorch
does not train (requires_grad=False) must be unchanged in the checkpoint.
--float64: the model was exported with --float64.
"""
import json
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import torch

from common import models, nan_is_worst, read_tensors, save_inputs

warnings.filterwarnings("ignore")
float64 = "--float64" in sys.argv
argv = [a for a in sys.argv[1:] if a != "--float64"]
name, mode, trainer, work = argv[:4]
steps, lr = int(argv[4]), float(argv[5])
tol = float(argv[6]) if len(argv) > 6 else 1e-5

module, inputs, names, _ = models.build(name, mode, float64)
args = save_inputs(names, inputs, work)
# Exporting a train() module runs it once, which moves batch norm's running
# statistics; start the module's buffers where the executable starts.
initial = read_tensors(trainer + ".safetensors")
with torch.no_grad():
    for key, buf in module.named_buffers():
        if key in initial:
            buf.copy_(torch.from_numpy(initial[key].copy()))

log = os.path.join(work, "log.jsonl")
ckpt = os.path.join(work, "ckpt")
if os.path.exists(log):
    os.remove(log)
shutil.rmtree(ckpt, ignore_errors=True)
subprocess.run([trainer, "--steps", str(steps), "--log-json", log, "--ckpt", ckpt] + args,
               check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line)["loss"] for line in open(log)]

params = [p for p in module.parameters() if p.requires_grad]
frozen = {n: p.detach().double().numpy().copy()
          for n, p in module.named_parameters() if not p.requires_grad}
optimizer = torch.optim.SGD(params, lr=lr)
ref = []
for _ in range(steps):
    optimizer.zero_grad()
    loss = module(*inputs)[0]
    loss.backward()
    optimizer.step()
    ref.append(loss.item())

buffers_err = 0.0
if mode != "eval":
    saved = read_tensors(os.path.join(ckpt, "step-%08d" % steps, "params.safetensors"))
    buffers = dict(module.named_buffers())
    for key, value in buffers.items():
        if key.endswith("num_batches_tracked") or key not in saved:
            continue
        ref_v = value.double().numpy()
        scale = np.linalg.norm(ref_v)
        if key.endswith("running_mean") and key[:-4] + "var" in buffers:
            var = buffers[key[:-4] + "var"].double().numpy()
            scale = max(scale, np.linalg.norm(np.sqrt(np.maximum(var, 0))))
        err = np.linalg.norm(saved[key].astype(np.float64) - ref_v) / (scale if scale > 0 else 1.0)
        buffers_err = max(buffers_err, nan_is_worst(err))
    print("buffers: worst relative error %.2e" % buffers_err)

# The helper's export lists the trained parameters: those PyTorch does not
# train (requires_grad=False) must come out of training unchanged.
frozen_ok = True
if mode == "helper" and frozen:
    frozen_ok = all(k in saved and np.array_equal(saved[k].astype(np.float64), v)
                    for k, v in frozen.items())
    print("frozen parameters: %d, unchanged: %s" % (len(frozen), "yes" if frozen_ok else "NO"))

worst = max([nan_is_worst(abs(a - b) / abs(b)) for a, b in zip(ours, ref)] + [0.0])
print("%s %s sgd lr=%g: %d steps, loss %.6f -> %.6f (torch %.6f -> %.6f)" %
      (name, mode, lr, len(ours), ours[0], ours[-1], ref[0], ref[-1]))
print("per-step losses: " + " ".join("%.6f/%.6f" % ab for ab in zip(ours, ref)))
print("worst per-step relative error %.2e" % worst)
ok = len(ours) == steps and worst <= tol and buffers_err <= 1e-4 and frozen_ok
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
