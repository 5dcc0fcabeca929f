// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-splats-to-fill))' | FileCheck %s

// CHECK-LABEL: func.func @zeros
// CHECK: %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<512x128xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[E]] : tensor<512x128xf32>) -> tensor<512x128xf32>
// CHECK: return %[[F]]
func.func @zeros() -> tensor<512x128xf32> {
  %z = arith.constant dense<0.0> : tensor<512x128xf32>
  return %z : tensor<512x128xf32>
}

// Small splats and non-splat constants stay.
// CHECK-LABEL: func.func @kept
// CHECK: arith.constant dense<1> : tensor<8xi64>
// CHECK: arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
// CHECK-NOT: linalg.fill
func.func @kept() -> (tensor<8xi64>, tensor<4xi64>) {
  %a = arith.constant dense<1> : tensor<8xi64>
  %b = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  return %a, %b : tensor<8xi64>, tensor<4xi64>
}
