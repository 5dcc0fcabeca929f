"""What workers or data-parallel ranks send under gradient compression,
re-implemented in PyTorch, and SGD steps of a model with it: the reference
of ps_compression_vs_pytorch.py and topk_vs_pytorch.py.

  g_w  = the gradient of worker w's mean loss over its rows of the batch
         (its contiguous 1/WORKERS of every input's batch)
  part = g_w (parameter servers) or g_w / WORKERS (data parallelism: a
         rank's part of the gradient of the global mean loss)
  bf16/fp16: each element of part rounded to the type (to nearest even)
  topk:F:    a_w = e_w + part; the k = max(1, ceil(F n)) elements of a_w
             largest in magnitude (ties: the lower index) are sent, the
             others stay in e_w (error feedback; e_w starts at 0)
  g    = the sum over w, in worker order, of what w sent, times 1/WORKERS
         for parameter servers (which average)
  p    = p - LR g
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "Training", "Inputs"))
from examples_io import example, read_tensors  # noqa: E402


def train(launcher, trainer, work, steps, args):
    """STEPS steps of TRAINER under LAUNCHER with a checkpoint at the end:
    (its losses, {name: parameter}, {name: optimizer state})."""
    ckpt = os.path.join(work, "ckpt")
    log = os.path.join(work, "log.jsonl")
    shutil.rmtree(ckpt, ignore_errors=True)
    subprocess.run(launcher + [trainer, "--steps", str(steps), "--ckpt", ckpt,
                               "--log-json", log] + args,
                   check=True, stdout=subprocess.DEVNULL)
    last = os.path.join(ckpt, "step-%08d" % steps)
    return ([json.loads(line)["loss"] for line in open(log)],
            read_tensors(os.path.join(last, "params.safetensors")),
            read_tensors(os.path.join(last, "optimizer.safetensors")))


def sent(g, residual, kind):
    """What a worker sends for gradient part g (updating its residual)."""
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


def sgd(name, work, kind, lr, steps, workers, averaged):
    """STEPS SGD steps of example NAME with compression KIND: (the losses,
    {name: final weight}, the workers' residuals). `averaged`: the sum of
    what the workers send is divided by WORKERS (parameter servers);
    otherwise each sends its part of the global mean's gradient."""
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
            (value if averaged else value * scale).backward()
            loss = loss + value.detach()
            with torch.no_grad():
                for n, p in params.items():
                    total[n] += sent(p.grad.detach().clone(), residuals[w][n], kind)
        losses.append((loss * scale).item())
        with torch.no_grad():
            for n, p in params.items():
                g = total[n] * scale if averaged else total[n]
                p.add_(g * torch.tensor(-lr, dtype=torch.float32))
    weights = {n: p.detach().numpy().copy() for n, p in params.items()}
    return losses, weights, residuals


def worst(a, b):
    """The largest relative difference of two sequences of losses."""
    return max(abs(x - y) / max(abs(y), 1e-6) if math.isfinite(x) else math.inf
               for x, y in zip(a, b))
