"""Comparison helpers of the GPU check folder (scripts/gpu-check.sh builds it,
OUTDIR/run.sh calls this as OUTDIR/tools/check.py). Plain Python 3 + numpy.

Every check prints what it compared and appends one row
`test<TAB>model<TAB>PASS|FAIL<TAB>worst<TAB>note` to $GPU_CHECK_ROWS (the
summary table of run.sh); its exit status is 0 on PASS, 1 on FAIL.

  check.py inputs HELP_TXT OUTDIR INT_RANGE SEED      (build time: input .npy files)
  check.py fwd TEST MODEL REF_DIR GOT_DIR TOL         outputs within TOL (relative)
  check.py same-npy TEST MODEL DIR_A DIR_B            outputs bitwise identical
  check.py log TEST MODEL REF.jsonl GOT.jsonl TOL [FIRST LAST]
  check.py log-exact TEST MODEL A.jsonl B.jsonl [FIRST LAST]
  check.py ckpt-same TEST MODEL CKPT_A CKPT_B         manifests' CRC-32C equal
  check.py ckpt-layout TEST MODEL CKPT_A CKPT_B       same files, tensors, dtypes, shapes
  check.py kill TEST MODEL LOG MIN_STEP -- CMD...     run CMD, SIGKILL it once LOG has MIN_STEP
  check.py newest-step CKPT_DIR                       prints the newest step-N number
  check.py mem TEST MODEL LOG.jsonl STDOUT.txt A B    peak memory at step B equals step A
  check.py mem-estimate TEST MODEL ESTIMATE.txt LOG.jsonl TOL
                                                      measured device peak within TOL of
                                                      dist-compile --explain's prediction
  check.py trace TEST MODEL TRACE.json                the GPU's spans of a --trace: kernels and
                                                      products inside their step, busy <= step
  check.py row TEST MODEL STATUS WORST NOTE...        append a row as is
  check.py table ROWS                                 print the summary table
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time

TINY = 1e-30


def row(test, model, ok, worst="", note=""):
    status = ok if isinstance(ok, str) else ("PASS" if ok else "FAIL")
    line = "\t".join([test, model, status, worst, note.replace("\t", " ")])
    path = os.environ.get("GPU_CHECK_ROWS")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")
    print("  -> %s %s: %s %s %s" % (test, model, status, worst, note))
    return 0 if status in ("PASS", "SKIP", "INFO") else 1


def fmt(x):
    return "%.3g" % x


def rel_err(a, b):
    """max |a - b| / max(max |b|, tiny), in float64."""
    import numpy as np
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        same = np.array_equal(a, b, equal_nan=True)
        return 0.0 if same else float("inf")
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), TINY))


# ---------------------------------------------------------------- inputs
def parse_help(text):
    """(role, dtype, shape, name) of every tensor line of `EXE --help`."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^  (input|param|state|output|step|seed|hparam)\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if not m:
            continue
        role, dtype, shape, name = m.groups()
        name = re.sub(r" \(range .*\)$", "", name)
        dims = [] if shape == "scalar" else [int(d) for d in shape.split("x")]
        out.append((role, dtype, dims, name))
    return out


def cmd_inputs(help_txt, outdir, int_range, seed):
    import numpy as np
    rng = np.random.default_rng(int(seed))
    os.makedirs(outdir, exist_ok=True)
    names = []
    for role, dtype, dims, name in parse_help(open(help_txt).read()):
        if role != "input":
            continue
        if dtype.startswith("float"):
            value = rng.uniform(-1.0, 1.0, size=dims).astype(dtype)
        else:
            value = rng.integers(0, int(int_range), size=dims).astype(dtype)
        np.save(os.path.join(outdir, name.replace("/", "_") + ".npy"), value)
        names.append(name)
    print(" ".join(names))
    return 0


# ---------------------------------------------------------------- forward
def npy_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".npy"))


