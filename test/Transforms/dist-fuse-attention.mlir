// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-fuse-attention))' | FileCheck %s

// GPT-2 as PyTorch exports it: product, scale, where(!tril, -inf, x),
// softmax, product; the key transposed for the first product.
// CHECK-LABEL: func.func @gpt2
// CHECK-SAME: %[[Q:.*]]: tensor<2x4x16x8xf32>, %[[KT:.*]]: tensor<2x4x8x16xf32>, %[[V:.*]]: tensor<2x4x16x8xf32>
// CHECK: %[[K:.*]] = dist.transpose %[[KT]] permutation = [0, 1, 3, 2]
// CHECK: %[[O:.*]], %{{.*}} = dist.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 0.3535533
// CHECK-NOT: dist.softmax
// CHECK: return %[[O]]
func.func @gpt2(%q: tensor<2x4x16x8xf32>, %kt: tensor<2x4x8x16xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %inf = dist.constant dense<0xFF800000> : tensor<f32>
  %c = dist.constant dense<0.353553385> : tensor<f32>
  %ones = dist.constant dense<true> : tensor<16x16xi1>
  %tril = dist.trilu %ones : tensor<16x16xi1>
  %s = dist.matmul %q, %kt : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
  %scaled = dist.mul %s, %c : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %out = dist.not %tril : tensor<16x16xi1>
  %masked = dist.select %out, %inf, %scaled : (tensor<16x16xi1>, tensor<f32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p = dist.softmax %masked axis = 3 : tensor<2x4x16x16xf32>
  %o = dist.matmul %p, %v : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// Mask first (Hugging Face's finfo.min fill, a constant table), then a
// division; the key already in rows (transpose_rhs).
// CHECK-LABEL: func.func @mask_then_divide
// CHECK: dist.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f64}
func.func @mask_then_divide(%q: tensor<3x3x2xf32>, %k: tensor<3x3x2xf32>, %v: tensor<3x3x5xf32>) -> tensor<3x3x5xf32> {
  %min = dist.constant dense<-3.40282347E+38> : tensor<f32>
  %two = dist.constant dense<2.0> : tensor<f32>
  %keep = dist.constant dense<[[[true, false, false], [true, true, false], [true, true, true]]]> : tensor<1x3x3xi1>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<3x3x2xf32>, tensor<3x3x2xf32>) -> tensor<3x3x3xf32>
  %masked = dist.select %keep, %s, %min : (tensor<1x3x3xi1>, tensor<3x3x3xf32>, tensor<f32>) -> tensor<3x3x3xf32>
  %scaled = dist.div %masked, %two : (tensor<3x3x3xf32>, tensor<f32>) -> tensor<3x3x3xf32>
  %p = dist.softmax %scaled axis = 2 : tensor<3x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<3x3x3xf32>, tensor<3x3x5xf32>) -> tensor<3x3x5xf32>
  return %o : tensor<3x3x5xf32>
}

// -----

