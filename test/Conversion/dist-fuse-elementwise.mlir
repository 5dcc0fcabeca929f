// RUN: dist-opt %s --convert-dist-to-linalg --dist-fuse-elementwise | FileCheck %s

// A chain of three elementwise ops is one loop nest; the matmul stays named.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = dist.matmul %x, %w : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %1 = dist.add %0, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %2 = dist.tanh %1 : tensor<8x16xf32>
  %3 = dist.mul %2, %2 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}