def cmd_fwd(test, model, ref_dir, got_dir, tol):
    import numpy as np
    tol = float(tol)
    ref, got = npy_files(ref_dir), npy_files(got_dir) if os.path.isdir(got_dir) else []
    if ref != got:
        return row(test, model, False, "", "outputs differ: ref %s, got %s" % (ref, got))
    worst, worst_name = 0.0, ""
    for f in ref:
        a, b = np.load(os.path.join(got_dir, f)), np.load(os.path.join(ref_dir, f))
        if a.dtype != b.dtype or a.shape != b.shape:
            return row(test, model, False, "", "%s: got %s %s, ref %s %s" % (
                f, a.dtype, a.shape, b.dtype, b.shape))
        e = rel_err(a, b)
        print("    %-24s %-10s %-14s rel err %s" % (f[:-4], a.dtype, "x".join(map(str, a.shape)) or "scalar", fmt(e)))
        if e >= worst:
            worst, worst_name = e, f[:-4]
    return row(test, model, worst <= tol, fmt(worst), "worst: %s (tol %g)" % (worst_name, tol))


def cmd_same_npy(test, model, a_dir, b_dir):
    fa, fb = npy_files(a_dir), npy_files(b_dir)
    if fa != fb or not fa:
        return row(test, model, False, "", "outputs differ: %s vs %s" % (fa, fb))
    diff = [f for f in fa if open(os.path.join(a_dir, f), "rb").read()
            != open(os.path.join(b_dir, f), "rb").read()]
    return row(test, model, not diff, "0" if not diff else "",
               "%d outputs bitwise identical" % len(fa) if not diff else "differ: %s" % diff)


# ---------------------------------------------------------------- logs
def read_log(path):
    """step -> dict of the JSON line, numbers kept as their text."""
    steps = {}
    if not os.path.exists(path):
        return steps
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        try:
            d = json.loads(line, parse_float=str, parse_int=str)
        except ValueError:
            continue  # a line cut by a kill
        steps[int(d["step"])] = d
    return steps


def step_range(ref, got, first, last):
    first = int(first) if first is not None else 1
    last = int(last) if last is not None else max(ref) if ref else 0
    return list(range(first, last + 1))


def cmd_log(test, model, ref_path, got_path, tol, first=None, last=None):
    tol = float(tol)
    ref, got = read_log(ref_path), read_log(got_path)
    steps = step_range(ref, got, first, last)
    missing = [s for s in steps if s not in ref or s not in got]
    if missing or not steps:
        return row(test, model, False, "", "steps missing: %s" % missing[:5])
    worst = {"loss": 0.0, "grad_norm": 0.0}
    bad_lr = []
    for s in steps:
        for k in worst:
            e = rel_err(float(got[s][k]), float(ref[s][k]))
            worst[k] = max(worst[k], e)
        if rel_err(float(got[s]["lr"]), float(ref[s]["lr"])) > tol:
            bad_lr.append(s)
    print("    steps %d..%d: loss rel err %s, grad_norm rel err %s; step %d loss %s (ref %s)" % (
        steps[0], steps[-1], fmt(worst["loss"]), fmt(worst["grad_norm"]), steps[-1],
        got[steps[-1]]["loss"], ref[steps[-1]]["loss"]))
    w = max(worst.values())
    note = "loss %s, grad_norm %s over steps %d..%d (tol %g)" % (
        fmt(worst["loss"]), fmt(worst["grad_norm"]), steps[0], steps[-1], tol)
    if bad_lr:
        note += "; lr differs at steps %s" % bad_lr[:5]
    return row(test, model, w <= tol and not bad_lr, fmt(w), note)


def cmd_log_exact(test, model, a_path, b_path, first=None, last=None):
    a, b = read_log(a_path), read_log(b_path)
    steps = step_range(b, a, first, last)
    missing = [s for s in steps if s not in a or s not in b]
    if missing or not steps:
        return row(test, model, False, "", "steps missing: %s" % missing[:5])
    diff = [(s, k, a[s][k], b[s][k]) for s in steps for k in ("loss", "grad_norm", "lr")
            if a[s][k] != b[s][k]]
    for d in diff[:5]:
        print("    step %d %s: %s vs %s" % d)
    return row(test, model, not diff, "0" if not diff else "",
               "steps %d..%d: loss, grad_norm, lr bitwise equal" % (steps[0], steps[-1])
               if not diff else "%d values differ (first at step %d)" % (len(diff), diff[0][0]))


