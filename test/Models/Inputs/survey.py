"""Measures what works on the test/Models models (the table in docs/models.md):
for each model and export mode, whether dist-opt imports the ONNX file, the
forward executable against onnxruntime and PyTorch, the --train compile time
and 5 SGD steps against PyTorch. Not a lit test (it takes long); run by hand:

  .venv/bin/python3 test/Models/Inputs/survey.py WORKDIR [MODEL[:MODE] ...] [--float64]

Each compile has a time limit (--timeout, default 300 s); one compile runs at
a time. Results go to WORKDIR/survey.jsonl (one line per model and mode) and
the full outputs to WORKDIR/<model>-<mode>/*.log.
"""
import argparse
import json
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
sys.path.insert(0, here)
import model_zoo as models  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("work")
parser.add_argument("cases", nargs="*")
parser.add_argument("--timeout", type=float, default=300)
parser.add_argument("--bin", default=os.path.join(root, "build", "bin"))
parser.add_argument("--steps", type=int, default=5)
parser.add_argument("--float64", action="store_true", help="export the models in float64")
opts = parser.parse_args()


def run(cmd, log, timeout=None):
    """(status, seconds, last lines of output); status is the exit code or
    'timeout'."""
    # The binaries may be in the middle of a rebuild: wait for them.
    for _ in range(60):
        if os.access(cmd[0], os.X_OK):
            break
        time.sleep(10)
    start = time.time()
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        try:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
            status = p.returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
    seconds = time.time() - start
    lines = open(log).read().strip().splitlines()[1:]
    return status, seconds, lines


def first_error(lines):
    errors = [ln for ln in lines if "error" in ln.lower()]
    return (errors or lines[-3:] or ["(no output)"])[0][:300]


def shapes(name):
    _, inputs, names, _ = models.build(name, "eval")
    return ["--input-shape=%s=%s" % (n, "x".join(str(d) for d in t.shape))
            for n, t in zip(names, inputs)]


cases = []
for c in opts.cases or list(models.MODELS):
    name, _, mode = c.partition(":")
    cases += [(name, m) for m in ([mode] if mode else ["train", "eval"])]

py = sys.executable
with open(os.path.join(opts.work, "survey.jsonl"), "a") as results:
    for name, mode in cases:
        work = os.path.join(opts.work, "%s-%s%s" % (name, mode, "-float64" if opts.float64 else ""))
        os.makedirs(work, exist_ok=True)
        r = {"model": name, "mode": mode + ("-float64" if opts.float64 else "")}
        f64 = ["--float64"] if opts.float64 else []
        onnx_path = os.path.join(work, "model.onnx")
        status, _, lines = run([py, os.path.join(here, "export.py"), name, mode, onnx_path] + f64,
                               os.path.join(work, "export.log"))
        if status != 0:
            r["export"] = first_error(lines)
            print(json.dumps(r), file=results, flush=True)
            continue
        extra = shapes(name) if mode == "eval" else []
        status, _, lines = run([os.path.join(opts.bin, "dist-opt"), onnx_path] + extra +
                               ["-o", os.devnull], os.path.join(work, "import.log"),
                               opts.timeout)
        r["import"] = "ok" if status == 0 else "%s: %s" % (status, first_error(lines))
        if status == 0:
            fwd = os.path.join(work, "fwd")
            status, secs, lines = run([os.path.join(opts.bin, "dist-compile"), onnx_path] +
                                      extra + ["-o", fwd], os.path.join(work, "compile-fwd.log"),
                                      opts.timeout)
            r["compile_fwd_s"] = round(secs, 1)
            if status != 0:
                r["forward"] = "compile %s: %s" % (status, first_error(lines))
            else:
                status, _, lines = run([py, os.path.join(here, "check_forward.py"), name, mode,
                                        onnx_path, fwd, os.path.join(work, "fwd-run"), "inf"] + f64,
                                       os.path.join(work, "check-fwd.log"), opts.timeout)
                r["forward"] = [ln for ln in lines if " vs " in ln] if status == 0 else \
                    "run %s: %s" % (status, first_error(lines))
        lr = models.SGD_LR[name]
        trainer = os.path.join(work, "trainer")
        status, secs, lines = run([os.path.join(opts.bin, "dist-compile"), onnx_path] + extra +
                                  ["--train", "--optimizer=sgd", "--lr=%g" % lr, "-o", trainer],
                                  os.path.join(work, "compile-train.log"), opts.timeout)
        r["compile_train_s"] = round(secs, 1) if status != "timeout" else "timeout (%ds)" % opts.timeout
        if status != 0:
            r["train"] = "compile %s: %s" % (status, first_error(lines))
        else:
            status, _, lines = run([py, os.path.join(here, "check_train.py"), name, mode, trainer,
                                    os.path.join(work, "train-run"), str(opts.steps), str(lr),
                                    "inf"] + f64, os.path.join(work, "check-train.log"), opts.timeout)
            r["train"] = [ln for ln in lines if "worst" in ln or "->" in ln] if status == 0 else \
                "run %s: %s" % (status, first_error(lines))
        print(json.dumps(r), file=results, flush=True)
        print(json.dumps(r), flush=True)
