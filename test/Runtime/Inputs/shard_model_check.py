"""Inputs for, and the numpy reference of, shard-model (model-mesh.test).

usage: shard_model_check.py files DIR      write x.npy and the weights c.safetensors
       shard_model_check.py check DIR OUT  OUT (--output-dir, x from DIR) vs numpy

Prints one line per check; exits 1 on a failure.
"""
import os
import sys

import numpy as np

import safetensors_ref as ref


def files(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(3)
    np.save(os.path.join(d, "x.npy"), rng.uniform(-1, 1, (4, 6)).astype(np.float32))
    c = (np.arange(6) * 0.5).astype(np.float32)
    ref.write(os.path.join(d, "c.safetensors"), [("c", ref.Tensor.of(c))], {"format": "pt"})
    print("wrote inputs to %s" % d)


def check(d, out):
    x = np.load(os.path.join(d, "x.npy"))
    c = (np.arange(6) * 0.5).astype(np.float32)
    y, top = np.load(os.path.join(out, "y.npy")), np.load(os.path.join(out, "top.npy"))
    ok = (y.dtype == np.float32 and y.shape == (4, 6) and np.array_equal(y, 2 * x + c) and
          top.shape == () and top == x.max())
    print("%s y = 2 x + c and top = max(x), exactly" % ("ok" if ok else "FAIL"))
    return ok


command, args = sys.argv[1], sys.argv[2:]
sys.exit(0 if {"files": files, "check": check}[command](*args) is not False else 1)