# ---------------------------------------------------------------- checkpoints
def newest(ckpt):
    if os.path.basename(ckpt.rstrip("/")).startswith("step-"):
        return ckpt
    steps = sorted(d for d in os.listdir(ckpt) if re.match(r"^step-\d{8}$", d)) if os.path.isdir(ckpt) else []
    return os.path.join(ckpt, steps[-1]) if steps else None


def cmd_newest_step(ckpt):
    d = newest(ckpt)
    print(int(os.path.basename(d)[5:]) if d else 0)
    return 0


def manifest(d):
    return json.load(open(os.path.join(d, "manifest.json")))


def crcs(m):
    return {(k, t["name"]): t.get("crc32c") for k in ("params", "state") for t in m.get(k, [])}


def cmd_ckpt_same(test, model, a, b):
    da, db = newest(a), newest(b)
    if not da or not db:
        return row(test, model, False, "", "no checkpoint in %s or %s" % (a, b))
    ma, mb = manifest(da), manifest(db)
    ca, cb = crcs(ma), crcs(mb)
    diff = sorted(k[1] for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))
    same_step = ma.get("step") == mb.get("step")
    return row(test, model, not diff and same_step and bool(ca), "0" if not diff else "",
               "step %s: %d params+state tensors, CRC-32C equal" % (ma.get("step"), len(ca))
               if not diff and same_step else
               "step %s vs %s; %d tensors differ: %s" % (ma.get("step"), mb.get("step"), len(diff), diff[:3]))


def safetensors_header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
    meta = h.pop("__metadata__", {})
    return {k: (v["dtype"], tuple(v["shape"])) for k, v in h.items()}, meta


def cmd_ckpt_layout(test, model, a, b):
    da, db = newest(a), newest(b)
    if not da or not db:
        return row(test, model, False, "", "no checkpoint in %s or %s" % (a, b))
    fa, fb = sorted(os.listdir(da)), sorted(os.listdir(db))
    problems = []
    if fa != fb:
        problems.append("files %s vs %s" % (fa, fb))
    n = 0
    for f in sorted(set(fa) & set(fb)):
        if f.endswith(".safetensors"):
            ha, _ = safetensors_header(os.path.join(da, f))
            hb, _ = safetensors_header(os.path.join(db, f))
            n += len(ha)
            if ha != hb:
                only = sorted(set(ha) ^ set(hb))[:3]
                other = sorted(k for k in set(ha) & set(hb) if ha[k] != hb[k])[:3]
                problems.append("%s: names only on one side %s, dtype/shape differ %s" % (f, only, other))
    ma, mb = manifest(da), manifest(db)
    for k in ("params", "state", "inputs"):
        la = [(t["name"], t["dtype"], t["shape"]) for t in ma.get(k, [])]
        lb = [(t["name"], t["dtype"], t["shape"]) for t in mb.get(k, [])]
        if la != lb:
            problems.append("manifest %s lists differ" % k)
    if sorted(ma) != sorted(mb):
        problems.append("manifest keys %s vs %s" % (sorted(ma), sorted(mb)))
    for p in problems:
        print("    " + p)
    return row(test, model, not problems, "",
               "%s vs %s: same files %s, %d tensors with the same names, dtypes, shapes" % (
                   os.path.basename(da), os.path.basename(db), fa, n) if not problems else problems[0])


