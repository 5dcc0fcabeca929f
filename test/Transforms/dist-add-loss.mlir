// RUN: dist-opt %s --split-input-file '--dist-add-loss=output=logits labels=targets' --verify-diagnostics | FileCheck %s

// A model without a loss: the pass adds a labels input and a mean
// cross-entropy over the last dimension, as the first result.
dist.parameter @w : tensor<8x5xf32> = dense<0.5> : tensor<8x5xf32>

// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[X:.*]]: tensor<2x3x8xf32> {dist.input_name = "x"}, %[[W:.*]]: tensor<8x5xf32> {dist.parameter = @w}, %[[L:.*]]: tensor<2x3xi64> {dist.input_name = "targets"}
// CHECK-SAME: -> (tensor<f32> {dist.output_name = "loss"}, tensor<2x3x5xf32> {dist.output_name = "logits"})
// CHECK: %[[Y:.*]] = dist.matmul
// CHECK-DAG: %[[Y2:.*]] = dist.reshape %[[Y]] : (tensor<2x3x5xf32>) -> tensor<6x5xf32>
// CHECK-DAG: %[[L2:.*]] = dist.reshape %[[L]] : (tensor<2x3xi64>) -> tensor<6xi64>
// CHECK: %[[LOSS:.*]] = dist.cross_entropy mean, %[[Y2]], %[[L2]] {ignore_index = -100 : i64}
// CHECK: return %[[LOSS]], %[[Y]]
func.func @forward(%x: tensor<2x3x8xf32> {dist.input_name = "x"},
                   %w: tensor<8x5xf32> {dist.parameter = @w})
    -> (tensor<2x3x5xf32> {dist.output_name = "logits"}) {
  %y = dist.matmul %x, %w : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// expected-error @below {{no output named 'logits' to put a cross-entropy loss on}}
func.func @forward(%x: tensor<2x3xf32>) -> (tensor<2x3xf32> {dist.output_name = "y"}) {
  return %x : tensor<2x3xf32>
}

// -----

// expected-error @below {{output 'logits' is 'tensor<2x3xi64>'; cross-entropy needs float logits}}
func.func @forward(%x: tensor<2x3xi64>) -> (tensor<2x3xi64> {dist.output_name = "logits"}) {
  return %x : tensor<2x3xi64>
}
