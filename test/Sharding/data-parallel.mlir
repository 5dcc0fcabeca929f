// Data parallelism of a whole training step (autodiff + SGD) on a 2-rank
// mesh: the batch is split, and the only communication is the loss's
// partial sum and the weight gradient's, each all-reduced once.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1},dist-data-parallel,dist-propagate-sharding,dist-partition,canonicalize)' | FileCheck %s
// ZeRO stage 2 with momentum: the gradient is reduce-scattered, each rank
// updates its half of the weight and the state, the weight is all-gathered.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 momentum=0.9},dist-data-parallel{zero=2},dist-propagate-sharding,dist-partition,canonicalize)' | FileCheck %s --check-prefix=ZERO2
// ZeRO stage 1: the same, with the gradient all-reduced then sliced.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 momentum=0.9},dist-data-parallel{zero=1},dist-propagate-sharding,dist-partition{reduce-scatter=false},canonicalize)' | FileCheck %s --check-prefix=ZERO1

module {
  dist.mesh @mesh shape = 2
  dist.parameter @w : tensor<4x3xf32> = dense<0.5> : tensor<4x3xf32>

  func.func @forward(%x: tensor<8x4xf32> {dist.input_name = "x"},
                     %w: tensor<4x3xf32> {dist.parameter = @w})
      -> (tensor<f32> {dist.output_name = "loss"}) {
    %y = dist.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %sq = dist.mul %y, %y : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    %l = dist.reduce_mean %sq axes = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
}

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[X:.*]]: tensor<4x4xf32> {dist.input_name = "x", dist.sharding = #dist.sharding<[0, -]>{{(, dist.split_reason = "[^"]*")?}}}
// CHECK-SAME: %[[W:.*]]: tensor<4x3xf32> {dist.parameter = @w, dist.sharding = #dist.sharding<[-, -]>{{(, dist.split_reason = "[^"]*")?}}}
// CHECK-SAME: attributes {dist.meta = {{.*}}, dist.partitioned}
// CHECK: %[[Y:.*]] = dist.matmul %[[X]], %[[W]] : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[L:.*]] = dist.reduce_mean %{{.*}} axes = [0, 1] {{.*}}: (tensor<4x3xf32>) -> tensor<f32>
// CHECK: %[[G:.*]] = dist.matmul %[[X]], %{{.*}} {transpose_lhs} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: dist.all_reduce sum, %[[G]] axes = [0] {{.*}}: tensor<4x3xf32>
// Combined where it is first needed: the result.
// CHECK: dist.all_reduce mean, %[[L]] axes = [0] {{.*}}: tensor<f32>
// CHECK-NOT: dist.all_reduce
// CHECK-NOT: dist.all_gather
// CHECK: return

// ZERO2-LABEL: func.func @train_step
// ZERO2-SAME: tensor<2x3xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "momentum_buffer">, dist.sharding = #dist.sharding<[0, -]>{{(, dist.split_reason = "[^"]*")?}}}
// ZERO2-SAME: -> (tensor<f32> {{.*}}, tensor<4x3xf32> {dist.sharding = #dist.sharding<[-, -]>, dist.updates = 1 : i64}, tensor<2x3xf32> {dist.sharding = #dist.sharding<[0, -]>, dist.updates = 3 : i64})
// ZERO2: %[[G:.*]] = dist.matmul {{.*}} {transpose_lhs} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// ZERO2: dist.reduce_scatter sum, %[[G]] dim = 0 axes = [0] {{.*}}: (tensor<4x3xf32>) -> tensor<2x3xf32>
// ZERO2: dist.shard_slice %{{.*}} dim = 0 axes = [0] {{.*}}: (tensor<4x3xf32>) -> tensor<2x3xf32>
// ZERO2: dist.all_gather %{{.*}} dim = 0 axes = [0] {{.*}}: (tensor<2x3xf32>) -> tensor<4x3xf32>

// ZERO1-LABEL: func.func @train_step
// ZERO1: %[[G:.*]] = dist.matmul {{.*}} {transpose_lhs} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// ZERO1: %[[R:.*]] = dist.all_reduce sum, %[[G]] axes = [0] {{.*}}: tensor<4x3xf32>
// ZERO1: dist.shard_slice %[[R]] dim = 0 axes = [0] {{.*}}: (tensor<4x3xf32>) -> tensor<2x3xf32>
// ZERO1-NOT: dist.reduce_scatter
// ZERO1: dist.all_gather %{{.*}} dim = 0 axes = [0] {{.*}}: (tensor<2x3xf32>) -> tensor<4x3xf32>
