"""Statistics of dist.dropout's masks (test/Training/dropout-masks.test):
runs the forward executable of dropout_masks.mlir for several (seed, step)
keys and checks, on 65536 elements per mask, with bounds of 5 standard
deviations:
- the keep rate is 1 - ratio, and kept elements are scaled by 1/(1 - ratio);
- the two ops' masks are independent (they agree on a fraction
  p^2 + (1-p)^2 of the elements), and so are the masks of one op at two
  steps, under two seeds, and of neighbouring elements;
- the same key gives the same masks (a resumed run draws them again).

usage: dropout_stats.py EXE WORKDIR
"""
import itertools
import os
import subprocess
import sys

import numpy as np

exe, work = sys.argv[1:3]
ratio = 0.3
keep = 1 - ratio
os.makedirs(work, exist_ok=True)
x = os.path.join(work, "x.npy")
np.save(x, np.ones((128, 512), np.float32))


def masks(seed, step):
    out = os.path.join(work, "out-%d-%d" % (seed, step))
    for name, value in (("seed", seed), ("step", step)):
        np.save(os.path.join(work, "%s.npy" % name), np.array(value, np.int64))
    subprocess.run([exe, "--input", "x=" + x,
                    "--input", "seed=" + os.path.join(work, "seed.npy"),
                    "--input", "step=" + os.path.join(work, "step.npy"),
                    "--output-dir", out], check=True)
    result = []
    for name in ("a", "b"):
        y = np.load(os.path.join(out, name + ".npy"))
        kept = y != 0
        scale = np.float32(1.0) / np.float32(keep)
        if not np.all(y[kept] == np.float32(1.0) * scale):
            print("FAIL: kept elements of %s are not scaled by 1/(1-ratio)" % name)
            sys.exit(1)
        result.append(kept.ravel())
    return result


failed = []


def within(what, observed, p, n):
    sigma = np.sqrt(p * (1 - p) / n)
    ok = abs(observed - p) <= 5 * sigma
    print("%-40s %.5f (expected %.5f +- %.5f)%s" %
          (what, observed, p, 5 * sigma, "" if ok else "  FAIL"))
    if not ok:
        failed.append(what)


agree = keep * keep + ratio * ratio
runs = {key: masks(*key) for key in itertools.product((0, 7), (1, 2))}
n = runs[(0, 1)][0].size
for (seed, step), (a, b) in runs.items():
    within("keep rate, seed %d step %d, op a" % (seed, step), a.mean(), keep, n)
    within("keep rate, seed %d step %d, op b" % (seed, step), b.mean(), keep, n)
    within("ops a and b agree, seed %d step %d" % (seed, step),
           (a == b).mean(), agree, n)
    within("neighbours agree, seed %d step %d" % (seed, step),
           (a[1:] == a[:-1]).mean(), agree, n - 1)
within("op a agrees with itself a step later", (runs[(0, 1)][0] == runs[(0, 2)][0]).mean(), agree, n)
within("op b agrees with itself a step later", (runs[(7, 1)][1] == runs[(7, 2)][1]).mean(), agree, n)
within("op a agrees with itself under seed 7", (runs[(0, 1)][0] == runs[(7, 1)][0]).mean(), agree, n)
again = masks(7, 2)
same = all(np.array_equal(u, v) for u, v in zip(again, runs[(7, 2)]))
print("same key, same masks: %s" % ("yes" if same else "NO"))
if not same:
    failed.append("reproducibility")
print("ok" if not failed else "FAILED: " + ", ".join(failed))
sys.exit(1 if failed else 0)
