"""Checks distrt's .npy reader and writer against numpy, both directions.

usage: npy_roundtrip.py DISTRT_NPY WORKDIR

numpy writes arrays of every supported dtype and several shapes (0-d, empty,
1-D, 4-D, format 2.0); distrt-npy must report numpy's dtype and shape, and
the copy it writes must load in numpy bit for bit. Prints one line per case.
"""
import os
import subprocess
import sys

import numpy as np

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(0)
cases = {
    "f32_2x3": rng.standard_normal((2, 3)).astype(np.float32),
    "f64_scalar": np.array(3.25),
    "f16_7": rng.standard_normal(7).astype(np.float16),
    "i64_4d": rng.integers(-2**62, 2**62, (2, 1, 3, 2), dtype=np.int64),
    "i32_empty": np.zeros((0, 5), np.int32),
    "i16_5": np.arange(-2, 3, dtype=np.int16),
    "i8_3": np.array([-128, 0, 127], np.int8),
    "u64_2": np.array([0, 2**64 - 1], np.uint64),
    "u32_2": np.array([1, 2**32 - 1], np.uint32),
    "u16_2": np.array([1, 65535], np.uint16),
    "u8_4": np.array([0, 1, 200, 255], np.uint8),
    "bool_2x2": np.array([[True, False], [False, True]]),
}
failures = 0
for name, array in cases.items():
    src = os.path.join(work, name + ".npy")
    dst = os.path.join(work, name + ".copy.npy")
    np.save(src, array)
    run = subprocess.run([tool, src, dst], capture_output=True, text=True)
    expected = "%s (%s)" % (array.dtype.name, ", ".join(str(d) for d in array.shape))
    got = run.stdout.strip()
    copy = np.load(dst) if run.returncode == 0 else None
    ok = (run.returncode == 0 and got == expected and copy.dtype == array.dtype
          and copy.shape == array.shape and copy.tobytes() == array.tobytes())
    failures += not ok
    print("%s %s: %s" % ("ok" if ok else "FAIL", name, got or run.stderr.strip()))

# Format 2.0 (4-byte header length), as numpy writes for huge headers.
src = os.path.join(work, "v2.npy")
with open(src, "wb") as f:
    np.lib.format.write_array(f, np.arange(6, dtype=np.float32).reshape(2, 3),
                              version=(2, 0))
run = subprocess.run([tool, src], capture_output=True, text=True)
ok = run.returncode == 0 and run.stdout.strip() == "float32 (2, 3)"
failures += not ok
print("%s v2: %s" % ("ok" if ok else "FAIL", run.stdout.strip() or run.stderr.strip()))
print("%d failures" % failures)
sys.exit(1 if failures else 0)