# ---------------------------------------------------------------- kill -9
def cmd_kill(test, model, log, min_step, cmd, timeout=300.0):
    """Starts CMD, polls LOG every millisecond and SIGKILLs CMD as soon as a
    step >= MIN_STEP is logged. Prints `killed after step N` (N: the last
    logged step). Fails when the process ended by itself."""
    min_step = int(min_step)
    out = open(log + ".stdout", "w")
    # A session of its own: the SIGKILL goes to the whole group (a `timeout`
    # wrapper and the trainer under it), so that no orphan goes on training.
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    start, last = time.time(), 0
    while p.poll() is None and time.time() - start < timeout:
        steps = read_log(log)
        last = max(steps) if steps else 0
        if last >= min_step:
            os.killpg(p.pid, signal.SIGKILL)
            break
        time.sleep(0.001)
    rc = p.wait() if p.poll() is None and time.time() - start < timeout else p.poll()
    if rc is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return row(test, model, False, "", "timed out before step %d" % min_step)
    try:
        os.killpg(p.pid, signal.SIGKILL)  # nothing of the group may survive
    except ProcessLookupError:
        pass
    if rc not in (-signal.SIGKILL, 128 + signal.SIGKILL):
        return row(test, model, False, "", "the run ended by itself (status %s) at step %d before the kill" % (rc, last))
    print("    killed (SIGKILL) after logged step %d" % last)
    return 0


# ---------------------------------------------------------------- memory
def cmd_mem(test, model, log, stdout, a, b):
    a, b = int(a), int(b)
    steps = read_log(log)
    if a in steps and b in steps and "gpu_mem_peak_mib" in steps[b]:
        va, vb = steps[a]["gpu_mem_peak_mib"], steps[b]["gpu_mem_peak_mib"]
        print("    gpu_mem_peak_mib: step %d %s, step %d %s" % (a, va, b, vb))
        return row(test, model, va == vb, "%s MiB" % vb, "gpu_mem_peak_mib step %d = %s, step %d = %s" % (a, va, b, vb))
    # A CPU twin (GPU_CHECK_FAKE_CUDA) logs no device memory: the step lines'
    # peak RSS instead, which may move by a page or two.
    peaks = {}
    if os.path.exists(stdout):
        for line in open(stdout):
            m = re.match(r"^step (\d+) \|.*\| peak mem ([0-9.]+) MiB", line)
            if m:
                peaks[int(m.group(1))] = float(m.group(2))
    if a in peaks and b in peaks:
        ok = abs(peaks[b] - peaks[a]) <= 1.0
        return row(test, model, ok, "%.1f MiB" % peaks[b],
                   "no gpu_mem_peak_mib (CPU twin): host peak RSS step %d = %.1f, step %d = %.1f MiB (tol 1 MiB)" % (
                       a, peaks[a], b, peaks[b]))
    return row(test, model, False, "", "steps %d and %d not both logged" % (a, b))


def cmd_mem_estimate(test, model, estimate, log, tol):
    """The largest gpu_mem_peak_mib of the run against the peak that
    `dist-compile --target=cuda --explain` predicted (its line "memory of
    @... (CUDA device memory): peak X MiB = ...", saved at build time)."""
    tol = float(tol)
    predicted = None
    if os.path.exists(estimate):
        for line in open(estimate):
            m = re.search(r"\(CUDA device memory\): peak ([0-9.]+) MiB", line)
            if m:
                predicted = float(m.group(1))
    if predicted is None:
        return row(test, model, False, "", "no prediction in %s" % estimate)
    peaks = [float(d["gpu_mem_peak_mib"]) for d in read_log(log).values()
             if "gpu_mem_peak_mib" in d]
    if not peaks:
        if os.environ.get("GPU_CHECK_FAKE_CUDA", "0") not in ("", "0"):
            return row(test, model, "SKIP", "", "CPU twin: no device memory to compare")
        return row(test, model, False, "", "no gpu_mem_peak_mib in %s" % log)
    measured = max(peaks)
    err = abs(measured - predicted) / predicted
    print("    device memory: measured peak %.3f MiB, predicted %.3f MiB" % (measured, predicted))
    return row(test, model, err <= tol, fmt(err),
               "measured %.3f MiB vs predicted %.3f MiB (bar %s)" % (measured, predicted, tol))


