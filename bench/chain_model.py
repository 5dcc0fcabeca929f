"""Writes a dist-dialect model whose forward is a chain of N (mul, tanh)
pairs on one weight, a stress test for passes whose cost could grow faster
than the op count (bench/pass-scaling.sh).

usage: python3 bench/chain_model.py N > chain.mlir
"""
import sys
n = int(sys.argv[1])
lines = ['dist.parameter @w : tensor<4x8xf32> = dense<0.5> : tensor<4x8xf32>',
         'func.func @forward(%x: tensor<4x8xf32> {dist.input_name = "x"}, %w: tensor<4x8xf32> {dist.parameter = @w}) -> (tensor<f32> {dist.output_name = "loss"}) {']
prev = '%x'
for i in range(n):
    lines.append(f'  %m{i} = dist.mul {prev}, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>')
    lines.append(f'  %t{i} = dist.tanh %m{i} : tensor<4x8xf32>')
    prev = f'%t{i}'
lines.append(f'  %l = dist.reduce_sum {prev} axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>')
lines.append('  return %l : tensor<f32>')
lines.append('}')
print("\n".join(lines))
