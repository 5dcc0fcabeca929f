"""PyTorch 1.13 eager baseline for bench/train-cpu.sh: one AdamW training
step (zero_grad, forward, backward, step) of MODEL on its example batch, with
THREADS threads. Prints `pytorch: <median ms>` over STEPS steps after two
warm-up steps, and `pytorch-peak-mib: <max RSS in MiB>` of this process.

usage: train_baseline.py MODEL THREADS STEPS INPUT_DIR
"""
import os
import resource
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "examples", "onnx"))
import models  # noqa: E402

name, threads, steps, input_dir = sys.argv[1:5]
torch.set_num_threads(int(threads))
module, inputs, names, _ = models.build(name)
for n, t in zip(names, inputs):
    np.save(os.path.join(input_dir, n + ".npy"), t.numpy())
optimizer = torch.optim.AdamW(module.parameters(), lr=1e-4)


def step():
    optimizer.zero_grad()
    loss = module(*inputs)[0]
    loss.backward()
    optimizer.step()


times = []
for i in range(int(steps) + 2):
    start = time.perf_counter()
    step()
    if i >= 2:
        times.append((time.perf_counter() - start) * 1e3)
print("pytorch: %.3f" % statistics.median(times))
print("pytorch-peak-mib: %.1f" %
      (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
