"""Shared by the test/Models checkers: a model's inputs as .npy files for the
executables, relative errors, safetensors reading."""
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(root, "test", "Training", "Inputs"))
from examples_io import nan_is_worst, read_tensors  # noqa: E402,F401
import model_zoo as models  # noqa: E402,F401


def save_inputs(names, inputs, work):
    """Writes each input as WORK/<name>.npy; returns the executables'
    --input arguments."""
    os.makedirs(work, exist_ok=True)
    args = []
    for n, t in zip(names, inputs):
        path = os.path.join(work, n + ".npy")
        np.save(path, t.numpy())
        args += ["--input", "%s=%s" % (n, path)]
    return args


def rel_error(ours, ref):
    """max |ours - ref| / max |ref| (float64): the relative error of a tensor
    by its largest element (a scalar's ordinary relative error)."""
    ours = np.asarray(ours, np.float64)
    ref = np.asarray(ref, np.float64)
    if ours.shape != ref.shape:
        return float("inf")
    return nan_is_worst(float(np.max(np.abs(ours - ref)) /
                              max(np.max(np.abs(ref)), 1e-30)))