// Hugging Face GPT-2 exported in training mode (no constant folding): the
// divisor is computed, pow(8, 0.5) + 0.
// CHECK-LABEL: func.func @computed_divisor
// CHECK: dist.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 0.3535533
func.func @computed_divisor(%q: tensor<2x5x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %zero = dist.constant dense<0.0> : tensor<f32>
  %half = dist.constant dense<0.5> : tensor<f32>
  %eight = dist.constant dense<8.0> : tensor<f32>
  %root = dist.pow %eight, %half : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %divisor = dist.add %root, %zero : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x5xf32>
  %scaled = dist.div %s, %divisor : (tensor<2x5x5xf32>, tensor<f32>) -> tensor<2x5x5xf32>
  %p = dist.softmax %scaled axis = 2 : tensor<2x5x5xf32>
  %o = dist.matmul %p, %v : (tensor<2x5x5xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return %o : tensor<2x5x8xf32>
}

// -----

// No mask, no scale, more keys than queries: scale 1, not causal.
// CHECK-LABEL: func.func @plain
// CHECK: dist.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.000000e+00 : f64} : (tensor<2x5x4xf32>, tensor<2x7x4xf32>, tensor<2x7x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x5xf32>)
func.func @plain(%q: tensor<2x5x4xf32>, %k: tensor<2x7x4xf32>, %v: tensor<2x7x3xf32>) -> tensor<2x5x3xf32> {
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x5x4xf32>, tensor<2x7x4xf32>) -> tensor<2x5x7xf32>
  %p = dist.softmax %s axis = 2 : tensor<2x5x7xf32>
  %o = dist.matmul %p, %v : (tensor<2x5x7xf32>, tensor<2x7x3xf32>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}

// -----

// Hugging Face LLaMA's additive mask as its training export leaves it: a
// splat of float32's lowest value, trilu above the diagonal, times a 0/1
// constant (the positions past each query's), reshaped, broadcast over the
// batch and sliced to the keys; added after the division by sqrt(8). The
// keys repeated for grouped-query attention are the operand.
// CHECK-LABEL: func.func @llama_additive_mask
// CHECK: dist.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 0.3535533
// CHECK-NOT: dist.softmax
func.func @llama_additive_mask(%q: tensor<2x4x4x8xf32>, %k: tensor<2x4x4x8xf32>, %v: tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32> {
  %root = dist.constant dense<2.82842708> : tensor<f32>
  %after = dist.constant dense<[[0.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 1.0]]> : tensor<4x5xf32>
  %min = dist.constant dense<-3.40282347E+38> : tensor<4x5xf32>
  %upper = dist.trilu %min {diagonal = 1 : i64, upper} : tensor<4x5xf32>
  %m = dist.mul %upper, %after : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %m4 = dist.reshape %m : (tensor<4x5xf32>) -> tensor<1x1x4x5xf32>
  %mb = dist.broadcast %m4 : (tensor<1x1x4x5xf32>) -> tensor<2x1x4x5xf32>
  %mask = dist.slice %mb starts = [0, 0, 0, 0] strides = [1, 1, 1, 1] : (tensor<2x1x4x5xf32>) -> tensor<2x1x4x4xf32>
  %kt = dist.transpose %k permutation = [0, 1, 3, 2] : (tensor<2x4x4x8xf32>) -> tensor<2x4x8x4xf32>
  %s = dist.matmul %q, %kt : (tensor<2x4x4x8xf32>, tensor<2x4x8x4xf32>) -> tensor<2x4x4x4xf32>
  %scaled = dist.div %s, %root : (tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
  %masked = dist.add %scaled, %mask : (tensor<2x4x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x4x4x4xf32>
  %p = dist.softmax %masked axis = 3 : tensor<2x4x4x4xf32>
  %o = dist.matmul %p, %v : (tensor<2x4x4x4xf32>, tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  return %o : tensor<2x4x4x8xf32>
}

// -----

// An additive mask written out as a constant (-inf above the diagonal),
// the mask the first operand, then a scale.
// CHECK-LABEL: func.func @constant_additive_mask
// CHECK: dist.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f64}
func.func @constant_additive_mask(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %mask = dist.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %c = dist.constant dense<0.5> : tensor<f32>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.add %mask, %s : (tensor<3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %scaled = dist.mul %masked, %c : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %scaled axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// -----

// BART's decoder: the scores viewed as batch x heads for the mask (a
// select of constants) and back; the reshapes cancel.
// CHECK-LABEL: func.func @bart_reshaped_mask
// CHECK: %[[O:.*]], %{{.*}} = dist.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.000000e+00 : f64} : (tensor<8x3x2xf32>
// CHECK-NOT: dist.softmax
// CHECK: return %[[O]]
func.func @bart_reshaped_mask(%q: tensor<8x3x2xf32>, %k: tensor<8x3x2xf32>, %v: tensor<8x3x2xf32>) -> tensor<8x3x2xf32> {
  %min = dist.constant dense<-3.40282347E+38> : tensor<f32>
  %zeros = dist.constant dense<0.0> : tensor<3x3xf32>
  %above = dist.constant dense<[[false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
  %table = dist.select %above, %min, %zeros : (tensor<3x3xi1>, tensor<f32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %m4 = dist.reshape %table : (tensor<3x3xf32>) -> tensor<1x1x3x3xf32>
  %mask = dist.broadcast %m4 : (tensor<1x1x3x3xf32>) -> tensor<2x1x3x3xf32>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<8x3x2xf32>, tensor<8x3x2xf32>) -> tensor<8x3x3xf32>
  %s4 = dist.reshape %s : (tensor<8x3x3xf32>) -> tensor<2x4x3x3xf32>
  %masked = dist.add %s4, %mask : (tensor<2x4x3x3xf32>, tensor<2x1x3x3xf32>) -> tensor<2x4x3x3xf32>
  %m3 = dist.reshape %masked : (tensor<2x4x3x3xf32>) -> tensor<8x3x3xf32>
  %p = dist.softmax %m3 axis = 2 : tensor<8x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<8x3x3xf32>, tensor<8x3x2xf32>) -> tensor<8x3x2xf32>
  return %o : tensor<8x3x2xf32>
}

// -----

// What stays decomposed: a mask that is not the causal triangle, a fill
// an exponential survives (-1e4), probabilities another op reads (dropout
// would), a softmax over another axis, bf16 products.
// CHECK-LABEL: func.func @not_causal
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @not_causal(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %inf = dist.constant dense<0xFF800000> : tensor<f32>
  %keep = dist.constant dense<[[true, true, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.select %keep, %s, %inf : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @small_fill
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @small_fill(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %fill = dist.constant dense<-1.0e+04> : tensor<f32>
  %ones = dist.constant dense<true> : tensor<3x3xi1>
  %keep = dist.trilu %ones : tensor<3x3xi1>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.select %keep, %s, %fill : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @probabilities_read_twice
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @probabilities_read_twice(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x3xf32>) {
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %s axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o, %p : tensor<2x3x2xf32>, tensor<2x3x3xf32>
}

// CHECK-LABEL: func.func @other_axis
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @other_axis(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %s axis = 1 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @bf16
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @bf16(%q: tensor<2x3x2xbf16>, %k: tensor<2x3x2xbf16>, %v: tensor<2x3x2xbf16>) -> tensor<2x3x2xbf16> {
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xbf16>, tensor<2x3x2xbf16>) -> tensor<2x3x3xbf16>
  %p = dist.softmax %s axis = 2 : tensor<2x3x3xbf16>
  %o = dist.matmul %p, %v : (tensor<2x3x3xbf16>, tensor<2x3x2xbf16>) -> tensor<2x3x2xbf16>
  return %o : tensor<2x3x2xbf16>
}

// A scale after the mask scales the fill: by -0.5 it becomes a large
// positive score, by 1e-35 a small one; either way softmax keeps the
// masked keys, so neither fuses. (The fill of @mask_then_divide, scaled
// by 0.5, is still at most -1e30.)
// CHECK-LABEL: func.func @negative_scale_after_mask
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @negative_scale_after_mask(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %min = dist.constant dense<-3.40282347E+38> : tensor<f32>
  %c = dist.constant dense<-0.5> : tensor<f32>
  %ones = dist.constant dense<true> : tensor<3x3xi1>
  %keep = dist.trilu %ones : tensor<3x3xi1>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.select %keep, %s, %min : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %scaled = dist.mul %masked, %c : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %scaled axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @tiny_scale_after_mask
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @tiny_scale_after_mask(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %min = dist.constant dense<-3.40282347E+38> : tensor<f32>
  %c = dist.constant dense<1.0e-35> : tensor<f32>
  %ones = dist.constant dense<true> : tensor<3x3xi1>
  %keep = dist.trilu %ones : tensor<3x3xi1>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.select %keep, %s, %min : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %scaled = dist.mul %masked, %c : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %scaled axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// A negative scale before the mask is only a score: it fuses.
// CHECK-LABEL: func.func @negative_scale_before_mask
// CHECK: dist.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = -5.000000e-01 : f64}
func.func @negative_scale_before_mask(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %min = dist.constant dense<-3.40282347E+38> : tensor<f32>
  %c = dist.constant dense<-0.5> : tensor<f32>
  %ones = dist.constant dense<true> : tensor<3x3xi1>
  %keep = dist.trilu %ones : tensor<3x3xi1>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %scaled = dist.mul %s, %c : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %masked = dist.select %keep, %scaled, %min : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// Rows wider than 256 features (a row is one vector in registers) stay
// decomposed.
// CHECK-LABEL: func.func @wide_rows
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @wide_rows(%q: tensor<2x3x512xf32>, %k: tensor<2x3x512xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x512xf32>, tensor<2x3x512xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %s axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// Additive masks that are not the causal one: a fill of -1e4 (BERT's,
// which an exponential survives), a bias on a kept score, a mask read from
// an input (padding), a mask with a different table in each batch.
// CHECK-LABEL: func.func @additive_small_fill
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @additive_small_fill(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %mask = dist.constant dense<[[0.0, -1.0e+04, -1.0e+04], [0.0, 0.0, -1.0e+04], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.add %s, %mask : (tensor<2x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @additive_bias_on_kept
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @additive_bias_on_kept(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %mask = dist.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.5, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.add %s, %mask : (tensor<2x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @additive_mask_input
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @additive_mask_input(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>, %mask: tensor<2x1x3xf32>) -> tensor<2x3x2xf32> {
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.add %s, %mask : (tensor<2x3x3xf32>, tensor<2x1x3xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @additive_mask_per_batch
// CHECK-NOT: dist.attention
// CHECK: dist.softmax
func.func @additive_mask_per_batch(%q: tensor<2x3x2xf32>, %k: tensor<2x3x2xf32>, %v: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %mask = dist.constant dense<[[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]], [[0.0, 0xFF800000, 0xFF800000], [0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0]]]> : tensor<2x3x3xf32>
  %s = dist.matmul %q, %k {transpose_rhs} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x3xf32>
  %masked = dist.add %s, %mask : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %p = dist.softmax %masked axis = 2 : tensor<2x3x3xf32>
  %o = dist.matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}
