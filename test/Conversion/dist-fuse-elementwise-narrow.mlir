// RUN: dist-opt %s --split-input-file --dist-fuse-elementwise="recompute-narrow=true" | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-fuse-elementwise | FileCheck %s --check-prefix=OFF

// recompute-narrow (the CUDA pipelines'): an elementwise op read by n ops
// is copied into each when they read fewer bytes recomputing it (R per
// point each) than writing it (W) and reading it back n times:
// R * n < W * (1 + n).

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// GELU's gradient under bf16: a float32 product of two bf16 values (R = 4,
// W = 4), read by the bias gradient's column sum and by the rounding for
// the next product (n = 2: 8 < 12). Each reader computes it from the bf16
// values, and it is never written. Without the option it stays an op of
// its own (its first reader is a reduction: no multi-output fusion).
// CHECK-LABEL: func.func @gelu_grad
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%arg0, %arg1 : tensor<8x16xbf16>, tensor<8x16xbf16>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %arg1 : tensor<8x16xbf16>, tensor<8x16xbf16>)
// CHECK: arith.mulf
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: return
// OFF-LABEL: func.func @gelu_grad
// OFF-COUNT-3: linalg.generic
// OFF-NOT: linalg.generic
// OFF: return
func.func @gelu_grad(%a: tensor<8x16xbf16>, %b: tensor<8x16xbf16>, %z: tensor<16xf32>) -> (tensor<16xf32>, tensor<8x16xbf16>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %eb = tensor.empty() : tensor<8x16xbf16>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xbf16>, tensor<8x16xbf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%u: bf16, %v: bf16, %o: f32):
    %uf = arith.extf %u : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %r = arith.mulf %uf, %vf : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%eb : tensor<8x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16xbf16>
  return %s, %t : tensor<16xf32>, tensor<8x16xbf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two float32 inputs (R = 8, W = 4, n = 2: 16 is not below 12): not
