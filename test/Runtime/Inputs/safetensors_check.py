"""Checks distrt's safetensors reader and writer against safetensors_ref.py.

usage: safetensors_check.py DISTRT_SAFETENSORS WORKDIR

Files the reference writes (every dtype, 0-d, empty and 4-D tensors, names
with escapes, non-ASCII and slashes, raw UTF-8 or \\u escapes, padded or not,
data stored out of header order) must list with the reference's names,
dtypes and shapes, unpack to .npy files numpy reads back bit for bit, and
copy to a file the reference reader accepts with the same tensors and
metadata. Files distrt packs from .npy files must pass the reference reader
too. Prints one line per check and the number of failures.
"""
import os
import subprocess
import sys

import numpy as np

import safetensors_ref as ref

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(0)
failures = 0


def report(ok, what, detail=""):
    global failures
    failures += not ok
    print("%s %s%s" % ("ok" if ok else "FAIL", what, (": " + detail) if detail and not ok else ""))


def run(*args):
    return subprocess.run([tool] + list(args), capture_output=True, text=True)


def npy_name(name):
    return name.replace("/", "_") + ".npy"


arrays = {
    "model.layers.0/weight": rng.standard_normal((3, 4)).astype(np.float32),
    "f64 scalar": np.array(-2.5),
    "f16": rng.standard_normal(7).astype(np.float16),
    "i64 4-D": rng.integers(-2**62, 2**62, (2, 1, 3, 2), dtype=np.int64),
    "i32 empty": np.zeros((0, 5), np.int32),
    "i16": np.arange(-2, 3, dtype=np.int16),
    "i8": np.array([-128, 0, 127], np.int8),
    "u64": np.array([0, 2**64 - 1], np.uint64),
    "u32": np.array([1, 2**32 - 1], np.uint32),
    "u16": np.array([1, 65535], np.uint16),
    "u8": np.array([0, 1, 200, 255], np.uint8),
    "bool": np.array([[True, False], [False, True]]),
    "quote\" back\\slash tab\t": np.ones(2, np.float32),
    "\u00fcn\u00efc\u00f6de \u4e2d \U0001f642": np.arange(3, dtype=np.float64),
}
metadata = {"format": "pt", "n\u00f6te": "value with \"quotes\", \\ and\nnewline"}
tensors = [(name, ref.Tensor.of(a)) for name, a in arrays.items()]


def check_file(case, path, tensors, metadata, unpack=True):
    listing = run("list", path)
    expected = ["%s %s [%s]" % (name, ref.DISTRT_NAME[t.dtype], ", ".join(map(str, t.shape)))
                for name, t in tensors]
    expected += ["# metadata: %s = %s" % kv for kv in (metadata or {}).items()]
    expected = "".join(line + "\n" for line in expected)
    report(listing.returncode == 0 and listing.stdout == expected, case + " list",
           listing.stderr or listing.stdout)
    if unpack:
        out = os.path.join(work, case + ".unpacked")
        result = run("unpack", path, out)
        same = result.returncode == 0
        for name, tensor in tensors if same else []:
            array = np.load(os.path.join(out, npy_name(name)))
            same = same and ref.Tensor.of(array) == tensor
        report(same and sorted(os.listdir(out)) == sorted(npy_name(n) for n, _ in tensors),
               case + " unpack", result.stderr)
    copy = os.path.join(work, case + ".copy.safetensors")
    result = run("copy", path, copy)
    try:
        got_tensors, got_metadata, header = ref.read(copy) if result.returncode == 0 else (None, None, 0)
        ok = (got_tensors == tensors and got_metadata == metadata and header % 8 == 0)
        detail = result.stderr or "read back %s %s" % (got_tensors, got_metadata)
    except ValueError as error:
        ok, detail = False, "reference reader: %s" % error
    report(ok, case + " copy", detail)


# \u escapes (surrogate pairs for U+1F642), space padding, header order.
path = os.path.join(work, "escaped.safetensors")
ref.write(path, tensors, metadata)
check_file("escaped", path, tensors, metadata)

# Raw UTF-8, no padding, the data area in reverse header order.
path = os.path.join(work, "raw.safetensors")
ref.write(path, tensors, metadata, ensure_ascii=False, pad=False,
          data_order=[name for name, _ in reversed(tensors)])
check_file("raw", path, tensors, metadata)

# No tensors and no metadata; only metadata.
path = os.path.join(work, "empty.safetensors")
ref.write(path, [], None)
check_file("empty", path, [], None)
path = os.path.join(work, "metadata-only.safetensors")
ref.write(path, [], {"k": "v"})
check_file("metadata-only", path, [], {"k": "v"})

# bfloat16: no .npy type, so unpack refuses it; list and copy keep it.
bf16 = ref.Tensor("BF16", (2, 2), np.array([0x3f80, 0xbf00, 0x0000, 0x7f80], "<u2").tobytes())
path = os.path.join(work, "bf16.safetensors")
ref.write(path, [("b", bf16), ("f", ref.Tensor.of(np.ones(3, np.float32)))], None)
check_file("bf16", path, [("b", bf16), ("f", ref.Tensor.of(np.ones(3, np.float32)))], None,
           unpack=False)
result = run("unpack", path, os.path.join(work, "bf16.unpacked"))
print("bf16 unpack: exit %d: %s" % (result.returncode, result.stderr.strip()))

# distrt packs .npy files; the reference reader must accept the result.
args = []
for i, (name, array) in enumerate(arrays.items()):
    npy = os.path.join(work, "pack-%d.npy" % i)
    np.save(npy, array)
    args.append("%s=%s" % (name, npy))
packed = os.path.join(work, "packed.safetensors")
result = run("pack", packed, *args, "--metadata", "format=pt", "--metadata=a=b=c")
try:
    got_tensors, got_metadata, header = ref.read(packed) if result.returncode == 0 else (None, None, 0)
    ok = (got_tensors == tensors and got_metadata == {"format": "pt", "a": "b=c"}
          and header % 8 == 0)
    detail = result.stderr or "read back %s %s" % (got_tensors, got_metadata)
except ValueError as error:
    ok, detail = False, "reference reader: %s" % error
report(ok, "pack", detail)
leftovers = [f for f in os.listdir(work) if ".tmp" in f]
report(not leftovers, "no temporary files left", " ".join(leftovers))

print("%d failures" % failures)
sys.exit(1 if failures else 0)
