"""The PyTorch side of bench/gpu-train.sh, and its report.

  gpu_train_torch.py run CONFIG.json MODE OUT.json [--steps 20] [--warmup 3] [--profile K.md]
      MODE: eager-fp32 (TF32 off for matmul and cuDNN), eager-tf32,
      compile (torch.compile, fp32), eager-bf16 and compile-bf16 (the
      forward under torch.autocast(bfloat16): float32 weights, AdamW and
      gradients, bf16 products; TF32 off). One AdamW step of examples/onnx/models.py's
      GPT2 (zero_grad, forward + cross-entropy, backward, clip_grad_norm_,
      step) per iteration on fixed random tokens; each step timed between
      torch.cuda.synchronize() calls. Writes the median step time, tokens/s
      and torch.cuda.max_memory_allocated; --profile: the top 10 kernels of 2
      more steps (torch.profiler) as a markdown table.
  gpu_train_torch.py kernels-nsys KERN_SUM.csv STEPS OUT.md
      the top 10 kernels of an `nsys stats --report cuda_gpu_kern_sum` CSV.
  gpu_train_torch.py kernels-trace TRACE.json OUT.md [--bytes KERNELS.tsv] [--device NAME]
      the top 10 of our GPU work from the trainer's --trace; with --bytes
      (scripts/kernel-shapes.py --access --tsv of the same program) also the
      generated kernels by time with their bytes and the rate (GB/s, and %
      of the DRAM bandwidth of the GPU NAME).
  gpu_train_torch.py report CONFIG.json OURS.jsonl OURS_ALT.jsonl RESULT.json... --warmup W --out BENCH.md --command CMD
                     [--alt-name NAME --alt-arithmetic fp32|tf32|bf16]
      the markdown table (ours vs each baseline); OURS_ALT.jsonl, when it exists, is a second run of
      ours (--allow-tf32 for fp32, the --remat=none build for bf16), NAME its row.
"""
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))


