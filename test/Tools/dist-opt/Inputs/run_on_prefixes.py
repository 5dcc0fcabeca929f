"""Runs a tool on prefixes of a file and fails if any run crashes or hangs.

usage: run_on_prefixes.py TOOL FILE STEP
Runs TOOL on FILE cut after every STEP bytes (and on each single-byte
corruption at those offsets); each run must exit with 0 or 1 within 20 s.
"""
import os
import subprocess
import sys
import tempfile

tool, path, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()
variants = []
for cut in range(0, len(data), step):
    variants.append(("prefix %d" % cut, data[:cut]))
    flipped = bytearray(data)
    flipped[cut] ^= 0x5A
    variants.append(("byte %d flipped" % cut, bytes(flipped)))

failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, content in variants:
        case = os.path.join(tmp, "case" + os.path.splitext(path)[1])
        with open(case, "wb") as f:
            f.write(content)
        try:
            rc = subprocess.run([tool, case, "-o", os.devnull],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=20).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        if rc not in (0, 1):
            failures += 1
            print("%s: %s: exit %s" % (path, name, rc))
print("%d runs, %d crashed or hung" % (len(variants), failures))
sys.exit(1 if failures else 0)
