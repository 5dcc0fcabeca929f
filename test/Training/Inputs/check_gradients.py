"""Compares the gradients a `dist-compile --gradients` executable computes
with PyTorch 1.13 autograd on the same module, weights and inputs.

usage: check_gradients.py MODEL EXE WORKDIR
MODEL is an examples/onnx/models.py name; EXE was compiled from that model's
ONNX export (examples/onnx/export.py MODEL --static). Prints one line per
parameter and exits 1 if any relative error (by norm) exceeds 1e-4: both
sides compute in float32, in different orders.
"""
import os
import subprocess
import sys

import numpy as np

from examples_io import example, nan_is_worst

name, exe, work = sys.argv[1:4]
module, inputs, args = example(name, work)
out = os.path.join(work, "out")
subprocess.run([exe] + args + ["--output-dir", out], check=True)

loss = module(*inputs)[0]
loss.backward()
ours = float(np.load(os.path.join(out, "loss.npy")))
print("loss: dist %.7g torch %.7g" % (ours, loss.item()))
worst = abs(ours - loss.item()) / abs(loss.item())
seen = set()
for pname, p in module.named_parameters():
    if id(p) in seen:
        continue
    seen.add(id(p))
    path = os.path.join(out, pname + ".grad.npy")
    if not os.path.exists(path):
        print("MISSING gradient of", pname)
        sys.exit(1)
    g = np.load(path).astype(np.float64)
    ref = p.grad.double().numpy()
    err = np.linalg.norm(g - ref) / max(np.linalg.norm(ref), 1e-30)
    err = nan_is_worst(err)
    worst = max(worst, err)
    print("%-40s rel %.2e" % (pname, err))
print("worst relative error %.2e" % worst)
sys.exit(0 if worst <= 1e-4 else 1)
