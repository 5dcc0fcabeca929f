"""dist.random_uniform's and dist.random_normal's samples computed here, in
Python, from their definition in docs/dialects/Dist.md (splitmix64 of the
op's seed, the run's seed and the step, and each element's index), so that
PyTorch can train a model with the very draws a dist trainer makes:
train_vs_pytorch.py's draws=FILE replaces torch.rand and torch.randn_like
by them. A mismatch in the generator, its keys or the sampling formulas
shows as losses that part from the first step.

ops(ir) lists the random ops of a `dist-compile --emit=dist` step in order;
sample(op, run_seed, step) is the op's tensor at that step.
"""
import re

import numpy as np

M = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix(z):
    z = (z + GAMMA) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


OP = re.compile(r"dist\.(random_uniform|random_normal)\b[^{]*\{([^}]*)\}\s*:\s*tensor<([0-9x]+)x?f32>")


def ops(ir):
    found = []
    for kind, attrs, shape in OP.findall(ir):
        values = dict(re.findall(r"(\w+) = (-?[0-9.e+]+)", attrs))
        found.append(dict(kind=kind, seed=int(values["seed"]) & M,
                          a=float(values.get("low", values.get("mean", 0))),
                          b=float(values.get("high", values.get("scale", 0))),
                          shape=[int(d) for d in shape.split("x") if d]))
    return found


def sample(op, run_seed, step):
    h = mix(op["seed"])
    for k in (run_seed, step):
        h = mix(h ^ (k & M))
    count = int(np.prod(op["shape"])) if op["shape"] else 1
    z = [mix((h + i * GAMMA) & M) for i in range(count)]
    scale = np.float32(2.0 ** -24)
    u = np.array([(v >> 40) & 0xFFFFFF for v in z], np.float32) * scale
    if op["kind"] == "random_uniform":
        x = np.float32(op["a"]) + np.float32(op["b"] - op["a"]) * u
        if op["a"] < op["b"]:  # half-open: a sample rounded up to high
            x = np.minimum(x, np.nextafter(np.float32(op["b"]), np.float32(-np.inf)))
    else:
        v = np.array([(v >> 16) & 0xFFFFFF for v in z], np.float32) * scale
        radius = np.sqrt(np.float32(-2.0) * np.log(np.float32(1.0) - u))
        normal = radius * np.cos(np.float32(2.0 * np.pi) * v)
        x = np.float32(op["a"]) + np.float32(op["b"]) * normal
    return x.astype(np.float32).reshape(op["shape"])
