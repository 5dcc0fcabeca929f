// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-fold-transpose-into-matmul))' | FileCheck %s

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>

// x @ W^T reads W with a transposed map; the transpose is gone.
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%arg0, %arg1 : tensor<64x128xf32>, tensor<384x128xf32>)
func.func @linear(%x: tensor<64x128xf32>, %w: tensor<384x128xf32>) -> tensor<64x384xf32> {
  %e = tensor.empty() : tensor<128x384xf32>
  %t = linalg.transpose ins(%w : tensor<384x128xf32>) outs(%e : tensor<128x384xf32>) permutation = [1, 0]
  %c = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<64x384xf32>
  %z = linalg.fill ins(%c : f32) outs(%o : tensor<64x384xf32>) -> tensor<64x384xf32>
  %y = linalg.matmul ins(%x, %t : tensor<64x128xf32>, tensor<128x384xf32>) outs(%z : tensor<64x384xf32>) -> tensor<64x384xf32>
  return %y : tensor<64x384xf32>
}

// (x^T dy)^T = dy^T x: the operands exchanged, the result not transposed.
// CHECK-LABEL: func.func @weight_gradient
// CHECK-NOT: linalg.transpose
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<384x128xf32>)
// CHECK: %[[P:.*]] = linalg.matmul indexing_maps = [#[[AT]], #[[B]], #[[C]]] ins(%arg1, %arg0 : tensor<64x384xf32>, tensor<64x128xf32>) outs(%[[F]] : tensor<384x128xf32>)
// CHECK: return %[[P]]
func.func @weight_gradient(%x: tensor<64x128xf32>, %dy: tensor<64x384xf32>) -> tensor<384x128xf32> {
  %c = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<128x384xf32>
  %z = linalg.fill ins(%c : f32) outs(%o : tensor<128x384xf32>) -> tensor<128x384xf32>
  %p = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %dy : tensor<64x128xf32>, tensor<64x384xf32>) outs(%z : tensor<128x384xf32>) -> tensor<128x384xf32>
  %e = tensor.empty() : tensor<384x128xf32>
  %t = linalg.transpose ins(%p : tensor<128x384xf32>) outs(%e : tensor<384x128xf32>) permutation = [1, 0]
  return %t : tensor<384x128xf32>
}

// A transpose something else reads too stays for that reader; a product
// read elsewhere is not exchanged; a permutation other than the last two
// dimensions is not a transpose flag.
// CHECK-LABEL: func.func @kept
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg1
// CHECK: %[[P:.*]] = linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%arg0, %arg1
// CHECK: linalg.transpose ins(%[[P]]
// CHECK: linalg.transpose ins(%arg2 {{.*}} permutation = [1, 0, 2]
// CHECK: return %[[T]]
func.func @kept(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>, %b: tensor<2x3x5xf32>) -> (tensor<4x6xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<3x2x5xf32>, tensor<8x6xf32>) {
  %e = tensor.empty() : tensor<4x6xf32>
  %t = linalg.transpose ins(%w : tensor<6x4xf32>) outs(%e : tensor<4x6xf32>) permutation = [1, 0]
  %c = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<8x6xf32>
  %z = linalg.fill ins(%c : f32) outs(%o : tensor<8x6xf32>) -> tensor<8x6xf32>
  %y = linalg.matmul ins(%x, %t : tensor<8x4xf32>, tensor<4x6xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  %e2 = tensor.empty() : tensor<6x8xf32>
  %yt = linalg.transpose ins(%y : tensor<8x6xf32>) outs(%e2 : tensor<6x8xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<3x2x5xf32>
  %bt = linalg.transpose ins(%b : tensor<2x3x5xf32>) outs(%e3 : tensor<3x2x5xf32>) permutation = [1, 0, 2]
  return %t, %y, %yt, %bt, %y : tensor<4x6xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<3x2x5xf32>, tensor<8x6xf32>
}
