"""Inputs for, and numpy references of, the hand-written trainers run by train-*.test.

usage: trainer_check.py files DIR              write inputs, weights, data files and bad variants
       trainer_check.py toy DIR LOG SOURCE...  toy-trainer's --log-json LOG vs numpy
       trainer_check.py lm DIR LOG SOURCE...   lm-trainer's --log-json LOG vs numpy
       trainer_check.py hparam DIR LOG [NAME[@STEP]=VALUE]... SOURCE...
                                               hparam-trainer's --log-json LOG vs numpy, with
                                               the hyperparameters NAME (lr, weight_decay,
                                               warmup_steps, max_grad_norm) at VALUE (from
                                               step STEP on), the others at their defaults
       trainer_check.py dp DIR LOG SOURCE...   dp-trainer's (any mesh) --log-json LOG vs numpy
       trainer_check.py zero DIR LOG SOURCE... zero-trainer's (any mesh) --log-json LOG vs numpy
       trainer_check.py pp DIR LOG SOURCE...   pp-trainer's (any mesh) --log-json LOG vs numpy
       trainer_check.py stdout LOG OUT         OUT (stdout) shows LOG's values, one line per step
       trainer_check.py same FULL PART         PART's steps are FULL's, bit for bit
       trainer_check.py close A B [TOL]        the same steps, values within 1e-5 (or TOL; relative)
       trainer_check.py close-tail A B         B's steps are A's last ones, values within 1e-5
       trainer_check.py differ A B             A and B differ at every step
       trainer_check.py checkpoints DIR        the checkpoint directory's layout and manifests
       trainer_check.py same-tensors A B       checkpoints A and B hold identical tensors
       trainer_check.py same-weights A FILE    checkpoint A's parameters are FILE's
       trainer_check.py old-manifest DIR       strip the seed, checksums and hparams from DIR's manifest
       trainer_check.py snapshot DIR FILE      record every file under DIR (names, bytes)
       trainer_check.py unchanged DIR FILE     ... and check that none changed
       trainer_check.py corrupt HOW FILE       truncate or overwrite part of FILE (HOW: truncate,
                                               header, append, or flip: one bit of the last byte)

SOURCE: `inputs` (DIR/x.npy, y.npy or idx.npy, targets.npy), `samples FILE`,
`tokens FILE uint16|int32` or `synthetic SEED`. The references compute in
float64 what the C models compute in float32 (parameters and state rounded
to float32 after each step), so losses agree to ~5e-7; the check allows
1e-5. Synthetic values are re-derived bit for bit (splitmix64, as
RandomInputs.cpp does).

Prints one line per check; exits 1 on a failure.
"""
import hashlib
import json
import math
import os
import re
import sys

import numpy as np

import safetensors_ref as ref

failures = 0


def report(ok, what):
    global failures
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAIL", what))


# --- Files -------------------------------------------------------------------

VOCAB = 16


def st(path, arrays):
    ref.write(path, [(k, ref.Tensor.of(v)) for k, v in arrays], {"format": "pt"})


