"""Inputs for, and numpy checks of, the hand-written models run by model-main.test.

usage: model_main_check.py files DIR      write inputs, weights and bad variants
       model_main_check.py toy DIR OUT    OUT (toy-model's --output-dir) vs numpy
       model_main_check.py same A B       two output dirs hold identical files
       model_main_check.py differ A B     ... and differ in every random output
       model_main_check.py random OUT     identity-model's random values are in range

Prints one line per check; exits 1 on a failure.
"""
import os
import sys

import numpy as np

import safetensors_ref as ref

failures = 0


def report(ok, what):
    global failures
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAIL", what))


def files(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(1)
    np.save(os.path.join(d, "x.npy"), rng.standard_normal((2, 3)).astype(np.float32))
    np.save(os.path.join(d, "ids.npy"), rng.integers(-50, 50, 4, dtype=np.int64))
    np.save(os.path.join(d, "x_shape.npy"), np.ones((3, 2), np.float32))
    np.save(os.path.join(d, "x_dtype.npy"), np.ones((2, 3), np.float64))
    # Small exact values for the printed summary.
    np.save(os.path.join(d, "x_pow2.npy"), np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    np.save(os.path.join(d, "ids_small.npy"), np.arange(1, 5, dtype=np.int64))
    np.save(os.path.join(d, "d3.npy"), np.array([0.25, -1.5, 3.0]))
    w = rng.standard_normal(3).astype(np.float32)
    np.save(os.path.join(d, "w.npy"), w)
    # Powers of two, so that x == y / w exactly for the random-input checks.
    pow2 = np.array([0.5, -2.0, 4.0], np.float32)
    extra = ("unused.bias", ref.Tensor.of(np.zeros(2, np.float32)))
    for name, tensors in [
            ("w", [("w", ref.Tensor.of(w))]),
            ("w_extra", [extra, ("w", ref.Tensor.of(w))]),
            ("w_pow2", [("w", ref.Tensor.of(pow2))]),
            ("w_shape", [("w", ref.Tensor.of(np.ones(4, np.float32)))]),
            ("w_dtype", [("w", ref.Tensor.of(np.ones(3, np.float64)))]),
            ("w_missing", [("v", ref.Tensor.of(np.ones(3, np.float32)))])]:
        ref.write(os.path.join(d, name + ".safetensors"), tensors, {"format": "pt"})
    print("wrote inputs to %s" % d)


def toy(d, out):
    x = np.load(os.path.join(d, "x.npy"))
    ids = np.load(os.path.join(d, "ids.npy"))
    w = np.load(os.path.join(d, "w.npy"))
    y = np.load(os.path.join(out, "y.npy"))
    n_sum = np.load(os.path.join(out, "n_sum.npy"))
    report(y.dtype == np.float32 and y.shape == (2, 3) and np.array_equal(y, x * w),
           "y == x * w")
    report(n_sum.dtype == np.float64 and n_sum.shape == () and n_sum == ids.sum(),
           "n/sum == sum(ids) = %s" % n_sum)
    report(sorted(os.listdir(out)) == ["n_sum.npy", "y.npy"], "files: y.npy n_sum.npy")


def load_all(d):
    return {f: np.load(os.path.join(d, f)) for f in sorted(os.listdir(d))}


def same(a, b):
    a, b = load_all(a), load_all(b)
    report(a.keys() == b.keys() and all(a[k].tobytes() == b[k].tobytes() and
                                        a[k].dtype == b[k].dtype for k in a),
           "same outputs: %s" % " ".join(a))


def differ(a, b):
    a, b = load_all(a), load_all(b)
    # Outputs of a few random bits (a scalar 0/1) may agree by chance.
    varied = [k for k in a if a[k].size >= 3 and a[k].dtype != np.bool_]
    report(all(a[k].tobytes() != b[k].tobytes() for k in varied),
           "different outputs: %s" % " ".join(varied))


def on_grid(values, step):
    return bool(np.all((values >= -1) & (values < 1)) and
                np.all(np.round(values / step) * step == values))


def random(out):
    o = load_all(out)
    expected = {"a b.c_d.npy": ("float64", (3,)), "half.npy": ("float16", (2, 2)),
                "flags.npy": ("bool", (5,)), "bytes.npy": ("uint8", (4,)),
                "count.npy": ("int32", ()), "brain_f32.npy": ("float32", (3,)),
                "empty.npy": ("float32", (0, 4))}
    report({k: (v.dtype.name, v.shape) for k, v in o.items()} == expected,
           "identity outputs: names ('/' -> '_'), dtypes and shapes")
    report(on_grid(o["a b.c_d.npy"], 2.0**-52), "float64 in [-1, 1)")
    report(on_grid(o["half.npy"].astype(np.float64), 2.0**-11), "float16 in [-1, 1)")
    report(on_grid(o["brain_f32.npy"].astype(np.float64), 2.0**-8), "bfloat16 in [-1, 1)")
    report(set(o["bytes.npy"].tolist()) <= {0, 1} and set(o["count.npy"].flatten().tolist()) <= {0, 1},
           "integers in {0, 1}")


def toy_random(d, out):
    """toy-model ran with w_pow2: x = y / w exactly; x must be in [-1, 1)."""
    y = np.load(os.path.join(out, "y.npy")).astype(np.float64)
    x = y / np.array([0.5, -2.0, 4.0])
    report(on_grid(x, 2.0**-24), "random x in [-1, 1)")
    n_sum = np.load(os.path.join(out, "n_sum.npy"))
    report(0 <= n_sum <= 4 and n_sum == int(n_sum), "random ids in {0, 1}: sum %s" % n_sum)


command, args = sys.argv[1], sys.argv[2:]
{"files": files, "toy": toy, "same": same, "differ": differ, "random": random,
 "toy-random": toy_random}[command](*args)
sys.exit(1 if failures else 0)
