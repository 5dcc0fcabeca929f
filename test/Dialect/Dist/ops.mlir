// Every dist op prints, parses back and prints the same (custom form), and
// survives the generic form too.
// RUN: dist-opt %s --split-input-file | dist-opt --split-input-file | FileCheck %s
// RUN: dist-opt %s --split-input-file --mlir-print-op-generic | dist-opt --split-input-file | FileCheck %s

// CHECK: dist.parameter @fc.weight : tensor<4x8xf32> = dense<5.000000e-01> : tensor<4x8xf32>
// CHECK: dist.parameter frozen @bn.running_mean : tensor<4xf32>{{$}}
// CHECK-LABEL: func @parameters
// CHECK-SAME: %{{.*}}: tensor<2xf32> {dist.input_name = "x"}
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {dist.parameter = @fc.weight}
// CHECK-SAME: %{{.*}}: tensor<4xf32> {dist.parameter = @bn.running_mean}
// CHECK-SAME: -> (tensor<4x8xf32> {dist.output_name = "w"}, tensor<4xf32>)
dist.parameter @fc.weight : tensor<4x8xf32> = dense<0.5> : tensor<4x8xf32>
dist.parameter frozen @bn.running_mean : tensor<4xf32>
func.func @parameters(%x: tensor<2xf32> {dist.input_name = "x"},
                      %w: tensor<4x8xf32> {dist.parameter = @fc.weight},
                      %m: tensor<4xf32> {dist.parameter = @bn.running_mean})
    -> (tensor<4x8xf32> {dist.output_name = "w"}, tensor<4xf32>) {
  return %w, %m : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @constant
// CHECK: dist.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: dist.constant dense<0> : tensor<2x3xi64>
// CHECK: dist.constant dense<true> : tensor<4xi1>
func.func @constant() -> (tensor<2xf32>, tensor<2x3xi64>, tensor<4xi1>) {
  %0 = dist.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = dist.constant dense<0> : tensor<2x3xi64>
  %2 = dist.constant dense<true> : tensor<4xi1>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x3xi64>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @optimization_barrier
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4xui8>)
// CHECK: dist.optimization_barrier %[[X]] : tensor<4x8xf32>
// CHECK: dist.optimization_barrier %[[I]] transparent : tensor<4xui8>
func.func @optimization_barrier(%x: tensor<4x8xf32>, %i: tensor<4xui8>) -> (tensor<4x8xf32>, tensor<4xui8>) {
  %0 = dist.optimization_barrier %x : tensor<4x8xf32>
  %1 = dist.optimization_barrier %i transparent : tensor<4xui8>
  return %0, %1 : tensor<4x8xf32>, tensor<4xui8>
}

// -----

// CHECK-LABEL: func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
  // CHECK: dist.neg %[[X]] : tensor<4x8xf32>
  %0 = dist.neg %x : tensor<4x8xf32>
  // CHECK: dist.neg %[[I]] : tensor<4xi32>
  %1 = dist.neg %i : tensor<4xi32>
  // CHECK: dist.abs %[[X]] : tensor<4x8xf32>
  %2 = dist.abs %x : tensor<4x8xf32>
  // CHECK: dist.exp %[[X]] : tensor<4x8xf32>
  %3 = dist.exp %x : tensor<4x8xf32>
  // CHECK: dist.log %[[X]] : tensor<4x8xf32>
  %4 = dist.log %x : tensor<4x8xf32>
  // CHECK: dist.sqrt %[[X]] : tensor<4x8xf32>
  %5 = dist.sqrt %x : tensor<4x8xf32>
  // CHECK: dist.rsqrt %[[X]] : tensor<4x8xf32>
  %6 = dist.rsqrt %x : tensor<4x8xf32>
  // CHECK: dist.reciprocal %[[X]] : tensor<4x8xf32>
  %7 = dist.reciprocal %x : tensor<4x8xf32>
  // CHECK: dist.tanh %[[X]] : tensor<4x8xf32>
  %8 = dist.tanh %x : tensor<4x8xf32>
  // CHECK: dist.erf %[[X]] : tensor<4x8xf32>
  %9 = dist.erf %x : tensor<4x8xf32>
  // CHECK: dist.sigmoid %[[X]] : tensor<4x8xf32>
  %10 = dist.sigmoid %x : tensor<4x8xf32>
  // CHECK: dist.relu %[[X]] : tensor<4x8xf32>
  %11 = dist.relu %x : tensor<4x8xf32>
  // CHECK: dist.sin %[[X]] : tensor<4x8xf32>
  %12 = dist.sin %x : tensor<4x8xf32>
  // CHECK: dist.cos %[[X]] : tensor<4x8xf32>
  %13 = dist.cos %x : tensor<4x8xf32>
  // CHECK: dist.floor %[[X]] : tensor<4x8xf32>
  %14 = dist.floor %x : tensor<4x8xf32>
  // CHECK: dist.ceil %[[X]] : tensor<4x8xf32>
  %15 = dist.ceil %x : tensor<4x8xf32>
  // CHECK: dist.not %[[B]] : tensor<4xi1>
  %16 = dist.not %b : tensor<4xi1>
  // CHECK: dist.gelu %[[X]] : tensor<4x8xf32>
  %17 = dist.gelu %x : tensor<4x8xf32>
  // CHECK: dist.round %[[X]] : tensor<4x8xf32>
  %r0 = dist.round %x : tensor<4x8xf32>
  // CHECK: dist.tan %[[X]] : tensor<4x8xf32>
  %r1 = dist.tan %x : tensor<4x8xf32>
  // CHECK: dist.asin %[[X]] : tensor<4x8xf32>
  %r2 = dist.asin %x : tensor<4x8xf32>
  // CHECK: dist.acos %[[X]] : tensor<4x8xf32>
  %r3 = dist.acos %x : tensor<4x8xf32>
  // CHECK: dist.atan %[[X]] : tensor<4x8xf32>
  %r4 = dist.atan %x : tensor<4x8xf32>
  // CHECK: dist.sinh %[[X]] : tensor<4x8xf32>
  %r5 = dist.sinh %x : tensor<4x8xf32>
  // CHECK: dist.cosh %[[X]] : tensor<4x8xf32>
  %r6 = dist.cosh %x : tensor<4x8xf32>
  // CHECK: dist.asinh %[[X]] : tensor<4x8xf32>
  %r7 = dist.asinh %x : tensor<4x8xf32>
  // CHECK: dist.acosh %[[X]] : tensor<4x8xf32>
  %r8 = dist.acosh %x : tensor<4x8xf32>
  // CHECK: dist.atanh %[[X]] : tensor<4x8xf32>
  %r9 = dist.atanh %x : tensor<4x8xf32>
  // CHECK: dist.gelu %[[X]] {approximate_tanh} : tensor<4x8xf32>
  %18 = dist.gelu %x {approximate_tanh} : tensor<4x8xf32>
  // CHECK: dist.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
  %19 = dist.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  // CHECK: dist.cast %[[B]] : tensor<4xi1> to tensor<4xf16>
  %20 = dist.cast %b : tensor<4xi1> to tensor<4xf16>
  return
}

