// RUN: dist-opt %s --convert-dist-to-linalg --dist-fuse-elementwise | FileCheck %s

// Cross-entropy's one-hot: the class numbers 0..4 (a constant the gradient
// builds) become the loop index; the constant is no longer read.
// CHECK-LABEL: func.func @one_hot
// CHECK-NOT: arith.constant dense
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x1xi64>)
// CHECK: ^bb0(%[[LABEL:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.cmpi eq, %[[LABEL]], %[[C]]
func.func @one_hot(%labels: tensor<4x1xi64>) -> tensor<4x5xf32> {
  %iota = dist.constant dense<[[0, 1, 2, 3, 4]]> : tensor<1x5xi64>
  %eq = dist.compare eq, %labels, %iota : (tensor<4x1xi64>, tensor<1x5xi64>) -> tensor<4x5xi1>
  %f = dist.cast %eq : tensor<4x5xi1> to tensor<4x5xf32>
  return %f : tensor<4x5xf32>
}

// Not 0..n-1 (a permutation): still read.
// CHECK-LABEL: func.func @not_iota
// CHECK: arith.constant dense<{{\[}}[0, 2, 1]]> : tensor<1x3xi64>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x1xi64>, tensor<1x3xi64>)
func.func @not_iota(%labels: tensor<4x1xi64>) -> tensor<4x3xf32> {
  %c = dist.constant dense<[[0, 2, 1]]> : tensor<1x3xi64>
  %eq = dist.compare eq, %labels, %c : (tensor<4x1xi64>, tensor<1x3xi64>) -> tensor<4x3xi1>
  %f = dist.cast %eq : tensor<4x3xi1> to tensor<4x3xf32>
  return %f : tensor<4x3xf32>
}

// 0..5 over two dimensions is not an index of one loop: still read.
// CHECK-LABEL: func.func @two_dims
// CHECK: arith.constant dense<{{\[}}[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x3xi32>, tensor<2x3xi32>)
func.func @two_dims(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %c = dist.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
  %s = dist.add %x, %c : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %s : tensor<2x3xi32>
}

// Position ids 0..7 added to a batch of 2 rows (read along the second
// loop), in i32.
// CHECK-LABEL: func.func @positions
// CHECK-NOT: arith.constant dense
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<2x8xi32>)
// CHECK: linalg.index 1 : index
// CHECK: arith.index_cast %{{.*}} : index to i32
func.func @positions(%x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  %c = dist.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi32>
  %s = dist.add %x, %c : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
  return %s : tensor<2x8xi32>
}

// bf16 logits widened to f32 and read at each label (a gather) and by a
// reduction: the gather reads the bf16 value and widens it, and the widening
// is copied into the reduction; no f32 logits are written.
// CHECK-LABEL: func.func @pick_narrow
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xbf16>, %[[Y:.*]]: tensor<4xi64>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Y]] : tensor<4xi64>)
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %{{.*}}] : tensor<4x6xbf16>
// CHECK: arith.extf %[[V]] : bf16 to f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4x6xbf16>)
// CHECK: arith.extf
// CHECK: arith.maximumf
// CHECK-NOT: tensor<4x6xf32>
// CHECK: return
func.func @pick_narrow(%x: tensor<4x6xbf16>, %y: tensor<4xi64>) -> tensor<f32> {
  %w = dist.cast %x : tensor<4x6xbf16> to tensor<4x6xf32>
  %l = dist.cross_entropy sum, %w, %y : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
