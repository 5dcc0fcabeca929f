"""Runs an example model three ways on the same inputs and compares outputs.

usage: compare_forward.py MODEL MODEL.onnx EXECUTABLE WORKDIR

The references: the PyTorch module itself (models.build, seeded as
export.py builds it, in the train() mode it was exported in) and
onnxruntime on the same ONNX file. The executable, compiled by dist-compile
from that file, gets the inputs as .npy files. Every output must match both
references within relative error 1e-5 (fp32): max |ours - ref| <= 1e-5 *
max |ref| per output tensor. Prints one line per comparison.
"""
import os
import subprocess
import sys

import numpy as np
import onnxruntime
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "examples", "onnx"))
import models  # noqa: E402

REL = 1e-5


def rel_error(ours, ref):
    ours = np.asarray(ours, np.float64)
    ref = np.asarray(ref, np.float64)
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    scale = max(np.abs(ref).max(), np.finfo(np.float32).tiny)
    return np.abs(ours - ref).max() / scale


def main():
    name, onnx_path, exe, work = sys.argv[1:5]
    module, inputs, names, _ = models.build(name)
    module.train()
    os.makedirs(work, exist_ok=True)
    args = [exe, "--output-dir", os.path.join(work, "out")]
    feeds = {}
    for n, t in zip(names, inputs):
        path = os.path.join(work, n + ".npy")
        np.save(path, t.numpy())
        args += ["--input", "%s=%s" % (n, path)]
        feeds[n] = t.numpy()
    subprocess.run(args, check=True)
    ours = {n: np.load(os.path.join(work, "out", n + ".npy"))
            for n in ("loss", "logits")}

    with torch.no_grad():
        loss, logits = module(*inputs)
    torch_out = {"loss": loss.numpy(), "logits": logits.numpy()}
    session = onnxruntime.InferenceSession(
        onnx_path, providers=["CPUExecutionProvider"])
    ort_out = dict(zip([o.name for o in session.get_outputs()],
                       session.run(None, feeds)))
    failed = False
    for ref_name, ref in (("pytorch", torch_out), ("onnxruntime", ort_out)):
        for out in ("loss", "logits"):
            err = rel_error(ours[out], ref[out])
            ok = err <= REL
            failed |= not ok
            print("%s %s %s vs %s: relative error %.2e %s" % (
                "ok" if ok else "FAIL", name, out, ref_name, err,
                "<= 1e-5" if ok else "> 1e-5"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
