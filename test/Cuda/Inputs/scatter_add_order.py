"""Inputs and check for scatter-add-order.test.

scatter_add_order.py make DIR: writes dest.npy, ids.npy (every third id is
7, the others spread over [-5000, 5000)), bad.npy (one id 5000) and upd.npy
(magnitudes from e-8 to e8, so that the order of a row's sums shows).
scatter_add_order.py check DIR OUT.npy: the output must equal, bit for bit,
the updates added to dest one token after another (the CPU's order), and
that order must matter for these inputs (the reverse order differs).
"""
import os
import sys

import numpy as np

mode, folder = sys.argv[1], sys.argv[2]
if mode == "make":
    r = np.random.default_rng(0)
    np.save(os.path.join(folder, "dest.npy"),
            r.standard_normal((5000, 96)).astype(np.float32))
    ids = r.integers(-5000, 5000, size=(4, 2000))
    ids[:, ::3] = 7
    np.save(os.path.join(folder, "ids.npy"), ids.astype(np.int64))
    ids[2, 5] = 5000
    np.save(os.path.join(folder, "bad.npy"), ids.astype(np.int64))
    upd = r.standard_normal((4, 2000, 96)) * np.exp(r.uniform(-8, 8, (4, 2000, 96)))
    np.save(os.path.join(folder, "upd.npy"), upd.astype(np.float32))
    sys.exit(0)

out = np.load(sys.argv[3])
ids = np.load(os.path.join(folder, "ids.npy")).reshape(-1)
upd = np.load(os.path.join(folder, "upd.npy")).reshape(len(ids), -1)
forward = np.load(os.path.join(folder, "dest.npy"))
backward = forward.copy()
for t in range(len(ids)):
    forward[ids[t]] += upd[t]
for t in reversed(range(len(ids))):
    backward[ids[t]] += upd[t]
if np.array_equal(forward, backward):
    print("error: the order of the sums does not show with these inputs")
    sys.exit(1)
if not np.array_equal(out, forward):
    print("differs from the tokens' order: %d elements, largest %.3g"
          % (np.sum(out != forward), np.max(np.abs(out - forward))))
    sys.exit(1)
print("equal to the tokens' order, bit for bit")