// -----

// CHECK-LABEL: func @binary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>, %[[I:.*]]: tensor<2x1xi64>, %[[J:.*]]: tensor<3xi64>, %[[B:.*]]: tensor<4x1xi1>, %[[C:.*]]: tensor<8xi1>)
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %i: tensor<2x1xi64>,
                  %j: tensor<3xi64>, %b: tensor<4x1xi1>, %c: tensor<8xi1>) {
  // CHECK: dist.add %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = dist.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.add %[[I]], %[[J]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %1 = dist.add %i, %j : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: dist.sub %[[Y]], %[[X]] : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = dist.sub %y, %x : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.mul %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = dist.mul %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.div %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = dist.div %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.pow %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %5 = dist.pow %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.max %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = dist.max %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.min %[[I]], %[[J]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %7 = dist.min %i, %j : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: dist.rem %[[I]], %[[J]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %r = dist.rem %i, %j : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: dist.and %[[B]], %[[C]] : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  %8 = dist.and %b, %c : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  // CHECK: dist.or %[[B]], %[[C]] : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  %9 = dist.or %b, %c : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  // CHECK: dist.xor %[[B]], %[[C]] : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  %10 = dist.xor %b, %c : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  // CHECK: %[[M:.*]] = dist.compare ge, %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %11 = dist.compare ge, %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: dist.compare eq, %[[I]], %[[J]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %12 = dist.compare eq, %i, %j : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  // CHECK: dist.select %[[M]], %[[X]], %[[Y]] : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %13 = dist.select %11, %x, %y : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: dist.select %[[C]], %[[Y]], %[[X]] : (tensor<8xi1>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %14 = dist.select %c, %y, %x : (tensor<8xi1>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// CHECK-LABEL: func @dropout
// CHECK: %{{.*}}, %{{.*}} = dist.dropout %{{.*}} {ratio = 1.000000e-01 : f64, seed = 7 : i64} : tensor<4x8xf32>
func.func @dropout(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %y, %keep = dist.dropout %x {ratio = 0.1 : f64, seed = 7 : i64} : tensor<4x8xf32>
  return %y, %keep : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// CHECK-LABEL: func @dropout_keys
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<i64>, %[[T:.*]]: tensor<i64>)
// CHECK: dist.dropout %[[X]] keys(%[[S]], %[[T]] : tensor<i64>, tensor<i64>) {ratio = 1.000000e-01 : f64, seed = 7 : i64} : tensor<4x8xf32>
func.func @dropout_keys(%x: tensor<4x8xf32>, %seed: tensor<i64>, %step: tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %y, %keep = dist.dropout %x keys(%seed, %step : tensor<i64>, tensor<i64>) {ratio = 0.1 : f64, seed = 7 : i64} : tensor<4x8xf32>
  return %y, %keep : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// A split draw: rows 4-7 of an 8x8 mask, and columns 2-3 of a 2x4 sample.
// CHECK-LABEL: func @drawn_blocks
// CHECK: dist.dropout %{{.*}} offsets(%{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>) {ratio = 1.000000e-01 : f64, seed = 7 : i64, whole_shape = array<i64: 8, 8>} : tensor<4x8xf32>
// CHECK: dist.random_uniform keys(%{{.*}} : tensor<i64>) offsets(%{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>) {high = 1.000000e+00 : f64, low = 0.000000e+00 : f64, seed = 3 : i64, whole_shape = array<i64: 2, 4>} : tensor<2x2xf32>
func.func @drawn_blocks(%x: tensor<4x8xf32>, %seed: tensor<i64>) -> (tensor<4x8xf32>, tensor<2x2xf32>) {
  %four = dist.constant dense<4> : tensor<i64>
  %zero = dist.constant dense<0> : tensor<i64>
  %two = dist.constant dense<2> : tensor<i64>
  %y, %keep = dist.dropout %x offsets(%four, %zero : tensor<i64>, tensor<i64>) {ratio = 0.1 : f64, seed = 7 : i64, whole_shape = array<i64: 8, 8>} : tensor<4x8xf32>
  %u = dist.random_uniform keys(%seed : tensor<i64>) offsets(%zero, %two : tensor<i64>, tensor<i64>) {low = 0.0 : f64, high = 1.0 : f64, seed = 3 : i64, whole_shape = array<i64: 2, 4>} : tensor<2x2xf32>
  return %y, %u : tensor<4x8xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func @random
// CHECK-SAME: (%[[S:.*]]: tensor<i64>, %[[T:.*]]: tensor<i64>)
// CHECK: dist.random_uniform keys(%[[S]], %[[T]] : tensor<i64>, tensor<i64>) {high = 1.000000e+00 : f64, low = 0.000000e+00 : f64, seed = 3 : i64} : tensor<8x1x1xf32>
// CHECK: dist.random_normal {mean = 0.000000e+00 : f64, scale = 2.000000e+00 : f64, seed = 5 : i64} : tensor<4x16xbf16>
func.func @random(%seed: tensor<i64>, %step: tensor<i64>) -> (tensor<8x1x1xf32>, tensor<4x16xbf16>) {
  %u = dist.random_uniform keys(%seed, %step : tensor<i64>, tensor<i64>) {low = 0.0 : f64, high = 1.0 : f64, seed = 3 : i64} : tensor<8x1x1xf32>
  %n = dist.random_normal {mean = 0.0 : f64, scale = 2.0 : f64, seed = 5 : i64} : tensor<4x16xbf16>
  return %u, %n : tensor<8x1x1xf32>, tensor<4x16xbf16>
}

// -----

// CHECK-LABEL: func @contraction
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x64x32xf32>, %[[K:.*]]: tensor<4x32x64xf32>, %[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<16xf32>)
func.func @contraction(%q: tensor<2x4x64x32xf32>, %k: tensor<4x32x64xf32>,
                       %x: tensor<8x32xf32>, %w: tensor<16x32xf32>,
                       %b: tensor<16xf32>) {
  // CHECK: dist.matmul %[[Q]], %[[K]] : (tensor<2x4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<2x4x64x64xf32>
  %0 = dist.matmul %q, %k : (tensor<2x4x64x32xf32>, tensor<4x32x64xf32>) -> tensor<2x4x64x64xf32>
  // CHECK: dist.matmul %[[Q]], %[[Q]] {transpose_rhs} : (tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x64xf32>
  %1 = dist.matmul %q, %q {transpose_rhs} : (tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x64xf32>
  // CHECK: dist.matmul %[[Q]], %[[Q]] {transpose_lhs} : (tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x32x32xf32>
  %2 = dist.matmul %q, %q {transpose_lhs} : (tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x32x32xf32>
  // CHECK: dist.gemm %[[X]], %[[W]], %[[B]] {transpose_b} : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %3 = dist.gemm %x, %w, %b {transpose_b} : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: dist.gemm %[[X]], %[[X]] {alpha = 5.000000e-01 : f64, transpose_a} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<32x32xf32>
  %4 = dist.gemm %x, %x {transpose_a, alpha = 0.5 : f64} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<32x32xf32>
  return
}

// -----

// CHECK-LABEL: func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x16x8xf32>, %[[K:.*]]: tensor<2x4x16x8xf32>, %[[V:.*]]: tensor<2x4x16x6xf32>, %[[KV:.*]]: tensor<2x4x5x8xf32>)
func.func @attention(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>,
                     %v: tensor<2x4x16x6xf32>, %k5: tensor<2x4x5x8xf32>) {
  // CHECK: %[[O:.*]], %[[L:.*]] = dist.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>) -> (tensor<2x4x16x6xf32>, tensor<2x4x16xf32>)
  %o, %lse = dist.attention %q, %k, %v {causal, scale = 0.125 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>) -> (tensor<2x4x16x6xf32>, tensor<2x4x16xf32>)
  // CHECK: dist.attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[L]], %[[O]] {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16xf32>, tensor<2x4x16x6xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>)
  %dq, %dk, %dv = dist.attention_grad %q, %k, %v, %o, %lse, %o {causal, scale = 0.125 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16xf32>, tensor<2x4x16x6xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>)
  // CHECK: dist.attention %[[Q]], %[[KV]], %[[KV]] {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  %o2, %lse2 = dist.attention %q, %k5, %k5 {scale = 1.0 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// CHECK-LABEL: func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>, %[[I:.*]]: tensor<4x8xi32>)
func.func @reductions(%x: tensor<4x8x16xf32>, %i: tensor<4x8xi32>) {
  // CHECK: dist.reduce_sum %[[X]] axes = [1] {keep_dims} : (tensor<4x8x16xf32>) -> tensor<4x1x16xf32>
  %0 = dist.reduce_sum %x axes = [1] {keep_dims} : (tensor<4x8x16xf32>) -> tensor<4x1x16xf32>
  // CHECK: dist.reduce_sum %[[I]] axes = [0, 1] : (tensor<4x8xi32>) -> tensor<i32>
  %1 = dist.reduce_sum %i axes = [0, 1] : (tensor<4x8xi32>) -> tensor<i32>
  // CHECK: dist.reduce_mean %[[X]] axes = [2] {keep_dims} : (tensor<4x8x16xf32>) -> tensor<4x8x1xf32>
  %2 = dist.reduce_mean %x axes = [2] {keep_dims} : (tensor<4x8x16xf32>) -> tensor<4x8x1xf32>
  // CHECK: dist.reduce_max %[[X]] axes = [0, 2] : (tensor<4x8x16xf32>) -> tensor<8xf32>
  %3 = dist.reduce_max %x axes = [0, 2] : (tensor<4x8x16xf32>) -> tensor<8xf32>
  // CHECK: dist.reduce_min %[[I]] axes = [1] : (tensor<4x8xi32>) -> tensor<4xi32>
  %4 = dist.reduce_min %i axes = [1] : (tensor<4x8xi32>) -> tensor<4xi32>
  // CHECK: dist.softmax %[[X]] axis = 2 : tensor<4x8x16xf32>
  %5 = dist.softmax %x axis = 2 : tensor<4x8x16xf32>
  // CHECK: dist.log_softmax %[[X]] axis = 0 : tensor<4x8x16xf32>
  %6 = dist.log_softmax %x axis = 0 : tensor<4x8x16xf32>
  // CHECK: dist.reduce_prod %[[I]] axes = [0] {keep_dims} : (tensor<4x8xi32>) -> tensor<1x8xi32>
  %7 = dist.reduce_prod %i axes = [0] {keep_dims} : (tensor<4x8xi32>) -> tensor<1x8xi32>
  // CHECK: dist.argmax %[[X]] axis = 1 : (tensor<4x8x16xf32>) -> tensor<4x16xi64>
  %8 = dist.argmax %x axis = 1 : (tensor<4x8x16xf32>) -> tensor<4x16xi64>
  // CHECK: dist.argmin %[[I]] axis = 0 {keep_dims, select_last_index} : (tensor<4x8xi32>) -> tensor<1x8xi64>
  %9 = dist.argmin %i axis = 0 {keep_dims, select_last_index} : (tensor<4x8xi32>) -> tensor<1x8xi64>
  // CHECK: dist.cumsum %[[X]] axis = 2 {exclusive, reverse} : tensor<4x8x16xf32>
  %10 = dist.cumsum %x axis = 2 {exclusive, reverse} : tensor<4x8x16xf32>
  // CHECK: dist.sparsify_top_k %[[X]] k = 3 : (tensor<4x8x16xf32>) -> (tensor<4x8x3xf32>, tensor<4x8x3xi64>, tensor<4x8x16xf32>)
  %11:3 = dist.sparsify_top_k %x k = 3 : (tensor<4x8x16xf32>) -> (tensor<4x8x3xf32>, tensor<4x8x3xi64>, tensor<4x8x16xf32>)
  return
}

// -----

// CHECK-LABEL: func @normalization
// CHECK-SAME: (%[[X:.*]]: tensor<2x64x128xf32>, %[[G:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<128xf32>, %[[G2:.*]]: tensor<64x128xf32>)
func.func @normalization(%x: tensor<2x64x128xf32>, %g: tensor<128xf32>,
                         %b: tensor<128xf32>, %g2: tensor<64x128xf32>) {
  // CHECK: dist.layer_norm %[[X]], %[[G]], %[[B]] axis = 2 : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
  %0 = dist.layer_norm %x, %g, %b axis = 2 : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<2x64x128xf32>
  // CHECK: dist.layer_norm %[[X]], %[[G2]], %[[G2]] axis = 1 {epsilon = 2.500000e-01 : f64} : (tensor<2x64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<2x64x128xf32>
  %1 = dist.layer_norm %x, %g2, %g2 axis = 1 {epsilon = 0.25 : f64} : (tensor<2x64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<2x64x128xf32>
  return
}

// -----

// CHECK-LABEL: func @losses
// CHECK-SAME: (%[[L:.*]]: tensor<8x512xf32>, %[[Y:.*]]: tensor<8xi64>, %[[L3:.*]]: tensor<2x10x6xf32>, %[[Y3:.*]]: tensor<2x6xi32>, %[[W:.*]]: tensor<10xf32>)
func.func @losses(%logits: tensor<8x512xf32>, %labels: tensor<8xi64>,
                  %l3: tensor<2x10x6xf32>, %y3: tensor<2x6xi32>,
                  %w: tensor<10xf32>) {
  // CHECK: dist.cross_entropy sum, %[[L3]], %[[Y3]] weight %[[W]] : (tensor<2x10x6xf32>, tensor<2x6xi32>, tensor<10xf32>) -> tensor<f32>
  %w0 = dist.cross_entropy sum, %l3, %y3 weight %w : (tensor<2x10x6xf32>, tensor<2x6xi32>, tensor<10xf32>) -> tensor<f32>
  // CHECK: dist.nll_loss mean, %[[L3]], %[[Y3]] weight %[[W]] {ignore_index = 1 : i64} : (tensor<2x10x6xf32>, tensor<2x6xi32>, tensor<10xf32>) -> tensor<f32>
  %w1 = dist.nll_loss mean, %l3, %y3 weight %w {ignore_index = 1 : i64} : (tensor<2x10x6xf32>, tensor<2x6xi32>, tensor<10xf32>) -> tensor<f32>
  // CHECK: dist.cross_entropy mean, %[[L]], %[[Y]] : (tensor<8x512xf32>, tensor<8xi64>) -> tensor<f32>
  %0 = dist.cross_entropy mean, %logits, %labels : (tensor<8x512xf32>, tensor<8xi64>) -> tensor<f32>
  // CHECK: dist.cross_entropy none, %[[L3]], %[[Y3]] {ignore_index = -100 : i64} : (tensor<2x10x6xf32>, tensor<2x6xi32>) -> tensor<2x6xf32>
  %1 = dist.cross_entropy none, %l3, %y3 {ignore_index = -100 : i64} : (tensor<2x10x6xf32>, tensor<2x6xi32>) -> tensor<2x6xf32>
  // CHECK: dist.nll_loss sum, %[[L]], %[[Y]] : (tensor<8x512xf32>, tensor<8xi64>) -> tensor<f32>
  %2 = dist.nll_loss sum, %logits, %labels : (tensor<8x512xf32>, tensor<8xi64>) -> tensor<f32>
  return
}

// -----

// CHECK-LABEL: func @shapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x64x4x32xf32>, %[[M:.*]]: tensor<64x384xf32>, %[[R:.*]]: tensor<1x128xf32>, %[[E:.*]]: tensor<512x128xf32>, %[[IDS:.*]]: tensor<2x64xi64>, %[[ONES:.*]]: tensor<64x64xi1>)
func.func @shapes(%x: tensor<2x64x4x32xf32>, %m: tensor<64x384xf32>,
                  %r: tensor<1x128xf32>, %e: tensor<512x128xf32>,
                  %ids: tensor<2x64xi64>, %ones: tensor<64x64xi1>) {
  // CHECK: dist.transpose %[[X]] permutation = [0, 2, 1, 3] : (tensor<2x64x4x32xf32>) -> tensor<2x4x64x32xf32>
  %0 = dist.transpose %x permutation = [0, 2, 1, 3] : (tensor<2x64x4x32xf32>) -> tensor<2x4x64x32xf32>
  // CHECK: dist.reshape %[[X]] : (tensor<2x64x4x32xf32>) -> tensor<128x128xf32>
  %1 = dist.reshape %x : (tensor<2x64x4x32xf32>) -> tensor<128x128xf32>
  // CHECK: dist.broadcast %[[R]] : (tensor<1x128xf32>) -> tensor<3x64x128xf32>
  %2 = dist.broadcast %r : (tensor<1x128xf32>) -> tensor<3x64x128xf32>
  // CHECK: %[[S:.*]] = dist.slice %[[M]] starts = [0, 128] strides = [1, 1] : (tensor<64x384xf32>) -> tensor<64x128xf32>
  %3 = dist.slice %m starts = [0, 128] strides = [1, 1] : (tensor<64x384xf32>) -> tensor<64x128xf32>
  // CHECK: dist.slice %[[M]] starts = [63, 383] strides = [-2, -3] : (tensor<64x384xf32>) -> tensor<32x128xf32>
  %4 = dist.slice %m starts = [63, 383] strides = [-2, -3] : (tensor<64x384xf32>) -> tensor<32x128xf32>
  // CHECK: dist.concat %[[S]], %[[S]], %[[S]] axis = 1 : (tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x384xf32>
  %5 = dist.concat %3, %3, %3 axis = 1 : (tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x384xf32>
  // CHECK: %{{.*}}:3 = dist.split %[[M]] axis = 1 : (tensor<64x384xf32>) -> (tensor<64x128xf32>, tensor<64x200xf32>, tensor<64x56xf32>)
  %6:3 = dist.split %m axis = 1 : (tensor<64x384xf32>) -> (tensor<64x128xf32>, tensor<64x200xf32>, tensor<64x56xf32>)
  // CHECK: dist.gather %[[E]][%[[IDS]]] axis = 0 : (tensor<512x128xf32>, tensor<2x64xi64>) -> tensor<2x64x128xf32>
  %7 = dist.gather %e[%ids] axis = 0 : (tensor<512x128xf32>, tensor<2x64xi64>) -> tensor<2x64x128xf32>
  // CHECK: dist.gather %[[E]][%[[IDS]]] axis = 0 {padding_idx = 1 : i64} : (tensor<512x128xf32>, tensor<2x64xi64>) -> tensor<2x64x128xf32>
  %padded = dist.gather %e[%ids] axis = 0 {padding_idx = 1 : i64} : (tensor<512x128xf32>, tensor<2x64xi64>) -> tensor<2x64x128xf32>
  // CHECK: dist.gather %[[M]][%[[IDS]]] axis = 1 : (tensor<64x384xf32>, tensor<2x64xi64>) -> tensor<64x2x64xf32>
  %8 = dist.gather %m[%ids] axis = 1 : (tensor<64x384xf32>, tensor<2x64xi64>) -> tensor<64x2x64xf32>
  // CHECK: dist.gather_elements %[[M]][%[[IDS]]] axis = 1 : (tensor<64x384xf32>, tensor<2x64xi64>) -> tensor<2x64xf32>
  %ge = dist.gather_elements %m[%ids] axis = 1 : (tensor<64x384xf32>, tensor<2x64xi64>) -> tensor<2x64xf32>
  // CHECK: dist.trilu %[[ONES]] : tensor<64x64xi1>
  %9 = dist.trilu %ones : tensor<64x64xi1>
  // CHECK: dist.trilu %[[X]] {diagonal = -1 : i64, upper} : tensor<2x64x4x32xf32>
  %10 = dist.trilu %x {diagonal = -1 : i64, upper} : tensor<2x64x4x32xf32>
  return
}

// -----

// CHECK-LABEL: func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<8x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>, %[[DW:.*]]: tensor<16x1x3x3xf32>)
func.func @conv(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>,
                %b: tensor<16xf32>, %dw: tensor<16x1x3x3xf32>) {
  // CHECK: %[[Y:.*]] = dist.conv2d %[[X]], %[[W]], %[[B]] {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  %0 = dist.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  // CHECK: dist.conv2d %[[X]], %[[W]] {dilations = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x14x14xf32>
  %1 = dist.conv2d %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x14x14xf32>
  // CHECK: dist.conv2d %[[Y]], %[[DW]] {groups = 16 : i64} : (tensor<8x16x32x32xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x30x30xf32>
  %2 = dist.conv2d %0, %dw {groups = 16 : i64} : (tensor<8x16x32x32xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x30x30xf32>
  // CHECK: dist.max_pool2d %[[Y]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32>
  %3 = dist.max_pool2d %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32>
  // CHECK: dist.avg_pool2d %[[Y]] {ceil_mode, count_include_pad, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32>
  %4 = dist.avg_pool2d %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode, count_include_pad} : (tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32>
  // CHECK: dist.global_avg_pool %[[Y]] : (tensor<8x16x32x32xf32>) -> tensor<8x16x1x1xf32>
  %5 = dist.global_avg_pool %0 : (tensor<8x16x32x32xf32>) -> tensor<8x16x1x1xf32>
  // CHECK: dist.batch_norm %[[Y]], %[[B]], %[[B]], %[[B]], %[[B]] {training} : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  %6 = dist.batch_norm %0, %b, %b, %b, %b {training} : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// The ops autodiff builds gradients with.
// CHECK-LABEL: func.func @gradient_ops
func.func @gradient_ops(%x: tensor<64x384xf32>, %s: tensor<64x128xf32>,
                        %ids: tensor<2x64xi64>, %dy: tensor<2x64x128xf32>,
                        %e: tensor<512x128xf32>, %img: tensor<8x16x32x32xf32>,
                        %dp: tensor<8x16x16x16xf32>) {
  // CHECK: dist.insert_slice %{{.*}} into %{{.*}} starts = [0, 128] strides = [1, 1] : tensor<64x128xf32> into tensor<64x384xf32>
  %0 = dist.insert_slice %s into %x starts = [0, 128] strides = [1, 1] : tensor<64x128xf32> into tensor<64x384xf32>
  // CHECK: dist.insert_slice %{{.*}} into %{{.*}} starts = [63, 383] strides = [-1, -2] : tensor<64x128xf32> into tensor<64x384xf32>
  %1 = dist.insert_slice %s into %x starts = [63, 383] strides = [-1, -2] : tensor<64x128xf32> into tensor<64x384xf32>
  // CHECK: dist.scatter_add %{{.*}}[%{{.*}}] = %{{.*}} axis = 0 : (tensor<512x128xf32>, tensor<2x64xi64>, tensor<2x64x128xf32>) -> tensor<512x128xf32>
  %2 = dist.scatter_add %e[%ids] = %dy axis = 0 : (tensor<512x128xf32>, tensor<2x64xi64>, tensor<2x64x128xf32>) -> tensor<512x128xf32>
  // CHECK: dist.max_pool2d_grad %{{.*}}, %{{.*}} {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x16x32x32xf32>, tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
  %3 = dist.max_pool2d_grad %img, %dp {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x16x32x32xf32>, tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
  // CHECK: dist.avg_pool2d_grad %{{.*}}, %{{.*}} {count_include_pad, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x16x32x32xf32>, tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
  %4 = dist.avg_pool2d_grad %img, %dp {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad} : (tensor<8x16x32x32xf32>, tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// Collectives (dist-partition, dist-overlap-collectives) need the module's
// device mesh.
// CHECK: dist.mesh @mesh shape = 2x2
module {
  dist.mesh @mesh shape = 2x2
  // The sharding and optimizer-state attributes round-trip.
  // CHECK-LABEL: func.func @typed_attrs
  // CHECK-SAME: dist.sharding = #dist.sharding<[0/3, -]>
  // CHECK-SAME: dist.sharding = #dist.sharding<[(0, 1), -]>
  // CHECK-SAME: dist.sharding = #dist.sharding<[1, -], partial = [0]>
  // CHECK-SAME: dist.optimizer_state = #dist.optimizer_state<@fc.weight, "exp_avg">
  func.func @typed_attrs(%w: tensor<12x4xf32> {dist.sharding = #dist.sharding<[0/3, -]>},
                         %v: tensor<8x4xf32> {dist.sharding = #dist.sharding<[(0, 1), -]>},
                         %p: tensor<8x4xf32> {dist.sharding = #dist.sharding<[1, -], partial = [0]>},
                         %m: tensor<4xf32> {dist.optimizer_state = #dist.optimizer_state<@"fc.weight", "exp_avg">}) {
    return
  }
  // CHECK-LABEL: func.func @collectives
  func.func @collectives(%x: tensor<4x6xf32>, %y: tensor<6xf32>) {
    // CHECK: dist.all_reduce sum, %{{.*}} axes = [0, 1] : tensor<4x6xf32>
    %0 = dist.all_reduce sum, %x axes = [0, 1] : tensor<4x6xf32>
    // CHECK: dist.all_gather %{{.*}} dim = 1 axes = [1] : (tensor<4x6xf32>) -> tensor<4x12xf32>
    %1 = dist.all_gather %x dim = 1 axes = [1] : (tensor<4x6xf32>) -> tensor<4x12xf32>
    // CHECK: dist.reduce_scatter min, %{{.*}} dim = 0 axes = [0] : (tensor<4x6xf32>) -> tensor<2x6xf32>
    %2 = dist.reduce_scatter min, %x dim = 0 axes = [0] : (tensor<4x6xf32>) -> tensor<2x6xf32>
    // CHECK: dist.shard_slice %{{.*}} dim = 0 axes = [0, 1] : (tensor<4x6xf32>) -> tensor<1x6xf32>
    %3 = dist.shard_slice %x dim = 0 axes = [0, 1] : (tensor<4x6xf32>) -> tensor<1x6xf32>
    // CHECK: %[[B:bucket]], %[[R:request]] = dist.all_reduce_start mean, %{{.*}}, %{{.*}} axes = [0] : (tensor<4x6xf32>, tensor<6xf32>) -> (tensor<30xf32>, i64)
    %4:2 = dist.all_reduce_start mean, %x, %y axes = [0] : (tensor<4x6xf32>, tensor<6xf32>) -> (tensor<30xf32>, i64)
    // CHECK: dist.wait %[[R]], %[[B]] : tensor<30xf32> -> tensor<4x6xf32>, tensor<6xf32>
    %5:2 = dist.wait %4#1, %4#0 : tensor<30xf32> -> tensor<4x6xf32>, tensor<6xf32>
    // CHECK: dist.send %{{.*}} to 1 axis = 0 tag = 7 : tensor<4x6xf32>
    dist.send %x to 1 axis = 0 tag = 7 : tensor<4x6xf32>
    // CHECK: dist.recv from 1 axis = 1 tag = 8 : tensor<6xf32>
    %6 = dist.recv from 1 axis = 1 tag = 8 : tensor<6xf32>
    return
  }
}
