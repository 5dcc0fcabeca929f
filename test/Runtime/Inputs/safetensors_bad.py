"""Writes malformed safetensors files and runs `distrt-safetensors list` on each.

usage: safetensors_bad.py DISTRT_SAFETENSORS OUTDIR

Prints `CASE: exit N: <stderr>` per file, in the order below, for FileCheck.
"""
import json
import os
import struct
import subprocess
import sys

import safetensors_ref as ref

tool, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def raw(header, data=b"", length=None):
    """A file with `header` (bytes or text) as its header verbatim."""
    if isinstance(header, str):
        header = header.encode("utf-8")
    n = len(header) if length is None else length
    return struct.pack("<Q", n) + header + data


def entry(dtype="F32", shape=(2, 3), offsets=(0, 24)):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


def file(header, data=b"\0" * 24):
    return raw(json.dumps(header), data)


good = os.path.join(out, "good.safetensors")
ref.write(good, [("a", ref.Tensor("F32", (2, 3), b"\1" * 24))], {"k": "v"})
good_bytes = open(good, "rb").read()

cases = [
    ("empty", b""),
    ("short", b"\x10\0\0\0\0"),
    ("header-too-large", raw("{}", length=1 << 40)),
    ("header-past-end", raw("{}", length=1000)),
    ("header-cut", good_bytes[:20]),
    ("bad-json", raw('{"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24],}}', b"\0" * 24)),
    ("trailing-text", raw('{} x')),
    ("not-an-object", raw('[1, 2]')),
    ("bad-escape", raw('{"a\\q": 1}')),
    ("lone-surrogate", raw('{"\\ud800": 1}')),
    ("bad-utf8", raw(b'{"a\xff": 1}')),
    ("leading-zero", raw('{"a": {"dtype": "F32", "shape": [02], "data_offsets": [0, 8]}}')),
    ("deep-nesting", raw('{"__metadata__": ' + "[" * 100 + "]" * 100 + "}")),
    ("bad-dtype", file({"a": entry(dtype="F31")})),
    ("fp8-dtype", file({"a": entry(dtype="F8_E4M3", shape=(24,))})),
    ("size-mismatch", file({"a": entry(offsets=(0, 20))})),
    ("huge-shape", file({"a": entry(shape=(1 << 62, 8))})),
    ("out-of-range", file({"a": entry(offsets=(0, 100))})),
    ("truncated-data", good_bytes[:-4]),
    ("reversed-offsets", file({"a": entry(shape=(0,), offsets=(8, 4))})),
    ("overlap", file({"a": entry(), "b": entry(offsets=(16, 40))}, b"\0" * 40)),
    ("duplicate-tensor", raw('{"a": %s, "a": %s}' % (json.dumps(entry()), json.dumps(entry())), b"\0" * 24)),
    ("missing-shape", file({"a": {"dtype": "F32", "data_offsets": [0, 24]}})),
    ("negative-dim", file({"a": entry(shape=(-1,))})),
    ("fractional-dim", file({"a": entry(shape=(1.5,))})),
    ("rank-9", file({"a": entry(shape=(1,) * 9, offsets=(0, 4))})),
    ("offsets-length", file({"a": entry(offsets=(0, 24, 48))})),
    ("not-an-entry", file({"a": 5})),
    ("metadata-number", file({"__metadata__": {"k": 1}, "a": entry()})),
    ("metadata-twice", raw('{"__metadata__": {}, "__metadata__": {}}')),
]
for name, content in cases:
    with open(os.path.join(out, name + ".safetensors"), "wb") as f:
        f.write(content)
paths = [(name, os.path.join(out, name + ".safetensors")) for name, _ in cases]
paths += [("directory", out), ("missing", os.path.join(out, "missing.safetensors"))]
for name, path in paths:
    result = subprocess.run([tool, "list", path], capture_output=True, text=True)
    print("%s: exit %d: %s" % (name, result.returncode, result.stderr.strip()))
