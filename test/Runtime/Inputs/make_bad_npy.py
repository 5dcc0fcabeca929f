"""Writes .npy files distrt must reject, one per way: usage make_bad_npy.py OUTDIR"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(np.ones((2, 3), np.float32)))
np.save(os.path.join(out, "big-endian.npy"), np.ones(3, ">f4"))
np.save(os.path.join(out, "complex.npy"), np.ones(3, np.complex64))
good = os.path.join(out, "good.npy")
np.save(good, np.ones((4, 4), np.float32))
data = open(good, "rb").read()
open(os.path.join(out, "truncated.npy"), "wb").write(data[:-5])
open(os.path.join(out, "extra.npy"), "wb").write(data + b"\0\0\0\0")
open(os.path.join(out, "header-cut.npy"), "wb").write(data[:30])
open(os.path.join(out, "not-npy.npy"), "w").write("hello\n")
# A header whose shape multiplies past 2^64 elements, with 16 bytes of data.
huge = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 16384), }"
huge += b" " * ((64 - (10 + len(huge) + 1) % 64) % 64) + b"\n"
open(os.path.join(out, "huge-shape.npy"), "wb").write(
    b"\x93NUMPY\x01\x00" + len(huge).to_bytes(2, "little") + huge + b"\0" * 16)
