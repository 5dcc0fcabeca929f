"""Shared by the training checks: an example model with its inputs written
as .npy files for the executable, and safetensors files as numpy arrays
(through test/Runtime/Inputs/safetensors_ref.py, the format's reference)."""
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
sys.path.insert(0, os.path.join(root, "examples", "onnx"))
sys.path.insert(0, os.path.join(root, "test", "Runtime", "Inputs"))
import safetensors_ref  # noqa: E402


def example(name, work):
    """models.build(name) (seed 0), with its inputs saved in `work`: returns
    (module, inputs, the executable's --input arguments)."""
    import models  # PyTorch, only for the checks that compare with it
    import user_models

    os.makedirs(work, exist_ok=True)
    if name in user_models.NAMES:
        module, inputs, names = user_models.build(name)
    else:
        module, inputs, names, _ = models.build(name)
    args = []
    for n, t in zip(names, inputs):
        path = os.path.join(work, n + ".npy")
        np.save(path, t.numpy())
        args += ["--input", "%s=%s" % (n, path)]
    return module, inputs, args


def nan_is_worst(err):
    """`err`, or infinity when it is NaN (a NaN on either side): max()
    would skip a NaN and let a diverged run pass."""
    return err if err == err else float("inf")


def read_tensors(path):
    """{name: numpy array} of a safetensors file."""
    tensors, _, _ = safetensors_ref.read(path)
    return {name: np.frombuffer(t.data, safetensors_ref.NUMPY[t.dtype]).reshape(t.shape)
            for name, t in tensors}


def write_tensors(path, arrays):
    """Writes {name: numpy array} as a safetensors file."""
    safetensors_ref.write(path, [(n, safetensors_ref.Tensor.of(a)) for n, a in arrays.items()])
