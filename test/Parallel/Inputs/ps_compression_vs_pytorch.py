"""Checks parameter-server mode's --grad-compression (bf16, fp16, topk:F)
against PyTorch: STEPS SGD steps (lr LR, the same batch each step) of a
dist-compile --parallel=ps --mesh=WORKERS executable under the launcher,
and the same steps of the module it was exported from, with the pushes
re-implemented here:

  g_w  = the gradient of worker w's mean loss over its rows of the batch
  bf16/fp16: each element of g_w rounded to the type (to nearest even)
  topk:F:    a_w = e_w + g_w; the k = max(1, ceil(F n)) elements of a_w
             largest in magnitude (ties: the lower index) are sent, the
             others stay in e_w (error feedback; e_w starts at 0)
  g    = (sum over w, in worker order, of what w sent) * (1 / WORKERS)
  p    = p - LR g

Passes when every step's loss is within 1e-5 relative of PyTorch's and the
run's losses are not those of uncompressed pushes (re-computed the same
way without compression): an executable that did not compress fails.

usage: ps_compression_vs_pytorch.py MODEL EXE WORKDIR CODEC LR STEPS WORKERS LAUNCHER...
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Training", "Inputs"))
from examples_io import example  # noqa: E402

name, exe, work, codec, lr, steps, workers = sys.argv[1:8]
launcher = sys.argv[8:]
lr, steps, workers = float(lr), int(steps), int(workers)

_, _, args = example(name, work)
log = os.path.join(work, "log.jsonl")
subprocess.run(launcher + [exe, "--steps", str(steps), "--log-json", log] + args,
               check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line)["loss"] for line in open(log)]


def sent(g, residual, kind):
    """What a worker pushes for gradient g (updating its residual)."""
    if kind == "bf16":
        return g.to(torch.bfloat16).float()
    if kind == "fp16":
        return g.to(torch.float16).float()
    if kind.startswith("topk:"):
        a = (residual + g).flatten()
        k = min(a.numel(), max(1, math.ceil(float(kind[5:]) * a.numel())))
        # Largest magnitude first, ties to the lower index.
        magnitude = a.abs().numpy()
        order = np.lexsort((np.arange(a.numel()), -magnitude))[:k]
        out = torch.zeros_like(a)
        index = torch.from_numpy(order.astype(np.int64))
        out[index] = a[index]
        a[index] = 0
        residual.copy_(a.reshape(g.shape))
        return out.reshape(g.shape)
    return g


def reference(kind):
    module, inputs, _ = example(name, os.path.join(work, "ref-" + kind.replace(":", "")))
    params = {n: p for n, p in module.named_parameters() if p.requires_grad}
    residuals = [{n: torch.zeros_like(p) for n, p in params.items()} for _ in range(workers)]
    scale = torch.tensor(1.0 / workers, dtype=torch.float32)
    losses = []
    for _ in range(steps):
        total = {n: torch.zeros_like(p) for n, p in params.items()}
        loss = torch.tensor(0.0)
        for w in range(workers):
            module.zero_grad()
            part = [t.chunk(workers, dim=0)[w] for t in inputs]
            value = module(*part)[0]
            value.backward()
            loss = loss + value.detach()
            with torch.no_grad():
                for n, p in params.items():
                    total[n] += sent(p.grad.detach().clone(), residuals[w][n], kind)
        losses.append((loss * scale).item())
        with torch.no_grad():
            for n, p in params.items():
                p.add_(total[n] * scale * torch.tensor(-lr, dtype=torch.float32))
    return losses


def worst(a, b):
    return max(abs(x - y) / max(abs(y), 1e-6) if math.isfinite(x) else math.inf
               for x, y in zip(a, b))


ref = reference(codec)
plain = reference("none")
match = len(ours) == steps and worst(ours, ref) <= 1e-5
differs = worst(ours, plain) > 10 * worst(ours, ref)
print("%s %s: %d steps, losses within %.1e of the %s-compressed pushes (uncompressed: %.1e off)"
      % (name, codec, len(ours), worst(ours, ref), codec, worst(ours, plain)))
print("ok" if match and differs else "FAIL")
sys.exit(0 if match and differs else 1)
