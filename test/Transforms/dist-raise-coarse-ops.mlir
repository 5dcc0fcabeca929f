// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-raise-coarse-ops))' | FileCheck %s

// PyTorch's export of nn.LayerNorm(128).
// CHECK-LABEL: func @layer_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<2x64x128xf32>, %[[G:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[Y:.*]] = dist.layer_norm %[[X]], %[[G]], %[[B]] axis = 2 {epsilon = 9.9999997473787516E-6 : f64}
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_affine(%x: tensor<2x64x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<2x64x128xf32> {
  %two = dist.constant dense<2.0> : tensor<f32>
  %eps = dist.constant dense<9.99999974E-6> : tensor<f32>
  %mean = dist.reduce_mean %x axes = [2] {keep_dims} : (tensor<2x64x128xf32>) -> tensor<2x64x1xf32>
  %d = dist.sub %x, %mean : (tensor<2x64x128xf32>, tensor<2x64x1xf32>) -> tensor<2x64x128xf32>
  %sq = dist.pow %d, %two : (tensor<2x64x128xf32>, tensor<f32>) -> tensor<2x64x128xf32>
  %var = dist.reduce_mean %sq axes = [2] {keep_dims} : (tensor<2x64x128xf32>) -> tensor<2x64x1xf32>
  %ve = dist.add %var, %eps : (tensor<2x64x1xf32>, tensor<f32>) -> tensor<2x64x1xf32>
  %std = dist.sqrt %ve : tensor<2x64x1xf32>
  %n = dist.div %d, %std : (tensor<2x64x128xf32>, tensor<2x64x1xf32>) -> tensor<2x64x128xf32>
  %s = dist.mul %n, %g : (tensor<2x64x128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
  %y = dist.add %b, %s : (tensor<128xf32>, tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  return %y : tensor<2x64x128xf32>
}

// -----

// Without the affine part (elementwise_affine=False), over two trailing
// dimensions, with the square written as a product.
// CHECK-LABEL: func @layer_norm_plain
// CHECK-DAG: %[[ONES:.*]] = dist.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[ZEROS:.*]] = dist.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: dist.layer_norm %{{.*}}, %[[ONES]], %[[ZEROS]] axis = 1 {epsilon = 0.0010000000474974513 : f64}
// CHECK-NOT: dist.reduce_mean
func.func @layer_norm_plain(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %eps = dist.constant dense<1.0e-3> : tensor<f32>
  %mean = dist.reduce_mean %x axes = [1, 2] {keep_dims} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %d = dist.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %sq = dist.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = dist.reduce_mean %sq axes = [1, 2] {keep_dims} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %ve = dist.add %eps, %var : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %std = dist.sqrt %ve : tensor<2x1x1xf32>
  %n = dist.div %d, %std : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  return %n : tensor<2x4x8xf32>
}

// -----

// Not a layer norm: the statistics run over a leading dimension, or the
// "variance" is a third power. Both stay as they are.
// CHECK-LABEL: func @not_layer_norm
// CHECK-NOT: dist.layer_norm
// CHECK-COUNT-2: dist.div
func.func @not_layer_norm(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %two = dist.constant dense<2.0> : tensor<f32>
  %three = dist.constant dense<3.0> : tensor<f32>
  %eps = dist.constant dense<1.0e-5> : tensor<f32>
  %mean0 = dist.reduce_mean %x axes = [0] {keep_dims} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %d0 = dist.sub %x, %mean0 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %sq0 = dist.pow %d0, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %var0 = dist.reduce_mean %sq0 axes = [0] {keep_dims} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %ve0 = dist.add %var0, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %std0 = dist.sqrt %ve0 : tensor<1x8xf32>
  %n0 = dist.div %d0, %std0 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %mean1 = dist.reduce_mean %x axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d1 = dist.sub %x, %mean1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %sq1 = dist.pow %d1, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %var1 = dist.reduce_mean %sq1 axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %ve1 = dist.add %var1, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std1 = dist.sqrt %ve1 : tensor<4x1xf32>
  %n1 = dist.div %d1, %std1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %n0, %n1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// PyTorch's export of nn.GELU(): x * (1 + erf(x / sqrt(2))) * 0.5, and the
// same with the factors in another order and x * (1 / sqrt(2)).
// CHECK-LABEL: func @gelu_erf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[A:.*]] = dist.gelu %[[X]] : tensor<4x8xf32>
// CHECK-DAG: %[[B:.*]] = dist.gelu %[[X]] : tensor<4x8xf32>
// CHECK-NOT: dist.erf
// CHECK: return %[[A]], %[[B]]
func.func @gelu_erf(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %sqrt2 = dist.constant dense<1.41421354> : tensor<f32>
  %rsqrt2 = dist.constant dense<0.707106769> : tensor<f32>
  %one = dist.constant dense<1.0> : tensor<f32>
  %half = dist.constant dense<0.5> : tensor<f32>
  %a0 = dist.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %a1 = dist.erf %a0 : tensor<4x8xf32>
  %a2 = dist.add %a1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %a3 = dist.mul %x, %a2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a4 = dist.mul %a3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b0 = dist.mul %x, %rsqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b1 = dist.erf %b0 : tensor<4x8xf32>
  %b2 = dist.add %one, %b1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b3 = dist.mul %half, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b4 = dist.mul %b3, %b2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a4, %b4 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// GPT-2's new_gelu: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func @gelu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[Y:.*]] = dist.gelu %[[X]] {approximate_tanh} : tensor<4x8xf32>
// CHECK-NOT: dist.tanh
// CHECK: return %[[Y]]
func.func @gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %half = dist.constant dense<0.5> : tensor<f32>
  %one = dist.constant dense<1.0> : tensor<f32>
  %three = dist.constant dense<3.0> : tensor<f32>
  %c = dist.constant dense<0.044715> : tensor<f32>
  %k = dist.constant dense<0.797884583> : tensor<f32>
  %0 = dist.mul %half, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = dist.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = dist.mul %c, %1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = dist.add %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = dist.mul %k, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = dist.tanh %4 : tensor<4x8xf32>
  %6 = dist.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = dist.mul %0, %6 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// nn.GELU(approximate='tanh') as PyTorch 1.13 exports it: the cube as
// x * (x * x), the constant outside, and the 0.5 applied last.
// CHECK-LABEL: func @gelu_tanh_torch
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[Y:.*]] = dist.gelu %[[X]] {approximate_tanh} : tensor<4x8xf32>
// CHECK-NOT: dist.tanh
// CHECK: return %[[Y]]
func.func @gelu_tanh_torch(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %half = dist.constant dense<0.5> : tensor<f32>
  %one = dist.constant dense<1.0> : tensor<f32>
  %c = dist.constant dense<0.044715> : tensor<f32>
  %k = dist.constant dense<0.797884583> : tensor<f32>
  %0 = dist.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = dist.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = dist.mul %c, %1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = dist.add %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = dist.mul %k, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = dist.tanh %4 : tensor<4x8xf32>
  %6 = dist.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = dist.mul %x, %6 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = dist.mul %7, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}

// -----

// Not GELU: the outer factor is 0.6, or erf reads another tensor.
// CHECK-LABEL: func @not_gelu
// CHECK-NOT: dist.gelu
// CHECK-COUNT-2: dist.erf
func.func @not_gelu(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %sqrt2 = dist.constant dense<1.41421354> : tensor<f32>
  %one = dist.constant dense<1.0> : tensor<f32>
  %half = dist.constant dense<0.5> : tensor<f32>
  %other = dist.constant dense<0.6> : tensor<f32>
  %a0 = dist.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %a1 = dist.erf %a0 : tensor<4x8xf32>
  %a2 = dist.add %a1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %a3 = dist.mul %x, %a2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a4 = dist.mul %a3, %other : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b0 = dist.div %z, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b1 = dist.erf %b0 : tensor<4x8xf32>
  %b2 = dist.add %b1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %b3 = dist.mul %x, %b2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b4 = dist.mul %b3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %a4, %b4 : tensor<4x8xf32>, tensor<4x8xf32>
}
