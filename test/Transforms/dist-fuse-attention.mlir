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
