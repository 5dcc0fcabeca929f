// RUN: dist-opt %s --split-input-file --dist-fuse-elementwise | FileCheck %s

// An elementwise producer that several ops read is fused into its first
// elementwise consumer as one op with both results (multi-output fusion):
// computed once (one exp), never copied into two ops.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Two elementwise readers: one op computes exp once and yields both
// readers' results.
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-COUNT-1: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @two_readers(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %one : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An elementwise reader first, a row sum after it: the exp and the first
// reader become one op with two results (the exp's values kept for the
// sum), the sum stays an op of its own.
// CHECK-LABEL: func.func @then_reduction
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: linalg.yield
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[F]]#0
// CHECK-NOT: math.exp
// CHECK: return %[[F]]#1, %[[S]]
func.func @then_reduction(%x: tensor<8x16xf32>, %z: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %two = arith.constant 2.0 : f32
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %a, %s : tensor<8x16xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row sum first, an elementwise reader after it: fusing the exp into
// the later reader would move it after the sum that reads it, so nothing
// fuses: three ops, one exp.
// CHECK-LABEL: func.func @reduction_first
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}ins(%[[P]]
// CHECK: linalg.generic {{.*}}ins(%[[P]]
// CHECK-NOT: math.exp
// CHECK: return
func.func @reduction_first(%x: tensor<8x16xf32>, %z: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %two = arith.constant 2.0 : f32
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %a, %s : tensor<8x16xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#none = affine_map<() -> ()>

// A scalar that two ops read broadcast (the gradient norm's clip factor,
// read by every parameter's update): fusing it would compute it at every
// point of the first reader and write it from each of them, so it stays
// an op of its own, computed once.
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = []
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[S]]
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[S]]
// CHECK-NOT: math.sqrt
// CHECK: return
func.func @broadcast_scalar(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %n: tensor<f32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %s = linalg.generic {indexing_maps = [#none, #none], iterator_types = []}
      ins(%n : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.sqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %a = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<8x16xf32>, tensor<f32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %r = arith.mulf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %s : tensor<8x16xf32>, tensor<f32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %r = arith.mulf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A widening cast (bf16 logits extended to f32) read by a row reduction
// and an elementwise op: each reader recomputes the cast from the bf16
// values, and the cast's own op is gone (no multi-output fusion for it).
// CHECK-LABEL: func.func @widening_cast
// CHECK-NOT: ins(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x16xbf16>)
// CHECK: arith.extf
// CHECK: arith.maximumf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]] : tensor<8x16xbf16>, tensor<8xf32>)
// CHECK: arith.extf
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @widening_cast(%x: tensor<8x16xbf16>, %init: tensor<8xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xbf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %r = arith.extf %v : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%wide : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wide, %max : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %r = arith.subf %v, %m : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
