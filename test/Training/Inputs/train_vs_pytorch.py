"""Trains an example model with a dist-compile --train executable and with
PyTorch 1.13 on the same module, initial weights and fixed batch, and
compares the loss of every step (relative error <= 1e-5).

usage: train_vs_pytorch.py MODEL TRAINER WORKDIR STEPS OPTIMIZER [k=v ...]
OPTIMIZER is sgd or adamw; k=v are the hyperparameters the trainer was
compiled with: lr, momentum, weight_decay, max_grad_norm (0: off),
nesterov (0 or 1); frozen=GLOB[,GLOB] names the parameters compiled with
--frozen, which PyTorch then does not train either (and which must keep
their initial values exactly); draws=FILE, the trainer's step
(`dist-compile --emit=dist`), makes PyTorch's torch.rand and
torch.randn_like return the samples its random ops draw at each step
(random_draws.py), in the order the step draws them.
The trainer also saves a checkpoint after the last step; the module's
buffers (batch norm's running statistics) must match it within relative
error 1e-4 by norm. The parameters' error is printed, not checked: after 20
AdamW steps, parameters whose gradients are near zero move by the sign of
float32 noise on both sides (up to 3.4e-03 by norm on cnn-small), while the
losses agree to 1e-7.
"""
import fnmatch
import json
import os
import subprocess
import sys

import numpy as np
import torch

from examples_io import example, nan_is_worst, read_tensors

name, trainer, work, steps, opt = sys.argv[1:6]
steps = int(steps)
hp = dict(lr=1e-3, momentum=0.0, weight_decay=0.0, max_grad_norm=0.0,
          nesterov=0.0)
frozen = []
draws = None
for kv in sys.argv[6:]:
    k, v = kv.split("=", 1)
    if k == "frozen":  # glob patterns of parameters PyTorch does not train
        frozen = v.split(",")
    elif k == "draws":
        draws = v
    else:
        hp[k] = float(v)

module, inputs, args = example(name, work)
for pname, p in module.named_parameters():
    if any(fnmatch.fnmatchcase(pname, pattern) for pattern in frozen):
        p.requires_grad_(False)
# The buffers start from the values the executable starts from: exporting a
# train-mode module runs it once, which moves batch norm's running
# statistics (the parameters themselves are untouched).
initial = read_tensors(trainer + ".safetensors")
with torch.no_grad():
    for key, buf in module.named_buffers():
        if key in initial:
            buf.copy_(torch.from_numpy(initial[key].copy()))
log = os.path.join(work, "log.jsonl")
ckpt = os.path.join(work, "ckpt")
subprocess.run([trainer, "--steps", str(steps), "--log-json", log,
                "--ckpt", ckpt] + args, check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line)["loss"] for line in open(log)]

params = [p for p in module.parameters() if p.requires_grad]
initial_frozen = {pname: p.detach().numpy().copy()
                  for pname, p in module.named_parameters() if not p.requires_grad}
if opt == "sgd":
    optimizer = torch.optim.SGD(params, lr=hp["lr"], momentum=hp["momentum"],
                                weight_decay=hp["weight_decay"],
                                nesterov=bool(hp["nesterov"]))
else:
    optimizer = torch.optim.AdamW(params, lr=hp["lr"],
                                  weight_decay=hp["weight_decay"])
ref = []
if draws:
    import random_draws
    random_ops = random_draws.ops(open(draws).read())
    queue = []

    def take(shape):
        op = queue.pop(0)
        if list(shape) != op["shape"]:
            raise SystemExit("FAILED: PyTorch draws %s where the step draws %s"
                             % (list(shape), op["shape"]))
        return torch.from_numpy(op["values"])

    def rand(*size, **kwargs):
        return take(size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size)

    torch.rand = rand
    torch.randn_like = lambda t, **kwargs: take(t.shape)
for step in range(steps):
    if draws:
        queue[:] = [dict(op, values=random_draws.sample(op, 0, step + 1))  # steps count from 1
                    for op in random_ops]
    optimizer.zero_grad()
    loss = module(*inputs)[0]
    loss.backward()
    if hp["max_grad_norm"] > 0:
        torch.nn.utils.clip_grad_norm_(params, hp["max_grad_norm"])
    optimizer.step()
    ref.append(loss.item())



saved = read_tensors(os.path.join(ckpt, "step-%08d" % steps, "params.safetensors"))
buffer_names = {key for key, _ in module.named_buffers()}
state_worst = {"parameters": 0.0, "buffers": 0.0}
for key, value in module.state_dict().items():
    if key.endswith("num_batches_tracked") or key not in saved:
        continue
    ref_v = value.double().numpy()
    got = saved[key].astype(np.float64)
    # Masks hold -inf: those elements must be equal, the rest close.
    finite = np.isfinite(ref_v)
    if not np.array_equal(ref_v[~finite], got[~finite]):
        err = float("inf")
    else:
        err = np.linalg.norm(got[finite] - ref_v[finite]) / max(np.linalg.norm(ref_v[finite]), 1e-30)
    kind = "buffers" if key in buffer_names else "parameters"
    state_worst[kind] = max(state_worst[kind], err)
print("final parameters: worst relative error %.2e; buffers: %.2e" %
      (state_worst["parameters"], state_worst["buffers"]))
frozen_kept = all(np.array_equal(saved[k], v) for k, v in initial_frozen.items())
if initial_frozen:
    print("frozen parameters: %d, unchanged: %s" %
          (len(initial_frozen), "yes" if frozen_kept else "NO"))

worst = 0.0
for i, (a, b) in enumerate(zip(ours, ref)):
    worst = max(worst, nan_is_worst(abs(a - b) / abs(b)))
print("%s %s: %d steps, loss %.6f -> %.6f (torch %.6f -> %.6f)" %
      (name, opt, len(ours), ours[0], ours[-1], ref[0], ref[-1]))
print("worst per-step relative error %.2e" % worst)
ok = (len(ours) == steps and worst <= 1e-5 and state_worst["buffers"] <= 1e-4
      and frozen_kept)
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
