// RUN: dist-opt %s --convert-dist-to-linalg | FileCheck %s

// Cross-entropy reads each position's logit at its label (tensor.extract at
// the label, clamped into [0, C) where the label is ignored or out of
// range) instead of reducing over the classes to pick one: the classes are
// read only by the log-sum-exp's max and sum.
// CHECK-LABEL: func.func @cross_entropy_pick
// CHECK-SAME: (%[[X:.*]]: tensor<2x10x6xf32>, %[[Y:.*]]: tensor<2x6xi32>, %[[W:.*]]: tensor<10xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[Y]] : tensor<2x6xi32>)
// CHECK: ^bb0(%[[L:.*]]: i32,
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[L]]
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[L]]
// CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]]
// CHECK: %[[NI:.*]] = arith.cmpi ne, %[[L]]
// CHECK: %[[TAKE:.*]] = arith.andi %[[IN]], %[[NI]]
// CHECK: %[[SEL:.*]] = arith.select %[[TAKE]], %[[L]]
// CHECK: %[[CLS:.*]] = arith.index_cast %[[SEL]] : i32 to index
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[D:.*]] = linalg.index 1
// CHECK: tensor.extract %[[X]][%[[N]], %[[CLS]], %[[D]]] : tensor<2x10x6xf32>
// CHECK: tensor.extract %[[W]][%[[CLS]]] : tensor<10xf32>
// CHECK: linalg.yield
// The max and the sum of exponentials reduce over the classes.
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.maximumf
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: math.exp
// CHECK: cf.assert {{.*}} "dist.cross_entropy: a label is outside [0, 10) and is not ignore_index
func.func @cross_entropy_pick(%x: tensor<2x10x6xf32>, %y: tensor<2x6xi32>, %w: tensor<10xf32>) -> tensor<f32> {
  %0 = dist.cross_entropy mean, %x, %y weight %w {ignore_index = -100 : i64} : (tensor<2x10x6xf32>, tensor<2x6xi32>, tensor<10xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// 2-d logits without weights or ignore_index: the class is the second
// coordinate, the weight 1 where the label is in range.
// CHECK-LABEL: func.func @nll_pick
// CHECK-SAME: (%[[X:.*]]: tensor<8x512xf32>, %[[Y:.*]]: tensor<8xi64>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[Y]] : tensor<8xi64>)
// CHECK: %[[CLS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: tensor.extract %[[X]][%[[N]], %[[CLS]]] : tensor<8x512xf32>
// CHECK-NOT: iterator_types = ["parallel", "reduction"]
// CHECK: return
func.func @nll_pick(%x: tensor<8x512xf32>, %y: tensor<8xi64>) -> tensor<f32> {
  %0 = dist.nll_loss sum, %x, %y : (tensor<8x512xf32>, tensor<8xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}
