// PowerSGD (dist-optimizer{grad-compression=powersgd:R}) under data
// parallelism: the residual state is stacked over the ranks and split on
// dimension 0 (each rank its own 1x16x12), the rank's part of the gradient
// is its local partial value (the dist.rank_parts broadcast, no
// communication), P (16x2) and Q (12x2) are all-reduced where their sums
// are made, and the 16x12 gradient itself is never reduced.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 grad-compression=powersgd:2 data-parallel-ranks=2},dist-data-parallel,dist-propagate-sharding,dist-partition,canonicalize)' | FileCheck %s
// Without a mesh (one rank), the same step: the parts are the gradient.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 grad-compression=powersgd:2})' | FileCheck %s --check-prefix=ONE
// A step made for 2 ranks does not split over 4.
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad grad-compression=powersgd:2 data-parallel-ranks=4},dist-data-parallel)' 2>&1 | FileCheck %s --check-prefix=RANKS
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad grad-compression=powersgd:0})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward loss-scale-argument},dist-optimizer{function=forward_grad grad-compression=powersgd:2 loss-scale=dynamic})' 2>&1 | FileCheck %s --check-prefix=SCALE

module {
  dist.mesh @mesh shape = 2
  dist.parameter @w : tensor<16x12xf32> = dense<0.5> : tensor<16x12xf32>
  dist.parameter @b : tensor<12xf32> = dense<0.0> : tensor<12xf32>

  func.func @forward(%x: tensor<8x16xf32> {dist.input_name = "x"},
                     %w: tensor<16x12xf32> {dist.parameter = @w},
                     %b: tensor<12xf32> {dist.parameter = @b})
      -> (tensor<f32> {dist.output_name = "loss"}) {
    %y = dist.matmul %x, %w : (tensor<8x16xf32>, tensor<16x12xf32>) -> tensor<8x12xf32>
    %z = dist.add %y, %b : (tensor<8x12xf32>, tensor<12xf32>) -> tensor<8x12xf32>
    %sq = dist.mul %z, %z : (tensor<8x12xf32>, tensor<8x12xf32>) -> tensor<8x12xf32>
    %l = dist.reduce_mean %sq axes = [0, 1] : (tensor<8x12xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
}

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: tensor<12x2xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "powersgd_q">, dist.sharding = #dist.sharding<[-, -]>
// CHECK-SAME: tensor<1x16x12xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "powersgd_error">, dist.per_rank, dist.sharding = #dist.sharding<[0, -, -]>
// CHECK: %[[G:.*]] = dist.matmul %{{.*}}, %{{.*}} {transpose_lhs} : (tensor<4x16xf32>, tensor<4x12xf32>) -> tensor<16x12xf32>
// CHECK-NOT: dist.all_reduce sum, %[[G]]
// CHECK: dist.broadcast %[[G]] {dist.rank_parts} : (tensor<16x12xf32>) -> tensor<1x16x12xf32>
// CHECK: %[[P:.*]] = dist.reduce_sum %{{.*}} axes = [0] {dist.rank_sum = 768 : i64} : (tensor<1x16x2xf32>) -> tensor<16x2xf32>
// CHECK-NEXT: dist.all_reduce sum, %[[P]] axes = [0]
// CHECK: %[[Q:.*]] = dist.reduce_sum %{{.*}} axes = [0] {dist.rank_sum = 0 : i64} : (tensor<1x12x2xf32>) -> tensor<12x2xf32>
// CHECK-NEXT: dist.all_reduce sum, %[[Q]] axes = [0]
// CHECK-NOT: dist.all_reduce sum, {{.*}} : tensor<16x12xf32>
// CHECK: return

// ONE-LABEL: func.func @train_step
// ONE-SAME: tensor<1x16x12xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "powersgd_error">, dist.per_rank}
// ONE: dist.broadcast %{{.*}} {dist.rank_parts} : (tensor<16x12xf32>) -> tensor<1x16x12xf32>

// RANKS: argument #{{[0-9]+}} holds one slice per data-parallel rank (dist.per_rank) on dimension 0 of 'tensor<4x16x12xf32>', but the data-parallel axis has 2 ranks; compile the step for 2 (dist-optimizer{data-parallel-ranks})
// BAD: grad-compression 'powersgd:0' is not one of none, bf16, fp16, powersgd:R (R >= 1)
// SCALE: grad-compression powersgd:2 with loss scaling: the residuals each rank keeps would be in the scale of the step that made them
