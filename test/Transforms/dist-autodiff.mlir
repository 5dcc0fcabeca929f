// RUN: dist-opt %s --split-input-file --dist-autodiff --verify-diagnostics | FileCheck %s

// A linear layer with a broadcast bias and a mean-squared loss: the bias
// gradient sums over the broadcast rows, the input gets none (not a
// parameter), and the frozen parameter gets none.
dist.parameter @w : tensor<4x3xf32> = dense<0.5> : tensor<4x3xf32>
dist.parameter @b : tensor<3xf32> = dense<0.0> : tensor<3xf32>
dist.parameter frozen @s : tensor<f32> = dense<2.0> : tensor<f32>

// CHECK-LABEL: func.func @forward_grad
// CHECK-SAME: -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x3xf32> {dist.gradient = @w, dist.output_name = "w.grad"}, tensor<3xf32> {dist.gradient = @b, dist.output_name = "b.grad"})
// CHECK: %[[ONE:.*]] = dist.constant dense<1.000000e+00> : tensor<f32>
// CHECK: dist.broadcast
// CHECK-DAG: %[[DB:.*]] = dist.reduce_sum %{{.*}} axes = [0] : (tensor<8x3xf32>) -> tensor<3xf32>
// CHECK-DAG: %[[DW:.*]] = dist.matmul %arg0, %{{.*}} {transpose_lhs} : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK: return %{{.*}}, %[[DW]], %[[DB]]
func.func @forward(%x: tensor<8x4xf32> {dist.input_name = "x"},
                   %w: tensor<4x3xf32> {dist.parameter = @w},
                   %b: tensor<3xf32> {dist.parameter = @b},
                   %s: tensor<f32> {dist.parameter = @s})
    -> (tensor<f32> {dist.output_name = "loss"}) {
  %y = dist.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %z = dist.add %y, %b : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %sq = dist.mul %z, %z : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  %scaled = dist.mul %sq, %s : (tensor<8x3xf32>, tensor<f32>) -> tensor<8x3xf32>
  %l = dist.reduce_mean %scaled axes = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value used twice: the contributions add up.
dist.parameter @w : tensor<3xf32> = dense<0.5> : tensor<3xf32>

// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[SEED:.*]] = dist.broadcast
// CHECK: %[[A:.*]] = dist.mul %[[SEED]], %arg0
// CHECK: %[[B:.*]] = dist.mul %[[SEED]], %arg0
// CHECK: %[[SUM:.*]] = dist.add %[[A]], %[[B]]
// CHECK: return %{{.*}}, %[[SUM]]
func.func @forward(%w: tensor<3xf32> {dist.parameter = @w}) -> tensor<f32> {
  %sq = dist.mul %w, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = dist.reduce_sum %sq axes = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An op without a gradient on the path to the loss is an error naming it.
dist.parameter @w : tensor<2x8xf32> = dense<0.5> : tensor<2x8xf32>

func.func @forward(%w: tensor<2x8xf32> {dist.parameter = @w}) -> tensor<f32> {
  // expected-error @below {{'dist.sparsify_top_k' has no gradient, but the loss depends on a parameter through it}}
  %v, %i, %r = dist.sparsify_top_k %w k = 2 : (tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x8xf32>)
  %l = dist.reduce_sum %r axes = [0, 1] : (tensor<2x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// dist.scatter_add: the destination's gradient is the output gradient, the
// updates' is its gather at the indices.
dist.parameter @w : tensor<4x2xf32> = dense<0.5> : tensor<4x2xf32>
dist.parameter @u : tensor<3x2xf32> = dense<0.5> : tensor<3x2xf32>

// CHECK-LABEL: func.func @forward_grad
// CHECK: %[[DY:.*]] = dist.add
// CHECK: %[[DU:.*]] = dist.gather %[[DY]][%arg2] axis = 0 : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
// CHECK: return %{{.*}}, %[[DY]], %[[DU]]
func.func @forward(%w: tensor<4x2xf32> {dist.parameter = @w},
                   %u: tensor<3x2xf32> {dist.parameter = @u},
                   %i: tensor<3xi64>) -> tensor<f32> {
  %s = dist.scatter_add %w[%i] = %u axis = 0 : (tensor<4x2xf32>, tensor<3xi64>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %sq = dist.mul %s, %s : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %l = dist.reduce_sum %sq axes = [0, 1] : (tensor<4x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

dist.parameter @w : tensor<3xf32> = dense<0.5> : tensor<3xf32>

// expected-error @below {{cannot tell which output is the loss (outputs: 'a', 'b')}}
func.func @forward(%w: tensor<3xf32> {dist.parameter = @w})
    -> (tensor<f32> {dist.output_name = "a"}, tensor<f32> {dist.output_name = "b"}) {
  %l = dist.reduce_sum %w axes = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}

// -----

dist.parameter @w : tensor<3xf32> = dense<0.5> : tensor<3xf32>

// expected-error @below {{the loss, output 'loss', is 'tensor<3xf32>'; it must be a float scalar}}
func.func @forward(%w: tensor<3xf32> {dist.parameter = @w})
    -> (tensor<3xf32> {dist.output_name = "loss"}) {
  return %w : tensor<3xf32>
}
