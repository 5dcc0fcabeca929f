"""Statistics of dist.random_uniform and dist.random_normal
(test/Training/random-samples.test): runs the forward executable of
random_samples.mlir for several (seed, step) keys and checks, on 65536
samples each, against the distributions' definitions, with bounds of 5
standard deviations of each estimate:
- uniform on [-1, 3): every sample in range, the mean 1 and the variance
  16/12, and the fraction below each quartile 1/4, 1/2, 3/4;
- normal of mean 2 and scale 0.5: the mean, the variance, and the fraction
  below mean + k * scale for k = -2..2 against the normal CDF;
- a bf16 uniform on [0, 1): in range (rounding never reaches 1), mean 1/2;
- independence: the correlation of one op's samples at two steps, under
  two seeds, of neighbouring elements, and of the two ops, is 0;
- the same key draws the same values (a resumed run draws them again).

usage: random_stats.py EXE WORKDIR
"""
import math
import os
import subprocess
import sys

import numpy as np

exe, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
N = 128 * 512


def draw(seed, step):
    out = os.path.join(work, "out-%d-%d" % (seed, step))
    for name, value in (("seed", seed), ("step", step)):
        np.save(os.path.join(work, "%s.npy" % name), np.array(value, np.int64))
    subprocess.run([exe, "--input", "seed=" + os.path.join(work, "seed.npy"),
                    "--input", "step=" + os.path.join(work, "step.npy"),
                    "--output-dir", out], check=True)
    u = np.load(os.path.join(out, "uniform.npy")).astype(np.float64).ravel()
    n = np.load(os.path.join(out, "normal.npy")).astype(np.float64).ravel()
    bits = np.load(os.path.join(out, "uniform_bf16.npy")).astype(np.uint32) << 16
    h = bits.view(np.float32).astype(np.float64).ravel()
    return u, n, h


failed = []


def within(what, observed, expected, sigma):
    ok = abs(observed - expected) <= 5 * sigma
    print("%-44s %.5f (expected %.5f +- %.5f)%s" %
          (what, observed, expected, 5 * sigma, "" if ok else "  FAIL"))
    if not ok:
        failed.append(what)


def fraction_below(samples, x, p):
    within("fraction below %.3f" % x, np.mean(samples < x), p, math.sqrt(p * (1 - p) / N))


def correlation(what, a, b):
    within("correlation, " + what, np.corrcoef(a, b)[0, 1], 0.0, 1 / math.sqrt(N))


u, n, h = draw(0, 1)
low, high = -1.0, 3.0
inside = bool(np.all((u >= low) & (u < high)))
print("uniform within [-1, 3): %s" % ("yes" if inside else "no  FAIL"))
if not inside:
    failed.append("range")
var_u = (high - low) ** 2 / 12
within("uniform mean", u.mean(), 1.0, math.sqrt(var_u / N))
# The variance of a sample variance of a uniform: (m4 - var^2) / N, with
# m4 = (high - low)^4 / 80.
within("uniform variance", u.var(), var_u, math.sqrt(((high - low) ** 4 / 80 - var_u ** 2) / N))
for q in (0.25, 0.5, 0.75):
    fraction_below(u, low + q * (high - low), q)

mean, scale = 2.0, 0.5
within("normal mean", n.mean(), mean, scale / math.sqrt(N))
within("normal variance", n.var(), scale ** 2, scale ** 2 * math.sqrt(2 / N))
for k in (-2, -1, 0, 1, 2):
    fraction_below(n, mean + k * scale, 0.5 * (1 + math.erf(k / math.sqrt(2))))

# Half-open in bf16 too: samples that round up to 1 take the largest bf16
# below it (1 - 2^-8), about 1 in 512 of them.
in_unit = bool(np.all((h >= 0) & (h < 1)))
print("bf16 uniform within [0, 1): %s" % ("yes" if in_unit else "no  FAIL"))
if not in_unit:
    failed.append("bf16 range")
within("bf16 uniform mean", h.mean(), 0.5, math.sqrt(1 / 12 / N) + 2 ** -9)

u2, n2, _ = draw(0, 2)
u3, n3, _ = draw(7, 1)
correlation("uniform, steps 1 and 2", u, u2)
correlation("uniform, seeds 0 and 7", u, u3)
correlation("normal, steps 1 and 2", n, n2)
correlation("normal, seeds 0 and 7", n, n3)
correlation("uniform, neighbours", u[:-1], u[1:])
correlation("normal, neighbours", n[:-1], n[1:])
correlation("uniform and normal", u, n)

again_u, again_n, again_h = draw(0, 1)
same = (np.array_equal(u, again_u) and np.array_equal(n, again_n)
        and np.array_equal(h, again_h))
print("same key, same values: %s" % ("yes" if same else "no"))
if not same:
    failed.append("same key")
print("FAIL: " + ", ".join(failed) if failed else "ok")
sys.exit(1 if failed else 0)
