"""Checks --grad-compression=powersgd:R against PyTorch: STEPS SGD steps (lr
LR, the same batch each step) of a dist-compile --train --mesh=2
--parallel=dp executable (or --mesh=RANKS) under the launcher, and the same steps of the
module it was exported from, computed as the ranks would with PowerSGD
re-implemented here after PyTorch 1.13's powerSGD_hook (warm start, error
feedback, Gram-Schmidt orthogonalization, _should_compress with
min_compression_rate 2, from the first step), in the project's convention
that the ranks' parts add up to the gradient (PyTorch's hook averages;
the two differ by the factor RANKS only, which orthogonalization removes):

  M_r = part_r + e_r        (rank r's part of the gradient of the global
                             mean loss, plus the residual it kept)
  Q   = orth(Q_prev)        (the first step: the initial basis below)
  P   = orth(sum_r M_r Q);  Q_new = sum_r M_r^T P
  g   = P Q_new^T;          e_r = M_r - g / RANKS

The initial basis is element k = i * R + j + 1 of frac(k * 0.618...) - 0.5
(PyTorch draws it from its RNG; any full-rank start is PowerSGD).

The algorithm reads the ranks' inputs only through their sum (P and Q
are sums of products linear in M_r), so the ranks' residuals are checked
as a sum: how a gradient the backward already summed over the ranks (an
embedding's, through a scatter) is split among them is the program's
choice (rank 0 holds it).

Passes when every step's loss is within 1e-5 relative of PyTorch's, the
final weights and the sum of the ranks' residuals (from the checkpoint)
are within 1e-3 of the size of what they changed by (float32 matrix products sum in
different orders), and the weights are not those of uncompressed SGD (an
executable that did not compress fails).

usage: powersgd_vs_pytorch.py MODEL TRAINER WORKDIR RANK LR STEPS RANKS LAUNCHER...
"""
import math
import os
import sys

import numpy as np
import torch

from compressed_sgd import example, train

name, trainer, work, rank, lr, steps, ranks = sys.argv[1:8]
launcher = sys.argv[8:]
rank, lr, steps, ranks = int(rank), float(lr), int(steps), int(ranks)
FLT_MIN = float(np.finfo(np.float32).tiny)

module, inputs, args = example(name, work)
ours_losses, ours, ours_state = train(launcher, trainer, work, steps, args)


def matrix_of(shape):
    """(rows, cols, rank) PowerSGD compresses a gradient of `shape` as, or None."""
    if len(shape) < 2:
        return None
    rows, cols = shape[0], int(np.prod(shape[1:]))
    r = min(rows, cols, rank)
    return (rows, cols, r) if (rows + cols) * r * 2 < rows * cols else None


def initial_basis(cols, r):
    values = []
    for k in range(1, cols * r + 1):
        x = k * 0.6180339887498949
        values.append(x - math.floor(x) - 0.5)
    return torch.tensor(values, dtype=torch.float64).float().reshape(cols, r)


def orthogonalize(x):
    """_orthogonalize_gram_schmidt of one matrix (the norm at least FLT_MIN)."""
    x = x.clone()
    for i in range(x.shape[1]):
        col = x[:, i:i + 1]
        col /= torch.clamp_min(torch.sqrt((col * col).sum(0, keepdim=True)), FLT_MIN)
        if i + 1 < x.shape[1]:
            rest = x[:, i + 1:]
            rest -= (col * rest).sum(0, keepdim=True) * col
    return x


params = {n: p for n, p in module.named_parameters() if p.requires_grad}
initial = {n: p.detach().clone() for n, p in params.items()}
state = {}  # name -> (basis, [residual of each rank])
ref_losses = []
minus_lr = torch.tensor(-lr, dtype=torch.float32)
for step in range(1, steps + 1):
    parts = []
    for r in range(ranks):
        module.zero_grad()
        half = [t.chunk(ranks, dim=0)[r] for t in inputs]
        (module(*half)[0] * (1.0 / ranks)).backward()
        parts.append({n: p.grad.detach().clone() for n, p in params.items()})
    module.zero_grad()
    with torch.no_grad():
        ref_losses.append(module(*inputs)[0].item())
    with torch.no_grad():
        for n, p in params.items():
            shape = tuple(p.shape)
            whole = sum(parts[k][n] for k in range(ranks))
            matrix = matrix_of(shape)
            if matrix is None:
                gradient = whole
            else:
                rows, cols, r = matrix
                basis, errors = state.get(
                    n, (initial_basis(cols, r), [torch.zeros(shape)] * ranks))
                m = [(parts[k][n] + errors[k]).reshape(rows, cols)
                     for k in range(ranks)]
                q = orthogonalize(basis)
                pm = orthogonalize(sum(m[k] @ q for k in range(ranks)))
                qm = sum(m[k].t() @ pm for k in range(ranks))
                approx = pm @ qm.t()
                state[n] = (qm, [(m[k] - approx / ranks).reshape(shape)
                                 for k in range(ranks)])
                gradient = approx.reshape(shape)
            p.add_(gradient * minus_lr)

# Uncompressed SGD's weights after the same steps, for the negative check.
module_plain, inputs_plain, _ = example(name, os.path.join(work, "plain"))
plain_params = {n: p for n, p in module_plain.named_parameters() if p.requires_grad}
for step in range(steps):
    module_plain.zero_grad()
    module_plain(*inputs_plain)[0].backward()
    with torch.no_grad():
        for p in plain_params.values():
            p.add_(p.grad * minus_lr)

worst = worst_state = 0.0
plain_close = True
compressed = 0
for n, p in params.items():
    ref = p.detach().double().numpy()
    got = ours[n].astype(np.float64).reshape(ref.shape)
    moved = np.abs(ref - initial[n].double().numpy()).max() + 1e-30
    worst = max(worst, np.abs(got - ref).max() / moved)
    plain_ref = plain_params[n].detach().double().numpy()
    if np.abs(got - plain_ref).max() > 0.05 * moved:
        plain_close = False
    if n in state:
        compressed += 1
        key = n + ".powersgd_error"
        got_e = ours_state[key].astype(np.float64)
        ref_e = np.stack([e.double().numpy() for e in state[n][1]])
        got_e = got_e.reshape(ref_e.shape).sum(0)
        ref_e = ref_e.sum(0)
        scale = np.abs(ref_e).max() + 1e-30
        err = np.abs(got_e - ref_e).max() / scale
        if err > 1e-3:
            print("  %s: residual error %.2e" % (n, err))
        worst_state = max(worst_state, err)

loss_err = max(abs(a - b) / abs(b) for a, b in zip(ours_losses, ref_losses))
print("%s powersgd:%d on %d ranks: %d steps, %d of %d parameters compressed; worst "
      "weight error %.2e, residual error %.2e (of what they changed by); "
      "worst loss error %.2e; weights %s uncompressed SGD's" % (
          name, rank, ranks, steps, compressed, len(params), worst, worst_state,
          loss_err, "equal" if plain_close else "differ from"))
ok = (len(ours_losses) == steps and compressed > 0 and worst <= 1e-3 and
      worst_state <= 1e-3 and loss_err <= 1e-5 and not plain_close)
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
