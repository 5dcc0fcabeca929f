"""Writes random weights for a dist-compile executable, from the parameter
list its `--help` prints, so that a big model's weights need not travel
(bench/gpu-train.sh: gpt2-small's 500 MB are made on the GPU machine).

usage: python3 random_safetensors.py EXE OUT.safetensors [--std 0.02] [--seed 0]

Every float32 parameter gets normal(0, std) values (running variances, if
any, ones); the file is safetensors written by hand: an 8-byte little-endian
header length, the JSON header (padded with spaces to 8 bytes), the data.
Only numpy is needed.
"""
import argparse
import json
import re
import struct
import subprocess

import numpy as np

DTYPES = {"float32": ("F32", np.float32), "float64": ("F64", np.float64),
          "float16": ("F16", np.float16), "int64": ("I64", np.int64),
          "int32": ("I32", np.int32)}


def params_from_help(exe):
    text = subprocess.run([exe, "--help"], check=True, capture_output=True, text=True).stdout
    out = []
    for line in text.splitlines():
        m = re.match(r"^  param\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if m:
            dtype, shape, name = m.groups()
            dims = [] if shape == "scalar" else [int(d) for d in shape.split("x")]
            out.append((name, dtype, dims))
    if not out:
        raise SystemExit("no 'param' lines in `%s --help`" % exe)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("out")
    ap.add_argument("--std", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    params = params_from_help(args.exe)
    header, offset = {}, 0
    for name, dtype, dims in params:
        if dtype not in DTYPES:
            raise SystemExit("parameter %s: dtype %s not supported" % (name, dtype))
        code, np_type = DTYPES[dtype]
        size = int(np.prod(dims, dtype=np.int64)) * np.dtype(np_type).itemsize
        header[name] = {"dtype": code, "shape": dims, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(args.seed)
    with open(args.out, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, dtype, dims in params:
            np_type = DTYPES[dtype][1]
            if name.endswith("running_var"):
                value = np.ones(dims, np_type)
            elif np.issubdtype(np_type, np.floating):
                value = (rng.standard_normal(dims, dtype=np.float32) * np.float32(args.std)).astype(np_type)
            else:
                value = np.zeros(dims, np_type)
            f.write(np.ascontiguousarray(value).tobytes())
    n = sum(int(np.prod(d, dtype=np.int64)) for _, _, d in params)
    print("wrote %s: %d tensors, %d values, %.1f MiB" % (args.out, len(params), n, (offset + len(text) + 8) / 2**20))


if __name__ == "__main__":
    main()
