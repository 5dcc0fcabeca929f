// RUN: dist-opt %s --verify-diagnostics --pass-pipeline='builtin.module(dist-data-parallel{function=step zero=2},dist-propagate-sharding,dist-partition)' | FileCheck %s

// ZeRO over 2 ranks: a state of 5 elements (no dimension 2 divides) stays
// replicated with a remark; the 4x5 one is split along dimension 0.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @step
  // The batch of 2 is split: 1 row per rank.
  // CHECK-SAME: tensor<1x4xf32>
  // CHECK-SAME: tensor<2x5xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "m">, dist.sharding = #dist.sharding<[0, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: tensor<5xf32> {dist.optimizer_state = #dist.optimizer_state<@b, "m">, dist.sharding = #dist.sharding<[-]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK: dist.reduce_scatter sum, %{{.*}} dim = 0 axes = [0]
  // CHECK: dist.all_reduce sum
  // expected-remark @+1 {{ZeRO: optimizer state b.m of type 'tensor<5xf32>' has no dimension that 2 divides; it stays replicated}}
  func.func @step(%x: tensor<2x4xf32> {dist.input_name = "x"},
                  %y: tensor<2x5xf32> {dist.input_name = "y"},
                  %wm: tensor<4x5xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "m">},
                  %bm: tensor<5xf32> {dist.optimizer_state = #dist.optimizer_state<@b, "m">})
      -> (tensor<4x5xf32> {dist.updates = 2 : i64}, tensor<5xf32> {dist.updates = 3 : i64}) {
    %g = dist.matmul %x, %y {transpose_lhs} : (tensor<2x4xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
    %w = dist.add %wm, %g : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %s = dist.reduce_sum %g axes = [0] : (tensor<4x5xf32>) -> tensor<5xf32>
    %b = dist.add %bm, %s : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    return %w, %b : tensor<4x5xf32>, tensor<5xf32>
  }
}
