"""Checks parameter-server mode's --grad-compression (bf16, fp16, topk:F)
against PyTorch: STEPS SGD steps (lr LR, the same batch each step) of a
dist-compile --parallel=ps --mesh=WORKERS executable under the launcher,
and the same steps of the module it was exported from, with the pushes
re-implemented in compressed_sgd.py (the average of what the workers
send).

Passes when every step's loss is within 1e-5 relative of PyTorch's and the
run's losses are not those of uncompressed pushes (re-computed the same
way without compression): an executable that did not compress fails.

usage: ps_compression_vs_pytorch.py MODEL EXE WORKDIR CODEC LR STEPS WORKERS LAUNCHER...
"""
import json
import os
import subprocess
import sys

from compressed_sgd import example, sgd, worst

name, exe, work, codec, lr, steps, workers = sys.argv[1:8]
launcher = sys.argv[8:]
lr, steps, workers = float(lr), int(steps), int(workers)

_, _, args = example(name, work)
log = os.path.join(work, "log.jsonl")
subprocess.run(launcher + [exe, "--steps", str(steps), "--log-json", log] + args,
               check=True, stdout=subprocess.DEVNULL)
ours = [json.loads(line)["loss"] for line in open(log)]


def reference(kind):
    return sgd(name, work, kind, lr, steps, workers, averaged=True)[0]


ref = reference(codec)
plain = reference("none")
match = len(ours) == steps and worst(ours, ref) <= 1e-5
differs = worst(ours, plain) > 10 * worst(ours, ref)
print("%s %s: %d steps, losses within %.1e of the %s-compressed pushes (uncompressed: %.1e off)"
      % (name, codec, len(ours), worst(ours, ref), codec, worst(ours, plain)))
print("ok" if match and differs else "FAIL")
sys.exit(0 if match and differs else 1)