def run(cfg_path, mode, out, steps=20, warmup=3, profile=None):
    import torch
    sys.path.insert(0, here)
    import models
    cfg = json.load(open(cfg_path))
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    result = {"mode": mode, "device": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu",
              "torch": torch.__version__}
    tf32 = mode == "eager-tf32"
    bf16 = mode.endswith("-bf16")
    if hasattr(torch.backends, "fp32_precision"):
        # PyTorch >= 2.9: the fp32_precision settings (the allow_tf32 flags
        # are deprecated there, and mixing the two APIs is an error).
        prec = "tf32" if tf32 else "ieee"
        for path in ("", ".cuda.matmul", ".cudnn", ".cudnn.conv", ".cudnn.rnn"):
            obj = torch.backends
            try:
                for part in path.split(".")[1:]:
                    obj = getattr(obj, part)
                obj.fp32_precision = prec
            except (AttributeError, RuntimeError, ValueError) as e:
                print("note: torch.backends%s.fp32_precision = %r: %s" % (path, prec, e))
        result["tf32"] = "fp32_precision=%s" % torch.backends.cuda.matmul.fp32_precision
    else:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        if hasattr(torch, "set_float32_matmul_precision"):
            torch.set_float32_matmul_precision("high" if tf32 else "highest")
        result["tf32"] = "allow_tf32=%s" % torch.backends.cuda.matmul.allow_tf32
    if bf16:
        result["tf32"] += ", autocast bf16"
    if mode.startswith("compile") and not hasattr(torch, "compile"):
        result["skipped"] = "torch %s has no torch.compile" % torch.__version__
        json.dump(result, open(out, "w"))
        print(result["skipped"])
        return 0
    torch.manual_seed(0)
    model = models.GPT2(cfg["vocab"], cfg["context"], cfg["width"], cfg["layers"], cfg["heads"]).to(dev)
    with torch.no_grad():  # the same distribution as ours (random_safetensors.py)
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]),
                            eps=cfg["eps"], weight_decay=cfg["weight_decay"])
    fwd = torch.compile(model) if mode.startswith("compile") else model
    b, t = cfg["batch"], cfg["seq"]
    idx = torch.randint(0, cfg["vocab"], (b, t), device=dev)
    targets = torch.randint(0, cfg["vocab"], (b, t), device=dev)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)

    def step():
        opt.zero_grad(set_to_none=True)
        if bf16:
            with torch.autocast(dev, dtype=torch.bfloat16):
                loss = fwd(idx, targets)[0]
        else:
            loss = fwd(idx, targets)[0]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
        opt.step()
        return loss

    if dev == "cuda":
        torch.cuda.reset_peak_memory_stats()
    times, losses = [], []
    for i in range(warmup + steps):
        sync()
        t0 = time.perf_counter()
        loss = step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(float(loss))
    med = statistics.median(times[warmup:])
    result.update({
        "steps": steps, "warmup": warmup, "ms": med, "ms_all": times,
        "first_steps_ms": times[:warmup], "tokens_per_s": b * t / med * 1e3,
        "loss_first": losses[0], "loss_last": losses[-1],
        "peak_mib": torch.cuda.max_memory_allocated() / 2**20 if dev == "cuda" else None,
        "reserved_mib": torch.cuda.max_memory_reserved() / 2**20 if dev == "cuda" else None,
    })
    print("%s (%s): %.2f ms/step (median of %d after %d warm-up: %s ms), %.0f tokens/s, peak %s MiB" % (
        mode, result["tf32"], med, steps, warmup, ", ".join("%.0f" % x for x in times[:warmup]),
        result["tokens_per_s"], "%.0f" % result["peak_mib"] if result["peak_mib"] else "n/a"))
    json.dump(result, open(out, "w"))
    if profile:
        from torch.profiler import ProfilerActivity, profile as prof_ctx
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
        with prof_ctx(activities=acts) as prof:
            for _ in range(2):
                step()
            sync()
        rows = []
        for e in prof.key_averages():
            dt = getattr(e, "device_type", None)
            is_dev = dt is not None and "CUDA" in str(dt)
            tm = getattr(e, "self_device_time_total", None)
            if tm is None:
                tm = getattr(e, "self_cuda_time_total", 0)
            if dev == "cpu":
                is_dev, tm = True, e.self_cpu_time_total
            if is_dev and tm > 0:
                rows.append((tm, e.count, e.key))
        rows.sort(reverse=True)
        total = sum(r[0] for r in rows) or 1
        with open(profile, "w") as f:
            f.write("Top 10 %s of PyTorch %s (torch.profiler, 2 steps; time per step):\n\n" % (
                "kernels" if dev == "cuda" else "CPU ops (no GPU)", mode))
            f.write("| # | kernel | ms/step | % | calls/step |\n|---|---|---|---|---|\n")
            for i, (tm, n, name) in enumerate(rows[:10]):
                f.write("| %d | `%s` | %.3f | %.1f | %g |\n" % (i + 1, name[:90], tm / 2e3, 100 * tm / total, n / 2))
            f.write("\nAll kernels: %.2f ms/step.\n" % (total / 2e3))
    return 0


def kernels_nsys(csv_path, steps, out):
    import csv
    rows = list(csv.DictReader(open(csv_path)))
    steps = float(steps)

    def col(r, *names):
        for n in names:
            for k in r:
                if k.strip().startswith(n):
                    return r[k]
        return ""
    data = []
    for r in rows:
        try:
            data.append((float(col(r, "Total Time")), float(col(r, "Instances") or 0), col(r, "Name"),
                         float(col(r, "Time (%)", "Time(%)") or 0)))
        except ValueError:
            continue
    data.sort(reverse=True)
    total = sum(d[0] for d in data) or 1
    with open(out, "w") as f:
        f.write("Top 10 kernels of ours (nsys cuda_gpu_kern_sum over %d steps incl. the first; time per step):\n\n" % steps)
        f.write("| # | kernel | ms/step | % | calls/step |\n|---|---|---|---|---|\n")
        for i, (tm, n, name, pct) in enumerate(data[:10]):
            f.write("| %d | `%s` | %.3f | %.1f | %g |\n" % (i + 1, name[:90], tm / 1e6 / steps, 100 * tm / total, n / steps))
        f.write("\nAll kernels: %.2f ms/step.\n" % (total / 1e6 / steps))
    return 0


# DRAM bandwidth (bytes/s) by GPU, NVIDIA's datasheets (SXM parts unless
# named): what a kernel's sector bytes are measured against.
DRAM_BYTES_PER_S = {"H100 PCIe": 2.0e12, "H100 NVL": 3.9e12, "H100": 3.35e12,
                    "H200": 4.8e12, "A100": 2.039e12}


