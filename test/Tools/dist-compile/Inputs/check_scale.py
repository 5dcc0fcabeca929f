"""Checks the outputs of Inputs/scale.mlir's executable against numpy (float64)."""
import sys
import numpy as np

x = np.load(sys.argv[1]).astype(np.float64)
w = np.array([1.0, -2.0, 0.5, 3.0])
y = np.exp(np.tanh(x * w))
got_y = np.load(sys.argv[2] + "/y.npy")
got_s = np.load(sys.argv[2] + "/s.npy")
assert got_y.dtype == np.float32 and got_y.shape == (2, 4), got_y
assert got_s.dtype == np.float32 and got_s.shape == (), got_s
np.testing.assert_allclose(got_y, y, rtol=1e-6)
np.testing.assert_allclose(got_s, y.sum(), rtol=1e-6)
print("scale: outputs match numpy")
