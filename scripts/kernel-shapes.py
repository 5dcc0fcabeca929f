#!/usr/bin/env python3
"""How the kernels of a CUDA step use the GPU, read from the IR.

    scripts/kernel-shapes.py STEP.mlir [--top N] [--check]
        [--min-threads T] [--max-per-thread E] [--min-elements M]
        [--access] [--tsv FILE]

STEP.mlir is the host code after the kernels were outlined (what
`dist-compile --target=cuda --emit=mlir` writes with a --pipeline that
stops after dist-dedupe-gpu-kernels; scripts/kernel-shapes.sh makes it).
For every kernel: its launches, threads (grid x block), the bytes of the
buffers it is passed (an upper bound of what it moves) and the elements of
its largest buffer per thread. A kernel that leaves most of a GPU idle
shows up as many elements per thread (one block folding a whole gradient:
38.6M per 256 threads). With --check the script exits 1 when a kernel
runs fewer than T threads (default 65536, a quarter of what an H100 keeps
resident) with more than E elements of its largest buffer per thread
(default 16) and at least M elements in that buffer (default 262144: a
smaller one is cheap anyway), listing them: such a kernel could use more of
the GPU. (A kernel whose threads run at most E loads and stores each, by
kernel_access.py's count, is not listed: a gather reading a few elements
of a large buffer.)

With --access, each kernel's memory accesses are evaluated for the lanes of
a warp (scripts/kernel_access.py): `sector MB` is what its launches ask of
the memory system in 32-byte sectors, `used` the share of those bytes the
lanes use (100%: coalesced; 12.5%: 32 lanes reading down a float column),
and the table is ordered by sector bytes.

--tsv FILE writes every kernel (name, launches, min threads, bytes passed,
sector bytes, bytes used; the byte columns over all its launches, the
last two 0 without --access) for the GPU benchmark, which divides them by
each kernel's measured time (bench/gpu_train_torch.py kernels-trace).
"""
import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_access  # noqa: E402

ELEMENT_BYTES = {"f64": 8, "i64": 8, "index": 8, "f32": 4, "i32": 4,
                 "bf16": 2, "f16": 2, "i16": 2, "i8": 1, "i1": 1}
CONSTANT = re.compile(r"%c(\d+)(?:_\d+)?$")
LAUNCH = re.compile(r"gpu\.launch_func\s+@[\w$.]+::@([\w$.]+) blocks in "
                    r"\(([^)]*)\) threads in \(([^)]*)\)\s+args\((.*)\)")


def index_constant(token):
    m = CONSTANT.match(token.strip())
    return int(m.group(1)) if m else None