def files(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(7)
    p = lambda name: os.path.join(d, name)
    # toy-trainer: y = x . [1, -2, 0.5] + 0.25, plus noise.
    true_w = np.array([1.0, -2.0, 0.5])
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    np.save(p("x.npy"), x)
    np.save(p("y.npy"), (x @ true_w + 0.25 + rng.normal(0, 0.01, 4)).astype(np.float32))
    np.save(p("x_shape.npy"), np.zeros((3, 4), np.float32))
    st(p("w.safetensors"), [("w", rng.normal(0, 0.1, 3).astype(np.float32)),
                            ("b", np.array(0.0, np.float32))])
    st(p("w_wide.safetensors"), [("w", rng.normal(0, 0.1, 4).astype(np.float32)),
                                 ("b", np.array(0.0, np.float32))])
    xs = rng.uniform(-1, 1, (10, 3)).astype(np.float32)
    ys = (xs @ true_w + 0.25).astype(np.float32)
    st(p("samples.safetensors"), [("x", xs), ("y", ys), ("unused", np.zeros(2, np.float32))])
    st(p("samples_missing.safetensors"), [("x", xs)])
    st(p("samples_dtype.safetensors"), [("x", xs.astype(np.float64)), ("y", ys)])
    st(p("samples_shape.safetensors"), [("x", np.zeros((10, 5), np.float32)), ("y", ys)])
    st(p("samples_few.safetensors"), [("x", xs[:3]), ("y", ys[:3])])
    st(p("samples_uneven.safetensors"), [("x", xs), ("y", ys[:9])])
    # lm-trainer: a token stream with structure (t -> t + 1 mostly).
    st(p("lm.safetensors"), [("bigram", rng.normal(0, 0.1, (VOCAB, VOCAB)).astype(np.float32))])
    tokens = np.cumsum(rng.integers(1, 3, 37)) % VOCAB
    tokens.astype("<u2").tofile(p("tokens.u16"))
    tokens.astype("<i4").tofile(p("tokens.i32"))
    tokens[:8].astype("<u2").tofile(p("tokens_short.u16"))
    with open(p("tokens_odd.u16"), "wb") as f:
        f.write(tokens.astype("<u2").tobytes() + b"\0")
    bad = tokens.copy()
    bad[20] = VOCAB
    bad.astype("<u2").tofile(p("tokens_range.u16"))
    bad[20] = -1
    bad.astype("<i4").tofile(p("tokens_negative.i32"))
    # 38 uint16 tokens read as 19 int32: t0 + 65536 * t1, far out of range.
    np.append(tokens, 1).astype("<u2").tofile(p("tokens_38.u16"))
    np.save(p("idx.npy"), tokens[:8].reshape(2, 4).astype(np.int64))
    np.save(p("targets.npy"), tokens[1:9].reshape(2, 4).astype(np.int32))
    np.save(p("idx_range.npy"), np.full((2, 4), 20, np.int64))
    lm_ids = rng.integers(0, VOCAB, (5, 4))
    st(p("lm_samples.safetensors"), [("idx", lm_ids.astype(np.int64)),
                                     ("targets", ((lm_ids + 1) % VOCAB).astype(np.int32))])
    lm_ids[3, 2] = 99
    st(p("lm_samples_range.safetensors"), [("idx", lm_ids.astype(np.int64)),
                                           ("targets", ((lm_ids + 1) % VOCAB).astype(np.int32))])
    # zero-trainer: pred = x . (w + u[0] * u[1]) + b on x float32 4x4.
    st(p("zero.safetensors"), [("w", rng.normal(0, 0.3, 4).astype(np.float32)),
                               ("u", rng.normal(0, 0.5, (2, 4)).astype(np.float32)),
                               ("b", np.array(0.1, np.float32))])
    # Files of the later tests, from a generator of their own (the ones
    # above keep their values).
    rng2 = np.random.default_rng(11)
    # 12 samples, batch 4: steps 3, 6, 9, ... read samples 8-11, where y[9]
    # makes the loss NaN (nan) or overflow to infinity (inf).
    xs12 = rng2.uniform(-1, 1, (12, 3)).astype(np.float32)
    ys12 = (xs12 @ true_w + 0.25).astype(np.float32)
    for name, value in (("nan", np.nan), ("inf", 1e30)):
        bad = ys12.copy()
        bad[9] = value
        st(p("samples_%s.safetensors" % name), [("x", xs12), ("y", bad)])
    y_nan = np.load(p("y.npy"))
    y_nan[1] = np.nan
    np.save(p("y_nan.npy"), y_nan)

    # cls-trainer: labels in [0, 10), -100 ignored.
    st(p("cls.safetensors"), [("w", rng2.normal(0, 0.3, (3, 10)).astype(np.float32))])
    np.save(p("labels.npy"), np.array([3, -100, 7, 0], np.int64))
    np.save(p("labels_ignored.npy"), np.full(4, -100, np.int64))
    np.save(p("labels_bad.npy"), np.array([3, -99, 7, 0], np.int64))
    labels = rng2.integers(0, 10, 12)
    labels[[2, 5]] = -100
    st(p("cls_samples.safetensors"), [("x", xs12), ("labels", labels.astype(np.int64))])

    # pp-trainer: y = relu(x @ w0) @ w1 against t float32 4x2; 12 samples
    # whose t[9, 0] makes steps 3, 6, 9, ... NaN.
    rng3 = np.random.default_rng(13)
    st(p("pp.safetensors"), [("w0", rng3.normal(0, 0.6, (3, 4)).astype(np.float32)),
                             ("w1", rng3.normal(0, 0.6, (4, 2)).astype(np.float32))])
    pp_x = rng3.uniform(-1, 1, (12, 3)).astype(np.float32)
    pp_t = rng3.uniform(-1, 1, (12, 2)).astype(np.float32)
    pp_t[9, 0] = np.nan
    st(p("pp_samples_nan.safetensors"), [("x", pp_x), ("t", pp_t)])

    print("wrote inputs to %s" % d)


def load_st(path):
    tensors, _, _ = ref.read(path)
    out = {}
    for name, t in tensors:
        out[name] = np.frombuffer(t.data, ref.NUMPY[t.dtype]).reshape(t.shape)
    return out


# --- Data sources, as docs/trainer-abi.md defines them -----------------------

MASK = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def fnv1a(name):
    h = 0xCBF29CE484222325
    for byte in name.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & MASK
    return h


def synthetic(seed, step, name, shape, dtype, value_range=0):
    """RandomInputs.cpp's fillSynthetic, for float32 and integer inputs."""
    s, out = splitmix(seed)
    s, out = splitmix(out ^ fnv1a(name))
    s, out = splitmix(out ^ step)
    s = out
    values = []
    for _ in range(int(np.prod(shape))):
        s, d = splitmix(s)
        if dtype == np.float32:
            values.append((d >> 39) / float(1 << 24) - 1.0)
        else:
            values.append((d * value_range) >> 64 if value_range else d >> 63)
    return np.array(values, dtype).reshape(shape)


def sample_batches(arrays, batch):
    n, p = len(arrays[0]), 0
    while True:
        yield [a[p:p + batch] for a in arrays]
        p += batch
        if n - p < batch:
            p = 0


def token_batches(tokens, b, t):
    p = 0
    while True:
        yield (tokens[p:p + b * t].reshape(b, t), tokens[p + 1:p + b * t + 1].reshape(b, t))
        p += b * t
        if len(tokens) - p < b * t + 1:
            p = 0


def source(d, args, names, shapes, dtypes, ranges):
    """A generator of per-step batches (lists in input order)."""
    kind = args[0]
    if kind == "inputs":
        arrays = [np.load(os.path.join(d, n + ".npy")) for n in names]
        return iter(lambda: arrays, None)
    if kind == "samples":
        s = load_st(args[1])
        return sample_batches([s[n] for n in names], shapes[0][0])
    if kind == "tokens":
        tokens = np.fromfile(args[1], "<u2" if args[2] == "uint16" else "<i4").astype(np.int64)
        return token_batches(tokens, *shapes[0])
    seed = int(args[1])

    def gen():
        step = 1
        while True:
            yield [synthetic(seed, step, n, s, t, r) for n, s, t, r in zip(names, shapes, dtypes, ranges)]
            step += 1
    return gen()


# --- The trainers' math -----------------------------------------------------

f32 = lambda a: np.asarray(a, np.float32).astype(np.float64)


def toy_steps(batches, w, b, steps):
    w, b = f32(w), float(b)
    m, v, bm, bv = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    for step in range(1, steps + 1):
        x, y = (f32(a) for a in next(batches))
        err = x @ w + b - y
        loss = np.mean(err ** 2)
        gw, gb = 2 / len(y) * x.T @ err, 2 / len(y) * err.sum()
        norm = np.sqrt(np.sum(gw ** 2) + gb ** 2)
        scale = 1.0 / norm if norm > 1.0 else 1.0
        lr = 0.05 * step / 3 if step < 3 else 0.05
        c1, c2 = 1 - 0.9 ** step, 1 - 0.999 ** step
        m, bm = f32(0.9 * m + 0.1 * gw * scale), float(np.float32(0.9 * bm + 0.1 * gb * scale))
        v, bv = f32(0.999 * v + 0.001 * (gw * scale) ** 2), float(np.float32(0.999 * bv + 0.001 * (gb * scale) ** 2))
        w = f32(w - lr * (m / c1) / (np.sqrt(v / c2) + 1e-8))
        b = float(np.float32(b - lr * (bm / c1) / (np.sqrt(bv / c2) + 1e-8)))
        yield step, loss, norm, lr


HPARAM_DEFAULTS = {"lr": 0.1, "weight_decay": 0.01, "warmup_steps": 2.0, "max_grad_norm": 1.0}


def hparam_steps(batches, w, b, steps, hparams_at):
    """hparam_trainer.c's step; hparams_at(step) gives the step's values."""
    w, b = f32(w), float(b)
    wm, bm = np.zeros_like(w), 0.0
    for step in range(1, steps + 1):
        h = hparams_at(step)
        x, y = (f32(a) for a in next(batches))
        err = x @ w + b - y
        loss = np.mean(err ** 2)
        gw, gb = 2 / len(y) * x.T @ err, 2 / len(y) * err.sum()
        norm = np.sqrt(np.sum(gw ** 2) + gb ** 2)
        clip = h["max_grad_norm"]
        scale = clip / norm if clip > 0 and norm > clip else 1.0
        lr = h["lr"] * step / h["warmup_steps"] if step < h["warmup_steps"] else h["lr"]
        lr32 = float(np.float32(lr))
        wm = f32(0.9 * wm + gw * scale + float(np.float32(h["weight_decay"])) * w)
        bm = float(np.float32(0.9 * bm + gb * scale))
        w, b = f32(w - lr32 * wm), float(np.float32(b - lr32 * bm))
        yield step, loss, norm, lr


def lm_steps(batches, table, steps):
    table = f32(table)
    momentum = np.zeros_like(table)
    for step in range(1, steps + 1):
        idx, tgt = (np.asarray(a).reshape(-1) for a in next(batches))
        logits = table[idx]
        top = logits.max(axis=1, keepdims=True)
        lse = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
        loss = np.mean(lse - logits[np.arange(len(idx)), tgt])
        p = np.exp(logits - lse[:, None])
        p[np.arange(len(idx)), tgt] -= 1
        grad = np.zeros_like(table)
        np.add.at(grad, idx, p / len(idx))
        norm = np.sqrt(np.sum(grad ** 2))
        lr = 0.5 / np.sqrt(step)
        momentum = f32(0.9 * momentum + grad)
        table = f32(table - lr * momentum)
        yield step, loss, norm, lr


def dp_steps(batches, w, b, steps):
    w, b = f32(w), float(b)
    wm, bm = np.zeros_like(w), 0.0
    for step in range(1, steps + 1):
        x, y = (f32(a) for a in next(batches))
        err = x @ w + b - y
        loss = np.mean(err ** 2)
        gw, gb = 2 / len(y) * x.T @ err, 2 / len(y) * err.sum()
        norm = np.sqrt(np.sum(gw ** 2) + gb ** 2)
        wm, bm = f32(0.9 * wm + gw), float(np.float32(0.9 * bm + gb))
        w, b = f32(w - 0.1 * wm), float(np.float32(b - 0.1 * bm))
        yield step, loss, norm, 0.1


def zero_steps(batches, w, u, b, steps):
    params = [f32(w), f32(u[0]), f32(u[1]), np.array([float(b)])]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    for step in range(1, steps + 1):
        x, y = (f32(a) for a in next(batches))
        w, u0, u1, b = params
        err = x @ (w + u0 * u1) + b[0] - y
        loss = np.mean(err ** 2)
        gv = 2 / len(y) * x.T @ err
        grads = [gv, gv * u1, gv * u0, np.array([2 / len(y) * err.sum()])]
        norm = np.sqrt(sum(np.sum(g ** 2) for g in grads))
        scale = 1.0 / norm if norm > 1.0 else 1.0
        c1, c2 = 1 - 0.9 ** step, 1 - 0.999 ** step
        for i, g in enumerate(grads):
            m, v = moments[i]
            m, v = f32(0.9 * m + 0.1 * g * scale), f32(0.999 * v + 0.001 * (g * scale) ** 2)
            moments[i] = [m, v]
            params[i] = f32(params[i] - 0.05 * (m / c1) / (np.sqrt(v / c2) + 1e-8))
        yield step, loss, norm, 0.05


def pp_steps(batches, w0, w1, steps):
    w0, w1 = f32(w0), f32(w1)
    m0, m1 = np.zeros_like(w0), np.zeros_like(w1)
    for step in range(1, steps + 1):
        x, t = (f32(a) for a in next(batches))
        pre = x @ w0
        h = np.maximum(pre, 0)
        err = h @ w1 - t
        loss = np.mean(err ** 2)
        dpred = 2 * err / err.size
        g1 = h.T @ dpred
        g0 = x.T @ ((dpred @ w1.T) * (pre > 0))
        norm = np.sqrt(np.sum(g0 ** 2) + np.sum(g1 ** 2))
        m0, m1 = f32(0.9 * m0 + g0), f32(0.9 * m1 + g1)
        w0, w1 = f32(w0 - 0.1 * m0), f32(w1 - 0.1 * m1)
        yield step, loss, norm, 0.1


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def compare(log_path, steps_fn, what):
    log = read_log(log_path)
    keys = sorted(set(log[0]) if log else [])
    report(keys == ["grad_norm", "loss", "lr", "ms", "step", "tensor_peak_mib"],
           "%s: log keys %s" % (what, " ".join(keys)))
    by_step = {entry["step"]: entry for entry in log}
    worst, seen = 0.0, 0
    for step, loss, norm, lr in steps_fn(max(by_step)):
        if step not in by_step:
            continue
        entry = by_step[step]
        seen += 1
        for key, want in (("loss", loss), ("grad_norm", norm), ("lr", lr)):
            got = entry[key]
            # NaN anywhere is a mismatch (max() would skip it).
            worst = max(worst, abs(got - want) / max(abs(want), 1e-6)
                        if math.isfinite(got) and math.isfinite(want) else math.inf)
    report(seen == len(log) and worst < 1e-5,
           "%s: steps %d-%d match numpy (%d steps, worst relative error < 1e-5)"
           % (what, min(by_step), max(by_step), seen))
    if worst >= 1e-5:
        print("  worst relative error %g" % worst)


def toy(d, log, *args):
    batches = source(d, args, ["x", "y"], [(4, 3), (4,)], [np.float32] * 2, [0, 0])
    weights = load_st(os.path.join(d, "w.safetensors"))
    compare(log, lambda n: toy_steps(batches, weights["w"], weights["b"], n), "toy " + args[0])


def hparam(d, log, *args):
    """Leading NAME=VALUE or NAME@STEP=VALUE arguments set hyperparameters
    (from step STEP on); the rest is the SOURCE."""
    changes = []  # (first step, name, value)
    while args and "=" in args[0]:
        key, value = args[0].split("=", 1)
        name, _, first = key.partition("@")
        if name not in HPARAM_DEFAULTS:
            sys.exit("unknown hyperparameter %s" % name)
        changes.append((int(first or 1), name, float(value)))
        args = args[1:]

    def hparams_at(step):
        h = dict(HPARAM_DEFAULTS)
        for first, name, value in sorted(changes):
            if step >= first:
                h[name] = value
        return h
    batches = source(d, args, ["x", "y"], [(4, 3), (4,)], [np.float32] * 2, [0, 0])
    weights = load_st(os.path.join(d, "w.safetensors"))
    compare(log, lambda n: hparam_steps(batches, weights["w"], weights["b"], n, hparams_at),
            "hparam " + args[0])


def lm(d, log, *args):
    batches = source(d, args, ["idx", "targets"], [(2, 4), (2, 4)], [np.int64, np.int32],
                     [VOCAB, VOCAB])
    table = load_st(os.path.join(d, "lm.safetensors"))["bigram"]
    compare(log, lambda n: lm_steps(batches, table, n), "lm " + args[0])


def dp(d, log, *args):
    batches = source(d, args, ["x", "y"], [(4, 3), (4,)], [np.float32] * 2, [0, 0])
    weights = load_st(os.path.join(d, "w.safetensors"))
    compare(log, lambda n: dp_steps(batches, weights["w"], weights["b"], n), "dp " + args[0])


def zero(d, log, *args):
    batches = source(d, args, ["x", "y"], [(4, 4), (4,)], [np.float32] * 2, [0, 0])
    weights = load_st(os.path.join(d, "zero.safetensors"))
    compare(log, lambda n: zero_steps(batches, weights["w"], weights["u"], weights["b"], n),
            "zero " + args[0])


def pp(d, log, *args):
    batches = source(d, args, ["x", "t"], [(4, 3), (4, 2)], [np.float32] * 2, [0, 0])
    weights = load_st(os.path.join(d, "pp.safetensors"))
    compare(log, lambda n: pp_steps(batches, weights["w0"], weights["w1"], n), "pp " + args[0])


# --- Logs, checkpoints, files -------------------------------------------------

# What a run measures rather than computes: time and memory.
MEASURED = ("ms", "tensor_peak_mib", "gpu_mem_peak_mib", "mfu")


def without_ms(entry):
    return {k: v for k, v in entry.items() if k not in MEASURED}


def same(full, part):
    full_log = {e["step"]: without_ms(e) for e in read_log(full)}
    part_log = [without_ms(e) for e in read_log(part)]
    steps = [e["step"] for e in part_log]
    report(part_log and all(full_log.get(e["step"]) == e for e in part_log),
           "steps %s of %s: identical losses, grad norms and lrs"
           % ("-".join(map(str, [steps[0], steps[-1]])) if steps else "none",
              os.path.basename(full)))


STEP_LINE = re.compile(r"step (\d+) \| loss (\S+) \| grad norm (\S+) \| lr (\S+) \| "
                       r"\d+\.\d ms/step \| \d+ (tokens|samples)/s \| peak mem \d+\.\d MiB$")


def stdout(log, out):
    """Each stdout line shows its step's logged float32 values, rounded."""
    log = read_log(log)
    with open(out) as f:
        lines = f.read().splitlines()
    units, ok = set(), len(lines) == len(log)
    for entry, line in zip(log, lines):
        m = STEP_LINE.match(line)
        # %.9g reads back as the float32 the driver printed: round to it first.
        value = lambda key: float(np.float32(entry[key]))
        ok = ok and m is not None and m.groups()[:4] == (
            str(entry["step"]), "%.6f" % value("loss"), "%.4f" % value("grad_norm"),
            "%.3e" % value("lr"))
        units.add(m.group(5) if m else None)
    report(ok, "%d step lines show the log's values (%s/s)" % (len(lines), "/".join(sorted(map(str, units)))))


def close(a, b, tolerance="1e-5", tail=False):
    """The same steps as A (with `tail`: A's steps from B's first on, as a
    resumed run logs), each value within a relative 1e-5: the same training
    on another mesh, whose reductions round differently (a larger
    `tolerance` for 16-bit compute types, which round where each rank's
    partial products end)."""
    text, tolerance = tolerance, float(tolerance)
    a_log = {e["step"]: e for e in read_log(a)}
    b_log = read_log(b)
    if tail and b_log:
        a_log = {s: e for s, e in a_log.items() if s >= b_log[0]["step"]}
    def difference(x, y):
        # NaN or infinity anywhere is a mismatch (max() would skip a NaN).
        if not (math.isfinite(x) and math.isfinite(y)):
            return math.inf
        return abs(x - y) / max(abs(y), 1e-6)
    worst = max((difference(e[k], a_log[e["step"]][k])
                 for e in b_log if e["step"] in a_log for k in ("loss", "grad_norm", "lr")),
                default=1.0)
    steps = [e["step"] for e in b_log]
    report(b_log and all(s in a_log for s in steps) and len(steps) == len(a_log) and worst < tolerance,
           "steps %s of %s: losses, grad norms and lrs within %s"
           % ("-".join(map(str, [steps[0], steps[-1]])) if steps else "none", os.path.basename(a),
              text))
    if worst >= tolerance:
        print("  worst relative difference %g" % worst)


def differ(a, b):
    a_log, b_log = read_log(a), read_log(b)
    report(len(a_log) == len(b_log) and
           all(x["loss"] != y["loss"] for x, y in zip(a_log, b_log)),
           "different losses at every step")


def checkpoints(d):
    entries = sorted(os.listdir(d))
    print("entries: %s" % " ".join(entries))
    for entry in entries:
        path = os.path.join(d, entry)
        if not entry.startswith("step-"):
            print("%s: %s" % (entry, " ".join(sorted(os.listdir(path)))))
            continue
        names = sorted(os.listdir(path))
        print("%s: %s" % (entry, " ".join(names)))
        with open(os.path.join(path, "manifest.json")) as f:
            manifest = json.load(f, object_pairs_hook=lambda pairs: dict(pairs))
        print("  format %s, step %d" % (manifest["format"], manifest["step"]))
        if manifest.get("mesh"):
            print("  mesh: %s" % manifest["mesh"])
        for role in ("inputs", "params", "state"):
            print("  %s: %s" % (role, ", ".join("%s %s %s" % (t["name"], t["dtype"], t["shape"])
                                                 for t in manifest[role])))
        if manifest.get("hparams"):
            print("  hparams: %s" % ", ".join("%s=%r" % kv for kv in manifest["hparams"].items()))
        print("  meta: %s" % ", ".join("%s=%s" % kv for kv in manifest["meta"].items()))
        data = dict(manifest["data"])
        for key in ("file",):
            if key in data:
                data[key] = os.path.basename(data[key])
        if "files" in data:
            data["files"] = {k: os.path.basename(v) for k, v in data["files"].items()}
        print("  data: %s" % json.dumps(data, sort_keys=True))
        sizes = {n: os.path.getsize(os.path.join(path, n)) for n in manifest["files"]}
        report(sizes == manifest["files"], "  file sizes as the manifest says")
        checksums = True
        for name, role in (("params.safetensors", "params"), ("optimizer.safetensors", "state")):
            tensors = load_st(os.path.join(path, name))
            report(sorted(tensors) == sorted(t["name"] for t in manifest[role]) and
                   all(list(tensors[t["name"]].shape) == t["shape"] for t in manifest[role]),
                   "  %s holds the manifest's %s" % (name, role))
            checksums = checksums and all(
                t.get("crc32c") == "%08x" % crc32c(tensors[t["name"]].tobytes())
                for t in manifest[role] if t["name"] in tensors)
        report(checksums, "  each tensor's CRC-32C as the manifest says")


def crc32c_table():
    table = []
    for b in range(256):
        crc = b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC32C_TABLE = crc32c_table()


def crc32c(data):
    """CRC-32C (Castagnoli), bit for bit as Crc32c.cpp; "123456789" gives e3069283."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = (crc >> 8) ^ CRC32C_TABLE[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


def tensors_of(ckpt):
    return {name: load_st(os.path.join(ckpt, name))
            for name in ("params.safetensors", "optimizer.safetensors")}


def same_tensors(a, b):
    ta, tb = tensors_of(a), tensors_of(b)
    same = all(sorted(ta[f]) == sorted(tb[f]) and
               all(ta[f][k].tobytes() == tb[f][k].tobytes() for k in ta[f]) for f in ta)
    report(same, "%s and %s: %s tensors" % (os.path.basename(a), os.path.basename(b),
                                            "identical" if same else "different"))


def same_weights(ckpt, weights):
    got, want = load_st(os.path.join(ckpt, "params.safetensors")), load_st(weights)
    report(sorted(got) == sorted(want) and all(got[k].tobytes() == want[k].tobytes() for k in got),
           "%s: the parameters of %s, bit for bit" % (os.path.basename(ckpt), os.path.basename(weights)))


def old_manifest(d):
    """The manifest as checkpoints before the seed, checksums and
    hyperparameters wrote it."""
    path = os.path.join(d, "manifest.json")
    text = open(path).read()
    text = re.sub(r'  "seed": -?\d+,\n', "", text)
    text = re.sub(r', "crc32c": "[0-9a-f]{8}"', "", text)
    text = re.sub(r'  "hparams": \{[^}]*\},\n', "", text)
    open(path, "w").write(text)
    print("old manifest: %s" % ("\n  \"seed\"" not in text and "crc32c" not in text and
                                '"hparams"' not in text))


def snapshot_of(d):
    out = {}
    for root, dirs, names in os.walk(d):
        for name in dirs + names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, d)
            out[rel] = ("dir" if os.path.isdir(path) else
                        hashlib.sha256(open(path, "rb").read()).hexdigest())
    return out


def snapshot(d, file):
    with open(file, "w") as f:
        json.dump(snapshot_of(d), f)
    print("snapshot of %s" % d)


def unchanged(d, file):
    with open(file) as f:
        before = json.load(f)
    after = snapshot_of(d)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    report(not changed, "unchanged: %d entries%s" % (len(before), (" (changed: %s)" % " ".join(changed)) if changed else ""))


def corrupt(how, path):
    blob = open(path, "rb").read()
    if how == "truncate":
        blob = blob[:len(blob) // 2]
    elif how == "header":
        blob = blob[:8] + b"!" + blob[9:]
    elif how == "append":
        blob = blob + b"\0" * 8
    elif how == "flip":
        # The last byte is in the data region (of the last tensor).
        blob = blob[:-1] + bytes([blob[-1] ^ 0x01])
    with open(path, "wb") as f:
        f.write(blob)
    print("corrupted %s (%s)" % (os.path.basename(path), how))


command, args = sys.argv[1], sys.argv[2:]
{"files": files, "toy": toy, "hparam": hparam, "lm": lm, "dp": dp, "zero": zero, "pp": pp,
 "stdout": stdout,
 "same": same, "close": close, "differ": differ,
 "close-tail": lambda a, b: close(a, b, tail=True),
 "checkpoints": checkpoints, "snapshot": snapshot, "unchanged": unchanged,
 "same-tensors": same_tensors, "same-weights": same_weights, "old-manifest": old_manifest,
 "corrupt": corrupt}[command](*args)
sys.exit(1 if failures else 0)