def cmd_trace(test, model, path):
    """A --trace of a CUDA trainer: the GPU compute stream's track has
    kernels and cuBLASLt products (named by their op), every GPU span lies
    inside its step's host span (50 us of slack for the clock's tie), and
    the stream's busy time is at most the step's."""
    if not os.path.exists(path):
        return row(test, model, False, "", "no trace written (%s)" % path)
    events = json.load(open(path))["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    if "GPU compute stream" not in tracks.values():
        if os.environ.get("GPU_CHECK_FAKE_CUDA", "0") not in ("", "0"):
            return row(test, model, "SKIP", "", "CPU twin: no GPU tracks")
        return row(test, model, False, "", "no GPU compute stream track")
    steps = [e for e in events if e["ph"] == "X" and e["name"].startswith("step ")]
    gpu = [e for e in events if e["ph"] == "X" and tracks.get(e["tid"], "").startswith("GPU")]
    kernels = [e for e in gpu if not e["name"].startswith("copy ") and e["name"] != "gemm"]
    gemms = [e for e in gpu if e["name"] == "gemm" and e["args"].get("op")]
    slack = 50.0
    outside = [e for e in gpu if not any(s["ts"] - slack <= e["ts"] and
                                         e["ts"] + e["dur"] <= s["ts"] + s["dur"] + slack
                                         for s in steps)]
    step_us = sum(s["dur"] for s in steps)
    busy = sum(e["dur"] for e in gpu if tracks[e["tid"]] == "GPU compute stream")
    print("    %d steps, %d kernels, %d products, busy %.3f of %.3f ms, %d spans outside a step" % (
        len(steps), len(kernels), len(gemms), busy / 1e3, step_us / 1e3, len(outside)))
    ok = steps and kernels and gemms and not outside and busy <= step_us * 1.001
    return row(test, model, bool(ok), "",
               "%d kernels, %d products, GPU busy %.2f of %.2f ms, %d spans outside their step" % (
                   len(kernels), len(gemms), busy / 1e3, step_us / 1e3, len(outside)))


# ---------------------------------------------------------------- table
def cmd_table(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path)] if os.path.exists(path) else []
    head = ["test", "model", "result", "worst rel err", "details"]
    w = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
    line = "  ".join(h.ljust(w[i]) for i, h in enumerate(head[:4])) + "  " + head[4]
    print(line)
    print("-" * min(len(line) + 40, 150))
    for r in rows:
        print("  ".join(r[i].ljust(w[i]) for i in range(4)) + "  " + r[4])
    failed = [r for r in rows if r[2] not in ("PASS", "SKIP", "INFO")]
    print("-" * min(len(line) + 40, 150))
    print("%d checks: %d passed, %d failed, %d for information" % (
        len(rows), sum(r[2] == "PASS" for r in rows), len(failed),
        sum(r[2] in ("SKIP", "INFO") for r in rows)))
    return 1 if failed or not rows else 0


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "kill":
        sep = args.index("--")
        return cmd_kill(*args[:sep], args[sep + 1:])
    if cmd == "row":
        return row(args[0], args[1], args[2], args[3], " ".join(args[4:]))
    commands = {"inputs": cmd_inputs, "fwd": cmd_fwd, "same-npy": cmd_same_npy,
             "log": cmd_log, "log-exact": cmd_log_exact, "ckpt-same": cmd_ckpt_same,
             "ckpt-layout": cmd_ckpt_layout, "newest-step": cmd_newest_step,
             "mem": cmd_mem, "mem-estimate": cmd_mem_estimate, "trace": cmd_trace,
             "table": cmd_table}
    try:
        return commands[cmd](*args)
    except Exception as e:  # a crash of a check is its failure, with a row
        import traceback
        traceback.print_exc()
        if cmd not in ("inputs", "newest-step", "table") and len(args) >= 2:
            return row(args[0], args[1], False, "", "check.py %s crashed: %s: %s" % (cmd, type(e).__name__, e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
