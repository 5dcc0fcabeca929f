"""Runs a dist-compile'd forward executable of a test/Models model and
compares its loss and logits with onnxruntime on the same ONNX file and with
PyTorch on the module it was exported from (eval() mode for eval exports,
else train()).

usage: check_forward.py MODEL MODE MODEL.onnx EXECUTABLE WORKDIR [TOL] [--float64]
Prints the relative error of each output (max |ours - ref| / max |ref|) and
"ok" when every one is <= TOL (default 1e-5); exits 1 otherwise.
--float64: the model was exported with --float64; onnxruntime 1.19's CPU
provider has no float64 Conv, so models with one compare with PyTorch only.
"""
import os
import subprocess
import sys
import warnings

import numpy as np
import torch

from common import models, rel_error, save_inputs

warnings.filterwarnings("ignore")
float64 = "--float64" in sys.argv
argv = [a for a in sys.argv[1:] if a != "--float64"]
name, mode, onnx_path, exe, work = argv[:5]
tol = float(argv[5]) if len(argv) > 5 else 1e-5

module, inputs, names, _ = models.build(name, mode, float64)
args = save_inputs(names, inputs, work)
out = os.path.join(work, "out")
subprocess.run([exe] + args + ["--output-dir", out], check=True, stdout=subprocess.DEVNULL)
ours = [np.load(os.path.join(out, n + ".npy")) for n in ("loss", "logits")]

with torch.no_grad():
    ref_torch = [t.numpy() for t in module(*inputs)]

import onnxruntime as ort  # noqa: E402
refs = [("pytorch", ref_torch)]
try:
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    ref_ort = session.run(["loss", "logits"], {n: t.numpy() for n, t in zip(names, inputs)})
    refs.insert(0, ("onnxruntime", ref_ort))
except Exception as e:  # onnxruntime's own NotImplemented error type
    if not float64 or "NOT_IMPLEMENTED" not in str(e):
        raise
    print("onnxruntime: skipped (%s)" % str(e).splitlines()[0])
    ref_ort = [float("nan")]

worst = 0.0
for ref_name, ref in refs:
    errs = [rel_error(a, b) for a, b in zip(ours, ref)]
    worst = max([worst] + errs)
    print("%s %s vs %s: loss %.2e, logits %.2e" % (name, mode, ref_name, errs[0], errs[1]))
print("loss %.6f (onnxruntime %.6f, pytorch %.6f)" % (ours[0], ref_ort[0], ref_torch[0]))
ok = worst <= tol
print("ok" if ok else "FAILED: worst relative error %.2e > %.0e" % (worst, tol))
sys.exit(0 if ok else 1)
