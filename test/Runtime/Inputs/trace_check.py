"""Checks a trainer's --trace files against the compiled program and plan.

usage: trace_check.py PROGRAM.mlir PLAN.txt FIRST LAST RANK_FILE...

For each rank's file (in rank order): it is a Chrome trace of process id
= rank; it holds the spans "step FIRST" .. "step LAST" and no other step;
each step holds as many gemm spans as the program (the LLVM dialect module
of --emit=mlir) has calls of distrt_gemm, and as many kernel spans as it
has traced kernel calls; the collectives in flight in each
step carry the bytes the --explain plan lists (within its rounding) and the
mesh axes [0]; and some gemm runs while a collective is in flight (the
overlap dist-overlap-collectives placed). Prints one line per rank.
"""
import json
import re
import sys

program, plan, first, last = sys.argv[1:5]
files = sys.argv[5:]
first, last = int(first), int(last)
text = open(program).read()
gemms = len(re.findall(r"llvm\.call @distrt_gemm\(", text))
kernels = len(re.findall(r"llvm\.call @distrt_trace_kernel_end\(", text))
units = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
planned = sum(float(v) * units[u] for v, u in re.findall(
    r"^\s*all_reduce_start \S+ \(\d+ tensors?\)\s+([0-9.]+) (B|KiB|MiB|GiB)",
    open(plan).read(), re.M))
bad = 0
for rank, path in enumerate(files):
    events = json.load(open(path))["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    problems = []
    if {e["pid"] for e in events} != {rank}:
        problems.append("process ids %s" % sorted({e["pid"] for e in events}))
    steps = {int(e["name"].split()[1]): e for e in spans if e["name"].startswith("step ")}
    if sorted(steps) != list(range(first, last + 1)):
        problems.append("steps %s" % sorted(steps))
    inside = lambda e, s: s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-3
    flight = [e for e in spans if e["tid"] == 3]
    overlapped = 0
    for n, s in sorted(steps.items()):
        g = [e for e in spans if e["name"] == "gemm" and inside(e, s)]
        if len(g) != gemms:
            problems.append("step %d: %d gemms, the program calls %d" % (n, len(g), gemms))
        k = [e for e in spans if e["tid"] == 1 and e["name"] != "gemm" and
             not e["name"].startswith("step ") and inside(e, s)]
        if len(k) != kernels or not kernels:
            problems.append("step %d: %d kernel spans, the program calls %d" % (n, len(k), kernels))
        f = [e for e in flight if inside(e, s)]
        sent = sum(e["args"]["bytes"] for e in f)
        if abs(sent - planned) > 0.01 * planned or any(e["args"]["mesh_axes"] != [0] for e in f):
            problems.append("step %d: %d bytes in flight over %s, the plan %d" %
                            (n, sent, sorted({str(e["args"]["mesh_axes"]) for e in f}), planned))
        overlapped += sum(any(c["ts"] <= e["ts"] and e["ts"] + e["dur"] <= c["ts"] + c["dur"]
                              for c in f) for e in g)
    if not overlapped:
        problems.append("no gemm runs while a collective is in flight")
    bad += bool(problems)
    print("%s rank %d: steps %d-%d, %d gemms and %d kernels per step as the program calls, "
          "the plan's bytes in flight per step, %s gemms during collectives in flight%s" %
          ("FAILED" if problems else "ok", rank, first, last, gemms, kernels,
           "some" if overlapped else "no", (": " + "; ".join(problems)) if problems else ""))
sys.exit(1 if bad else 0)
