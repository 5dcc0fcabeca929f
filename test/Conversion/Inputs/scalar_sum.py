"""Prints a function summing N scalar tensor arguments with a chain of
dist.add ops (N from argv, default 300)."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
args = ", ".join("%%a%d: tensor<f32>" % i for i in range(n))
print("func.func @sum(%s) -> tensor<f32> {" % args)
print("  %s0 = dist.add %a0, %a1 : (tensor<f32>, tensor<f32>) -> tensor<f32>")
for i in range(2, n):
    print("  %%s%d = dist.add %%s%d, %%a%d : (tensor<f32>, tensor<f32>) -> tensor<f32>" % (i - 1, i - 2, i))
print("  return %%s%d : tensor<f32>" % (n - 2))
print("}")
