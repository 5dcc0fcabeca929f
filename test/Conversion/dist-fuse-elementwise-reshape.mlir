// RUN: dist-opt %s --split-input-file --dist-fuse-elementwise | FileCheck %s

// Reshapes between elementwise ops (ONNX's 3-d logits, 2-d cross-entropy)
// no longer keep them apart.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1) -> (d0)>

// bf16 logits: the rounding of the product stays one op (so that the
// product can write bf16 itself), the widening cast moves after the
// reshapes to cross-entropy's readers, which each extend the bf16 values.
// CHECK-LABEL: func.func @logits
// CHECK: %[[ROUND:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: linalg.yield
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[ROUND]] : tensor<8x16xbf16>)
// CHECK: arith.extf
// CHECK: arith.maximumf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[ROUND]], %[[MAX]] : tensor<8x16xbf16>, tensor<8xf32>)
// CHECK: arith.extf
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[Y]]
func.func @logits(%p: tensor<8x16xf32>, %init: tensor<8xf32>) -> tensor<8x16xf32> {
  %e2b = tensor.empty() : tensor<8x16xbf16>
  %round = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e2b : tensor<8x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16xbf16>
  %x3 = tensor.expand_shape %round [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xbf16> into tensor<2x4x16xbf16>
  %e3 = tensor.empty() : tensor<2x4x16xf32>
  %wide = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x3 : tensor<2x4x16xbf16>) outs(%e3 : tensor<2x4x16xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %r = arith.extf %v : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %w2 = tensor.collapse_shape %wide [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %max = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%w2 : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %max : tensor<8x16xf32>, tensor<8xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %r = arith.subf %v, %m : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The logits' gradient, computed in 2-d and rounded in 3-d: the rounding
// moves before the reshape and fuses, one op writing bf16.
// CHECK-LABEL: func.func @gradient
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xbf16>)
// CHECK: arith.mulf
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: %[[E:.*]] = tensor.expand_shape %[[G]]
// CHECK: return %[[E]]
func.func @gradient(%x: tensor<8x16xf32>) -> tensor<2x4x16xbf16> {
  %two = arith.constant 2.0 : f32
  %e2 = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %g3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %e3 = tensor.empty() : tensor<2x4x16xbf16>
  %r3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g3 : tensor<2x4x16xf32>) outs(%e3 : tensor<2x4x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16xbf16>
  return %r3 : tensor<2x4x16xbf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A producer that something else reads too stays where it is: moving the
// reshape would not let the two fuse.
// CHECK-LABEL: func.func @shared_producer
// CHECK: tensor.expand_shape
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x16xf32>)
func.func @shared_producer(%x: tensor<8x16xf32>) -> (tensor<2x4x16xbf16>, tensor<8x16xf32>) {
  %two = arith.constant 2.0 : f32
  %e2 = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %g3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %e3 = tensor.empty() : tensor<2x4x16xbf16>
  %r3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g3 : tensor<2x4x16xf32>) outs(%e3 : tensor<2x4x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16xbf16>
  return %r3, %g : tensor<2x4x16xbf16>, tensor<8x16xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// An op that reads its output's old values (an accumulation into %acc)
// is not recomputed on the producer's shape (its tensor.empty would drop
// %acc).
// CHECK-LABEL: func.func @accumulates
// CHECK: tensor.expand_shape
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x16xf32>) outs(%arg1 : tensor<2x4x16xf32>)
// CHECK: arith.addf
func.func @accumulates(%x: tensor<8x16xf32>, %acc: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %e2 = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %g3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %s = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g3 : tensor<2x4x16xf32>) outs(%acc : tensor<2x4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  return %s : tensor<2x4x16xf32>
}
