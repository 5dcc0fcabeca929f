"""Compares the .npy files of two output folders: compare_npy.py A B TOL

Exits 1 when a file is missing in B, a shape differs, or the largest
|a - b| / max(|b|) of a tensor is above TOL.
"""
import os
import sys

import numpy as np

a_dir, b_dir, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
names = sorted(n for n in os.listdir(a_dir) if n.endswith(".npy"))
if not names:
    print("no outputs in", a_dir)
    sys.exit(1)
bad = 0
for name in names:
    a = np.load(os.path.join(a_dir, name)).astype(np.float64)
    b = np.load(os.path.join(b_dir, name)).astype(np.float64)
    if a.shape != b.shape:
        print(name, "shapes differ", a.shape, b.shape)
        bad += 1
        continue
    scale = max(np.max(np.abs(b)), 1e-30) if b.size else 1.0
    err = np.max(np.abs(a - b)) / scale if a.size else 0.0
    if not err <= tol:
        print(name, "relative difference %.3g" % err)
        bad += 1
print("%d outputs, %d differ" % (len(names), bad))
sys.exit(1 if bad else 0)
