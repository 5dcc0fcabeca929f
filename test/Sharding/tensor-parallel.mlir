// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dist-tensor-parallel{function=step},dist-propagate-sharding,dist-partition)' | FileCheck %s

// An MLP of two nn.Linear gemms with biases: the first is split along its
// output features, the second along its input features, its bias is split
// off (added once, after the all-reduce). The optimizer state follows.
module attributes {dist.mesh = array<i64: 2>} {
  dist.parameter @w1 : tensor<8x4xf32> = dense<0.5> : tensor<8x4xf32>
  dist.parameter @b1 : tensor<8xf32> = dense<0.5> : tensor<8xf32>
  dist.parameter @w2 : tensor<3x8xf32> = dense<0.5> : tensor<3x8xf32>
  dist.parameter @b2 : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: %[[X:.*]]: tensor<2x4xf32>
  // CHECK-SAME: %[[W1:.*]]: tensor<4x4xf32> {dist.parameter = @w1, dist.sharding = array<i64: 0, -1>}
  // CHECK-SAME: %[[B1:.*]]: tensor<4xf32> {dist.parameter = @b1, dist.sharding = array<i64: 0>}
  // CHECK-SAME: %[[W2:.*]]: tensor<3x4xf32> {dist.parameter = @w2, dist.sharding = array<i64: -1, 0>}
  // CHECK-SAME: %[[B2:.*]]: tensor<3xf32> {dist.parameter = @b2}
  // CHECK-SAME: tensor<4x4xf32> {dist.optimizer_state = "w1.m", dist.sharding = array<i64: 0, -1>}
  // CHECK-SAME: -> (tensor<2x3xf32>, tensor<4x4xf32> {dist.sharding = array<i64: 0, -1>, dist.updates = 5 : i64})
  // CHECK: %[[H:.*]] = dist.gemm %[[X]], %[[W1]], %[[B1]] {transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: %[[G:.*]] = dist.gelu %[[H]] : tensor<2x4xf32>
  // CHECK: %[[P:.*]] = dist.gemm %[[G]], %[[W2]] {transpose_b} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R:.*]] = dist.all_reduce sum, %[[P]] axes = [0] {{.*}}: tensor<2x3xf32>
  // CHECK: dist.add %[[R]], %[[B2]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.func @step(%x: tensor<2x4xf32> {dist.input_name = "x"},
                  %w1: tensor<8x4xf32> {dist.parameter = @w1},
                  %b1: tensor<8xf32> {dist.parameter = @b1},
                  %w2: tensor<3x8xf32> {dist.parameter = @w2},
                  %b2: tensor<3xf32> {dist.parameter = @b2},
                  %m1: tensor<8x4xf32> {dist.optimizer_state = "w1.m"})
      -> (tensor<2x3xf32>, tensor<8x4xf32> {dist.updates = 5 : i64}) {
    %h = dist.gemm %x, %w1, %b1 {transpose_b} : (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    %g = dist.gelu %h : tensor<2x8xf32>
    %y = dist.gemm %g, %w2, %b2 {transpose_b} : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %m = dist.mul %m1, %w1 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    return %y, %m : tensor<2x3xf32>, tensor<8x4xf32>
  }
}

// -----

// 6 hidden features do not split over 4 ranks: a remark, and every rank
// computes the whole step.
module attributes {dist.mesh = array<i64: 4>} {
  dist.parameter @w1 : tensor<4x6xf32> = dense<0.5> : tensor<4x6xf32>
  dist.parameter @w2 : tensor<6x4xf32> = dense<0.5> : tensor<6x4xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-NOT: dist.all_reduce
  // expected-remark @+1 {{tensor parallelism found no MLP (linear, elementwise, linear) to split; every rank computes the whole step}}
  func.func @step(%x: tensor<2x4xf32>, %w1: tensor<4x6xf32> {dist.parameter = @w1},
                  %w2: tensor<6x4xf32> {dist.parameter = @w2}) -> tensor<2x4xf32> {
    // expected-remark @+1 {{tensor parallelism: 6 hidden features do not split over 4 ranks; this MLP stays replicated}}
    %h = dist.matmul %x, %w1 : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
    %g = dist.relu %h : tensor<2x6xf32>
    %y = dist.matmul %g, %w2 : (tensor<2x6xf32>, tensor<6x4xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}
