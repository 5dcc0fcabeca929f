"""Checks data parallelism's --grad-compression=topk:F against PyTorch:
STEPS SGD steps (lr LR, the same batch each step) of a dist-compile --train
--mesh=RANKS --parallel=dp executable under the launcher, and the same
steps of the module it was exported from, with what each rank sends
re-implemented in compressed_sgd.py: rank r adds its part of the gradient
of the global mean loss to its residual, sends the k = max(1, ceil(F n))
elements largest in magnitude (ties: the lower index) and keeps the rest;
the gradient is the sum of what the ranks send.

Passes when every step's loss is within 1e-5 relative of PyTorch's, the
final weights and every rank's residual (from the checkpoint's
`<name>.topk_error`, RANKS x the parameter's shape) are within 1e-4 of the
size of what they changed by (an element near a tie in magnitude may be
picked on one side and not on the other only where float32 sums in another
order differ), and the weights are not those of uncompressed SGD (an
executable that did not compress fails).

usage: topk_vs_pytorch.py MODEL TRAINER WORKDIR F LR STEPS RANKS LAUNCHER...
"""
import sys

import numpy as np

from compressed_sgd import example, read_tensors, sgd, train, worst

name, trainer, work, fraction, lr, steps, ranks = sys.argv[1:8]
launcher = sys.argv[8:]
lr, steps, ranks = float(lr), int(steps), int(ranks)
kind = "topk:" + fraction

_, _, args = example(name, work)
ours_losses, ours, ours_state = train(launcher, trainer, work, steps, args)
initial = read_tensors(trainer + ".safetensors")

ref_losses, ref_weights, residuals = sgd(name, work, kind, lr, steps, ranks, averaged=False)
_, plain_weights, _ = sgd(name, work, "none", lr, steps, ranks, averaged=False)

weight_err = residual_err = 0.0
plain_close = True
for n, ref in ref_weights.items():
    ref = ref.astype(np.float64)
    got = ours[n].astype(np.float64).reshape(ref.shape)
    moved = np.abs(ref - initial[n].astype(np.float64).reshape(ref.shape)).max() + 1e-30
    weight_err = max(weight_err, np.abs(got - ref).max() / moved)
    if np.abs(got - plain_weights[n]).max() > 0.05 * moved:
        plain_close = False
    ref_e = np.stack([r[n].double().numpy() for r in residuals])
    got_e = ours_state[n + ".topk_error"].astype(np.float64).reshape(ref_e.shape)
    err_w = np.abs(got - ref).max() / moved
    err_e = np.abs(got_e - ref_e).max() / moved
    if max(err_w, err_e) > 1e-4:
        print("  %s: weight error %.1e, residual error %.1e" % (n, err_w, err_e))
    residual_err = max(residual_err, err_e)

loss_err = worst(ours_losses, ref_losses)
print("%s %s on %d ranks: %d steps, worst loss error %.1e, weight error %.1e, "
      "residual error %.1e (of what the weights moved by); weights %s "
      "uncompressed SGD's" % (name, kind, ranks, len(ours_losses), loss_err,
                              weight_err, residual_err,
                              "equal" if plain_close else "differ from"))
ok = (len(ours_losses) == steps and loss_err <= 1e-5 and weight_err <= 1e-4 and
      residual_err <= 1e-4 and not plain_close)
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