def elements_and_bytes(memref):
    shape = memref.split(",")[0].split("x")
    n = 1
    for d in shape[:-1]:
        if d == "?":
            return 0, 0
        n *= int(d)
    return n, n * ELEMENT_BYTES.get(shape[-1].strip(), 4)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mlir")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--check", action="store_true")
    p.add_argument("--min-threads", type=int, default=65536)
    p.add_argument("--max-per-thread", type=float, default=16)
    p.add_argument("--min-elements", type=int, default=262144)
    p.add_argument("--access", action="store_true")
    p.add_argument("--tsv")
    a = p.parse_args()
    kernels = collections.OrderedDict()
    unresolved = 0
    with open(a.mlir) as f:
        for line in f:
            m = LAUNCH.search(line)
            if not m:
                continue
            sizes = [index_constant(t) for t in
                     m.group(2).split(",") + m.group(3).split(",")]
            if None in sizes:
                unresolved += 1
                continue
            threads = 1
            for s in sizes:
                threads *= s
            buffers = [elements_and_bytes(t) for t in
                       re.findall(r": memref<([^>]*)>", m.group(4))]
            largest = max((e for e, _ in buffers), default=0)
            k = kernels.setdefault(m.group(1), {"launches": 0, "bytes": 0,
                                                "threads": threads,
                                                "per_thread": 0.0,
                                                "idle": None})
            k["launches"] += 1
            k["bytes"] += sum(b for _, b in buffers)
            k["threads"] = min(k["threads"], threads)
            k["per_thread"] = max(k["per_thread"], largest / threads)
            # --check judges each launch: its own threads and buffers.
            if (threads < a.min_threads and
                    largest / threads > a.max_per_thread and
                    largest >= a.min_elements and
                    (k["idle"] is None or
                     largest / threads > k["idle"][1])):
                k["idle"] = (threads, largest / threads)
    if not kernels:
        print("error: no gpu.launch_func with constant sizes in", a.mlir)
        return 1
    total = sum(k["bytes"] for k in kernels.values())
    launches = sum(k["launches"] for k in kernels.values())
    print(f"{launches} launches of {len(kernels)} kernels, buffers passed "
          f"{total / 1e9:.2f} GB ({total} bytes)" +
          (f" ({unresolved} launches with sizes "
           "not constant, left out)" if unresolved else ""))
    access = {}
    if a.access:
        funcs = kernel_access.analyze(a.mlir)
        for name, k in kernels.items():
            if name in funcs:
                sectors, used, _ = funcs[name].summary()
                access[name] = (sectors * k["launches"], used * k["launches"])
        sectors = sum(s for s, _ in access.values())
        used = sum(u for _, u in access.values())
        print(f"sector traffic {sectors / 1e9:.2f} GB, of which lanes use "
              f"{used / 1e9:.2f} GB ({100 * used / max(sectors, 1):.1f}%)")
    if a.tsv:
        # Every kernel, for bench/gpu_train_torch.py kernels-trace --bytes:
        # the bytes of all its launches in a step.
        with open(a.tsv, "w") as f:
            f.write("kernel\tlaunches\tmin_threads\tbytes_passed\t"
                    "sector_bytes\tused_bytes\n")
            for name, k in kernels.items():
                sectors, used = access.get(name, (0, 0))
                f.write(f"{name}\t{k['launches']}\t{k['threads']}\t"
                        f"{k['bytes']}\t{round(sectors)}\t{round(used)}\n")
    print((f"{'MB passed':>10} " +
           (f"{'sector MB':>10} {'used':>6} " if a.access else "") +
           f"{'launches':>8} {'min threads':>11} {'elem/thread':>11}  kernel"))
    if a.access:
        rows = sorted(kernels.items(),
                      key=lambda kv: -access.get(kv[0], (0, 0))[0])
    else:
        rows = sorted(kernels.items(), key=lambda kv: -kv[1]["bytes"])
    for name, k in rows[:a.top]:
        columns = f"{k['bytes'] / 1e6:10.1f} "
        if a.access:
            sectors, used = access.get(name, (0, 0))
            columns += (f"{sectors / 1e6:10.1f} "
                        f"{100 * used / max(sectors, 1):5.1f}% ")
        print(columns + f"{k['launches']:8d} "
              f"{k['threads']:11d} {k['per_thread']:11.1f}  {name}")
    if not a.check:
        return 0
    # A kernel that reads a few elements of a large buffer (a gather: the
    # logit at each label) is judged by the loads and stores each thread
    # runs (kernel_access.py: loops' trip counts included) instead of the
    # buffer's size.
    if any(k["idle"] for k in kernels.values()):
        funcs = kernel_access.analyze(a.mlir)
        for name, k in kernels.items():
            if k["idle"] and name in funcs:
                accesses = sum(x[3] for x in funcs[name].accesses)
                if accesses <= a.max_per_thread:
                    k["idle"] = None
    over = [(n, k["idle"]) for n, k in kernels.items() if k["idle"]]
    for name, (threads, each) in sorted(over, key=lambda kv: -kv[1][1]):
        print(f"too few threads: {name}: {threads} threads, "
              f"{each:.0f} elements of its largest buffer each")
    print(f"{len(over)} kernels with fewer than {a.min_threads} threads and "
          f"more than {a.max_per_thread:g} elements per thread")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
