"""add-loss.test: writes a model without a loss and its inputs (one
argument), or checks the trainer's first loss against numpy's
cross-entropy of the forward executable's logits (three arguments)."""
import json
import os
import sys

import numpy as np

work = sys.argv[1]
if len(sys.argv) == 2:
    rng = np.random.default_rng(5)
    w = rng.uniform(-1, 1, size=(8, 5)).astype(np.float32)
    with open(os.path.join(work, "model.mlir"), "w") as f:
        f.write('dist.parameter @w : tensor<8x5xf32> = dense<%s> : tensor<8x5xf32>\n'
                % json.dumps(w.tolist()))
        f.write('func.func @forward(%x: tensor<2x3x8xf32> {dist.input_name = "x"},\n'
                '    %w: tensor<8x5xf32> {dist.parameter = @w})\n'
                '    -> (tensor<2x3x5xf32> {dist.output_name = "logits"}) {\n'
                '  %y = dist.matmul %x, %w : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>\n'
                '  return %y : tensor<2x3x5xf32>\n}\n')
    np.save(os.path.join(work, "x.npy"), rng.uniform(-1, 1, size=(2, 3, 8)).astype(np.float32))
    np.save(os.path.join(work, "targets.npy"), rng.integers(0, 5, size=(2, 3)))
    sys.exit(0)
logits = np.load(sys.argv[2]).astype(np.float64).reshape(-1, 5)
targets = np.load(os.path.join(work, "targets.npy")).reshape(-1)
logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
ref = -logp[np.arange(len(targets)), targets].mean()
first = json.loads(open(sys.argv[3]).readline())["loss"]
ok = abs(first - ref) <= 1e-5 * abs(ref)
print("%s loss of step 1 == numpy cross-entropy (%.7g vs %.7g)"
      % ("ok" if ok else "FAIL", first, ref))
sys.exit(0 if ok else 1)