// copied; multi-output fusion computes it once for both readers, as
// without the option.
// CHECK-LABEL: func.func @wide_inputs
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-COUNT-1: arith.subf
// CHECK-NOT: arith.subf
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @wide_inputs(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %two = arith.constant 2.0 : f32
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %r = arith.subf %u, %v : f32
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
    %r = arith.addf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Read by a sum over rows (its last loop): dist-row-kernels makes the ops
// over those rows one kernel that keeps the values in registers, so the exp
// is not copied (R = 4, W = 4 would qualify): one exp, as without the
// option.
// CHECK-LABEL: func.func @row_reader
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
// CHECK: return
func.func @row_reader(%x: tensor<8x16xf32>, %z: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
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
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
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

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>

// A bias added to a float32 product's (reshaped) result, read twice
// (R = 4, W = 4 would qualify): left for the product's epilogue
// (dist-matmul-to-runtime writes it with the product), not copied.
// CHECK-LABEL: func.func @epilogue
// CHECK: linalg.matmul
// CHECK-COUNT-1: arith.addf
// CHECK-NOT: arith.addf
// CHECK: return
func.func @epilogue(%x: tensor<8x4xf32>, %w: tensor<4x16xf32>, %b: tensor<16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %e = tensor.empty() : tensor<2x4x16xf32>
  %h = linalg.generic {indexing_maps = [#bias, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %m3 : tensor<16xf32>, tensor<2x4x16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %r = arith.addf %u, %v : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h : tensor<2x4x16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h : tensor<2x4x16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  return %a, %c : tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
#t = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Attention's projection under bf16: a float32 bias added to the bf16
// product, cut into query, key and value (R = 2, W = 4: the slices read 2
// bytes a point instead of the sum writing 4 and the slices reading 4
// back). Each slice computes the sum on its slice of the inputs, computes
// it on the head split's shape (the expand_shape folded into it), and the
// head split's transpose and rounding fuse with it: one op per slice,
// reading the bf16 values.
// CHECK-LABEL: func.func @qkv
// CHECK-NOT: tensor<2x4x24xf32>
// CHECK: %[[Q:.*]] = tensor.extract_slice %arg0[0, 0, 0] [2, 4, 8] [1, 1, 1] : tensor<2x4x24xbf16> to tensor<2x4x8xbf16>
// CHECK: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{.*}} into tensor<2x4x2x4xbf16>
// CHECK: %[[K:.*]] = tensor.extract_slice %arg0[0, 0, 8] [2, 4, 8] [1, 1, 1] : tensor<2x4x24xbf16> to tensor<2x4x8xbf16>
// CHECK: %[[K4:.*]] = tensor.expand_shape %[[K]] {{.*}} into tensor<2x4x2x4xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[Q4]] : tensor<2x4xf32>, tensor<2x4x2x4xbf16>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[K4]] : tensor<2x4xf32>, tensor<2x4x2x4xbf16>)
// CHECK-NOT: linalg.generic
// CHECK: return
// OFF-LABEL: func.func @qkv
// OFF: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x24xf32>)
func.func @qkv(%p: tensor<2x4x24xbf16>, %b: tensor<24xf32>) -> (tensor<2x2x4x4xbf16>, tensor<2x2x4x4xbf16>) {
  %e = tensor.empty() : tensor<2x4x24xf32>
  %s = linalg.generic {indexing_maps = [#bias, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %p : tensor<24xf32>, tensor<2x4x24xbf16>) outs(%e : tensor<2x4x24xf32>) {
  ^bb0(%u: f32, %v: bf16, %o: f32):
    %vf = arith.extf %v : bf16 to f32
    %r = arith.addf %u, %vf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x24xf32>
  %q = tensor.extract_slice %s[0, 0, 0] [2, 4, 8] [1, 1, 1] : tensor<2x4x24xf32> to tensor<2x4x8xf32>
  %k = tensor.extract_slice %s[0, 0, 8] [2, 4, 8] [1, 1, 1] : tensor<2x4x24xf32> to tensor<2x4x8xf32>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [2, 4, 2, 4] : tensor<2x4x8xf32> into tensor<2x4x2x4xf32>
  %k4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [2, 4, 2, 4] : tensor<2x4x8xf32> into tensor<2x4x2x4xf32>
  %eb = tensor.empty() : tensor<2x2x4x4xbf16>
  %qh = linalg.generic {indexing_maps = [#t, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q4 : tensor<2x4x2x4xf32>) outs(%eb : tensor<2x2x4x4xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x2x4x4xbf16>
  %kh = linalg.generic {indexing_maps = [#t, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k4 : tensor<2x4x2x4xf32>) outs(%eb : tensor<2x2x4x4xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x2x4x4xbf16>
  return %qh, %kh : tensor<2x2x4x4xbf16>, tensor<2x2x4x4xbf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A product's rounding to bf16 stays an op of its own, for the product to
// write the bf16 values itself (dist-matmul-to-runtime, decision 53); its
// reader (a widening for a float32 gradient) then reads 2 bytes a value.
// Without the option the rounding fuses into the reader, which reads the
// product's float32 values.
// CHECK-LABEL: func.func @rounding
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: linalg.yield
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<8x16xbf16>)
// OFF-LABEL: func.func @rounding
// OFF: %[[M:.*]] = linalg.matmul
// OFF: linalg.generic {{.*}} ins(%[[M]] : tensor<8x16xf32>)
// OFF: arith.truncf
// OFF: arith.extf
// OFF: return
func.func @rounding(%x: tensor<8x4xbf16>, %w: tensor<4x16xbf16>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x4xbf16>, tensor<4x16xbf16>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %eb = tensor.empty() : tensor<8x16xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x16xf32>) outs(%eb : tensor<8x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x16xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xbf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %u = arith.extf %v : bf16 to f32
    %t = arith.mulf %u, %two : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// A scalar's math function (AdamW's bias correction: a power of beta by the
// step, in float64) is not copied into the update under recompute-narrow,
// where every point of it (every GPU thread) would compute it again; the
// scalar's arithmetic (the clipping factor) still is. Without the option
// both fuse (the CPU hoists the power out of the loop).
// CHECK-LABEL: func.func @bias_correction
// CHECK: linalg.generic {{.*}}iterator_types = []{{.*}} ins(%arg0, %arg1 : tensor<f64>, tensor<f64>)
// CHECK: math.powf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK-NOT: math.powf
// CHECK: arith.addf
// CHECK-NOT: math.powf
// CHECK: return
// OFF-LABEL: func.func @bias_correction
// OFF: linalg.generic {{.*}}iterator_types = ["parallel"]
// OFF: math.powf
// OFF-NOT: linalg.generic
// OFF: return
#s = affine_map<() -> ()>
#b = affine_map<(d0) -> ()>
#i = affine_map<(d0) -> (d0)>
func.func @bias_correction(%beta: tensor<f64>, %step: tensor<f64>, %norm: tensor<f32>, %p: tensor<16xf32>) -> tensor<16xf32> {
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<f64>
  %pw = linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
      ins(%beta, %step : tensor<f64>, tensor<f64>) outs(%e0 : tensor<f64>) {
  ^bb0(%a: f64, %t: f64, %o: f64):
    %r = math.powf %a, %t : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %e1 = tensor.empty() : tensor<f32>
  %clip = linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%norm : tensor<f32>) outs(%e1 : tensor<f32>) {
  ^bb0(%n: f32, %o: f32):
    %r = arith.addf %n, %one : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#b, #b, #i, #i], iterator_types = ["parallel"]}
      ins(%pw, %clip, %p : tensor<f64>, tensor<f32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%c: f64, %k: f32, %x: f32, %o: f32):
    %cf = arith.truncf %c : f64 to f32
    %m = arith.mulf %cf, %x : f32
    %r = arith.divf %m, %k : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %u : tensor<16xf32>
}