def read_kernel_bytes(path):
    """scripts/kernel-shapes.py --tsv: per kernel, its launches in a step and
    the sector bytes of all of them."""
    rows = {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            rows[row["kernel"]] = (int(row["launches"]), float(row["sector_bytes"]))
    return rows


def kernels_trace(trace_path, out, kernel_bytes=None, device=""):
    """The top 10 of our step's GPU work from the trainer's own --trace
    (runtime/src/cuda/DeviceTrace.cpp: event-timed spans of the GPU's
    streams): kernels by name, cuBLASLt products by their op, copies. With
    `kernel_bytes` (kernel-shapes.py --tsv of the same program) also the
    generated kernels by time with the bytes they ask of memory (32-byte
    sectors, from the IR) and the rate that makes, against the device's
    DRAM bandwidth: a kernel far below it is not limited by its bytes."""
    events = json.load(open(trace_path))["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    steps = [e for e in events if e["ph"] == "X" and e["name"].startswith("step ")]
    spans = [e for e in events if e["ph"] == "X" and tracks.get(e["tid"], "").startswith("GPU")]
    groups = {}
    kernels = {}
    for e in spans:
        name = e["name"]
        if name == "gemm":
            a = e["args"]
            name = "gemm %s (m %d, n %d, k %d, batch %d)" % (a.get("op", ""), a["m"], a["n"], a["k"], a["batch"])
        elif tracks[e["tid"]] == "GPU communication stream":
            name = "NCCL: " + name
        elif name not in ("memcpy", "memset"):
            k = kernels.setdefault(name, [0.0, 0])
            k[0] += e["dur"]
            k[1] += 1
        g = groups.setdefault(name, [0.0, 0])
        g[0] += e["dur"]
        g[1] += 1
    n = max(len(steps), 1)
    step_us = sum(e["dur"] for e in steps) / n
    busy = sum(e["dur"] for e in spans if tracks[e["tid"]] == "GPU compute stream") / n
    gemm = sum(e["dur"] for e in spans if e["name"] == "gemm") / n
    data = sorted(((t, c, name) for name, (t, c) in groups.items()), reverse=True)
    with open(out, "w") as f:
        f.write("Top 10 of ours (the trainer's --trace, GPU event times, %d step(s); time per step):\n\n" % n)
        f.write("| # | kernel or product | ms/step | % of step | calls/step |\n|---|---|---|---|---|\n")
        for i, (tm, c, name) in enumerate(data[:10]):
            f.write("| %d | `%s` | %.3f | %.1f | %g |\n" % (i + 1, name[:90], tm / 1e3 / n,
                                                       100 * tm / n / max(step_us, 1e-9), c / n))
        f.write("\nStep %.2f ms; compute stream busy %.2f ms (%.1f%%), of which cuBLASLt %.2f ms, "
                "other kernels and copies %.2f ms.\n" % (step_us / 1e3, busy / 1e3,
                                                         100 * busy / max(step_us, 1e-9),
                                                         gemm / 1e3, (busy - gemm) / 1e3))
        if kernel_bytes and os.path.exists(kernel_bytes):
            write_kernel_rates(f, kernels, read_kernel_bytes(kernel_bytes), n, device)
    return 0


def write_kernel_rates(f, kernels, sizes, n, device):
    """The generated kernels by time per step, with their sector bytes (from
    the IR) and the rate they reach."""
    dram = next((b for name, b in DRAM_BYTES_PER_S.items() if name in device), None)
    rows = []
    for name, (us, calls) in kernels.items():
        launches, sector_bytes = sizes.get(name, (0, 0))
        # The IR's bytes are for its launches in a step; the trace's calls
        # per step should be as many.
        per_step = sector_bytes * (calls / n) / launches if launches else None
        rows.append((us / n, calls / n, per_step, name))
    rows.sort(key=lambda r: r[0], reverse=True)
    total_us = sum(r[0] for r in rows)
    known = [r for r in rows if r[2] is not None]
    known_us = sum(r[0] for r in known)
    known_bytes = sum(r[2] for r in known)
    f.write("\nGenerated kernels by time, with the bytes they ask of memory (32-byte sectors, from the IR: "
            "scripts/kernel-shapes.py --access) and the rate that makes%s:\n\n"
            % (" against the %s's DRAM bandwidth of %.2f TB/s" % (device, dram / 1e12) if dram else ""))
    f.write("| # | kernel | ms/step | calls/step | sector MB/step | GB/s |%s\n|---|---|---|---|---|---|%s\n"
            % (" % of DRAM |" if dram else "", "---|" if dram else ""))
    for i, (us, calls, b, name) in enumerate(rows[:25]):
        rate = b / (us * 1e-6) if b is not None and us > 0 else None
        f.write("| %d | `%s` | %.3f | %g | %s | %s |%s\n" % (
            i + 1, name[:80], us / 1e3, calls, "%.1f" % (b / 1e6) if b is not None else "?",
            "%.0f" % (rate / 1e9) if rate else "?",
            (" %.0f |" % (100 * rate / dram) if rate else " ? |") if dram else ""))
    f.write("\nGenerated kernels: %.2f ms/step in %d kernels; those with bytes from the IR %.2f ms for "
            "%.2f GB (%.0f GB/s)" % (total_us / 1e3, len(rows), known_us / 1e3, known_bytes / 1e9,
                                     known_bytes / max(known_us * 1e-6, 1e-12) / 1e9))
    if dram:
        f.write(", %.2f ms at the DRAM bandwidth" % (known_bytes / dram * 1e3))
    missing = [r[3] for r in rows if r[2] is None]
    f.write(".%s\n" % (" Not in the IR's table: %d kernels (%s)." % (len(missing), ", ".join(missing[:5]))
                        if missing else ""))


def ours_stats(path, warmup):
    steps = [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
    if len(steps) <= warmup:
        return None
    ms = [s["ms"] for s in steps[warmup:]]
    return {"ms": statistics.median(ms), "n": len(ms), "first": [s["ms"] for s in steps[:warmup]],
            "peak_mib": steps[-1].get("gpu_mem_peak_mib"), "loss_first": steps[0]["loss"],
            "loss_last": steps[-1]["loss"]}


# Dense peak FLOP/s by GPU and arithmetic (NVIDIA's datasheets, SXM parts,
# without sparsity): bf16 and TF32 on tensor cores, fp32 on the CUDA cores.
PEAKS = {"H100 PCIe": {"bf16": 756.5e12, "tf32": 378e12, "fp32": 51.2e12},
         "H100 NVL": {"bf16": 835.5e12, "tf32": 417.5e12, "fp32": 60e12},
         "H100": {"bf16": 989.4e12, "tf32": 494.7e12, "fp32": 66.9e12},
         "H200": {"bf16": 989.4e12, "tf32": 494.7e12, "fp32": 66.9e12},
         "A100": {"bf16": 312e12, "tf32": 156e12, "fp32": 19.5e12}}


def gpt2_parameters(cfg):
    """examples/onnx/models.py's GPT2: token and position embeddings, per
    layer two layer norms, the qkv, projection and MLP linears with biases,
    a final layer norm; the head is tied to the token embedding."""
    v, c, w, layers = cfg["vocab"], cfg["context"], cfg["width"], cfg["layers"]
    return v * w + c * w + layers * (12 * w * w + 13 * w) + 2 * w


def flops_per_token(cfg):
    """6 N + 6 L C T: the products of the forward and backward (6 per
    parameter and token) plus causal attention's scores and weighted sums
    (L layers, width C, sequence T: 12 L C T halved by the causal mask)."""
    return 6 * gpt2_parameters(cfg) + 6 * cfg["layers"] * cfg["width"] * cfg["seq"]


def mfu(cfg, device, arithmetic, ms):
    peak = next((p[arithmetic] for name, p in PEAKS.items() if name in device), None)
    if not peak or not ms:
        return "-"
    return "%.1f%%" % (100 * cfg["batch"] * cfg["seq"] * flops_per_token(cfg) / (ms / 1e3) / peak)


def report(cfg_path, ours_path, ours_alt_path, results, warmup, out, command, alt_name, alt_arithmetic):
    cfg = json.load(open(cfg_path))
    tokens = cfg["batch"] * cfg["seq"]
    precision = cfg.get("precision", "fp32")
    ours = ours_stats(ours_path, warmup)
    ours_alt = ours_stats(ours_alt_path, warmup)
    base = [json.load(open(r)) for r in results if os.path.exists(r)]
    device = next((b["device"] for b in base if "device" in b), "?")
    fake = os.environ.get("GPU_CHECK_FAKE_CUDA", "0") not in ("", "0")
    lines = ["# %s, batch %d x seq %d, one AdamW step (clip 1.0), %s%s" % (
                 cfg["model"], cfg["batch"], cfg["seq"], precision,
                 " [GPU_CHECK_FAKE_CUDA: CPU stand-ins, not a benchmark]" if fake else ""),
             "", "Device: %s; PyTorch %s. Median step time of each run's steps after %d warm-up steps." % (
                 device, next((b["torch"] for b in base), "?"), warmup), "",
             "| run | step ms | tokens/s | MFU | peak MiB | ours (%s) / this | steps |" % precision,
             "|---|---|---|---|---|---|---|"]

    def line(name, ms, peak, n, arithmetic, note=""):
        ratio = "%.2f" % (ours["ms"] / ms) if ours and ms else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, "%.2f" % ms if ms else "-", "%.0f" % (tokens / ms * 1e3) if ms else "-",
            mfu(cfg, device, arithmetic, ms), "%.0f" % peak if peak else "n/a", ratio, "%s%s" % (n, note)))
    ours_name = "ours (--target=cuda%s)" % (", --precision=bf16" if precision == "bf16" else ", fp32")
    if ours:
        line(ours_name, ours["ms"], ours["peak_mib"], ours["n"], precision)
    else:
        lines.append("| %s | failed | | | | | |" % ours_name)
    if ours_alt:
        line(alt_name, ours_alt["ms"], ours_alt["peak_mib"], ours_alt["n"], alt_arithmetic)
    for b in base:
        if "skipped" in b:
            lines.append("| PyTorch %s | skipped: %s | | | | | |" % (b["mode"], b["skipped"]))
        else:
            arithmetic = "bf16" if b["mode"].endswith("-bf16") else "tf32" if b["mode"] == "eager-tf32" else "fp32"
            line("PyTorch %s (%s)" % (b["mode"], b.get("tf32", "?")), b["ms"], b["peak_mib"], b["steps"],
                 arithmetic)
    lines.append("")
    lines.append("MFU: tokens/s x (6 N + 6 L C T) FLOPs per token (N = %d parameters, L = %d layers, "
                 "C = %d width, T = %d sequence: %.3g FLOPs per token) over the GPU's dense peak for the "
                 "run's arithmetic (bf16 / TF32 tensor cores, fp32 CUDA cores; H100 SXM: 989.4 / 494.7 / "
                 "66.9 TFLOP/s)." % (gpt2_parameters(cfg), cfg["layers"], cfg["width"], cfg["seq"],
                                     flops_per_token(cfg)))
    lines.append("\"ours / this\" < 1 means ours is faster. Peak memory: ours is `gpu_mem_peak_mib` "
                 "(our caching allocator's peak in use), PyTorch's `torch.cuda.max_memory_allocated()`.")
    if ours:
        lines.append("Ours: first %d steps %s ms; loss %s -> %s." % (
            warmup, ", ".join("%.0f" % x for x in ours["first"]), ours["loss_first"], ours["loss_last"]))
    for b in base:
        if "ms" in b:
            lines.append("PyTorch %s: first %d steps %s ms; loss %.4f -> %.4f." % (
                b["mode"], b["warmup"], ", ".join("%.0f" % x for x in b["first_steps_ms"]),
                b["loss_first"], b["loss_last"]))
    lines += ["", "Reproduce: `%s`" % command, ""]
    text = "\n".join(lines)
    open(out, "w").write(text)
    print(text)
    return 0 if ours else 1


def options(args, opts):
    """The positional arguments of `args`, and `opts` (option: default)
    updated with the options given (each followed by its value)."""
    pos = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    return pos, opts


def main(argv):
    cmd = argv[0]
    if cmd == "run":
        pos, opts = options(argv[1:], {"--steps": 20, "--warmup": 3, "--profile": None})
        return run(*pos, steps=int(opts["--steps"]), warmup=int(opts["--warmup"]), profile=opts["--profile"])
    if cmd == "kernels-nsys":
        return kernels_nsys(*argv[1:])
    if cmd == "kernels-trace":
        pos, opts = options(argv[1:], {"--bytes": None, "--device": ""})
        return kernels_trace(*pos, kernel_bytes=opts["--bytes"], device=opts["--device"])
    if cmd == "report":
        args = argv[1:]
        warmup = int(args[args.index("--warmup") + 1])
        out = args[args.index("--out") + 1]
        command = args[args.index("--command") + 1]
        named = ("--warmup", "--out", "--command", "--alt-name", "--alt-arithmetic")
        alt_name = args[args.index("--alt-name") + 1] if "--alt-name" in args else ""
        alt_arithmetic = args[args.index("--alt-arithmetic") + 1] if "--alt-arithmetic" in args else ""
        pos = [a for i, a in enumerate(args) if a not in named and (i == 0 or args[i - 1] not in named)]
        return report(pos[0], pos[1], pos[2], pos[3:], warmup, out, command, alt_name, alt_arithmetic)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
