"""An inference executable (dist-compile --eval) reading a trainer's
checkpoint computes what PyTorch computes in eval mode with the
checkpoint's tensors: the logits within 1e-5 (relative, by norm).

usage: eval_check.py MODEL EXE PARAMS.safetensors WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
import torch

from examples_io import example, read_tensors

name, exe, params, work = sys.argv[1:5]
module, inputs, args = example(name, work)
saved = read_tensors(params)
state = module.state_dict()
loaded = 0
with torch.no_grad():
    for key, value in state.items():
        if key in saved:
            value.copy_(torch.from_numpy(saved[key].copy()))
            loaded += 1
module.eval()
with torch.no_grad():
    loss, logits = module(*inputs)
out = os.path.join(work, "out")
subprocess.run([exe, "--weights", params, "--output-dir", out] + args, check=True)
ours = np.load(os.path.join(out, "logits.npy"))
ref = logits.double().numpy()
err = np.linalg.norm(ours - ref) / np.linalg.norm(ref)
print("%s: %d tensors from the checkpoint, logits relative error %.2e" %
      (name, loaded, err))
print("ok" if err <= 1e-5 else "FAILED")
sys.exit(0 if err <= 1e-5 else 1)
