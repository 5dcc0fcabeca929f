// Top-k compression (dist-optimizer{grad-compression=topk:F}) under data
// parallelism: the residual state is stacked over the ranks and split on
// dimension 0 (each rank its own 1x16x12), the rank's part of the gradient
// is its local partial value (the dist.rank_parts broadcast, no
// communication), each rank selects k = ceil(0.1 x 192) = 20 of its 192
// elements, the selections' values and indices are summed in rank rows
// (2 x 20 each, all-reduced where made) and scattered into the gradient on
// every rank; the 16x12 gradient itself is never reduced.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 grad-compression=topk:0.1 data-parallel-ranks=2},dist-data-parallel,dist-propagate-sharding,dist-partition,canonicalize)' | FileCheck %s
// Without a mesh (one rank), the same step: the parts are the gradient.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 grad-compression=topk:0.1})' | FileCheck %s --check-prefix=ONE
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad grad-compression=topk:0})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward loss-scale-argument},dist-optimizer{function=forward_grad grad-compression=topk:0.1 loss-scale=dynamic})' 2>&1 | FileCheck %s --check-prefix=SCALE

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
// CHECK-SAME: tensor<1x16x12xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "topk_error">, dist.per_rank, dist.sharding = #dist.sharding<[0, -, -]>
// CHECK: %[[G:.*]] = dist.matmul %{{.*}}, %{{.*}} {transpose_lhs} : (tensor<4x16xf32>, tensor<4x12xf32>) -> tensor<16x12xf32>
// CHECK-NOT: dist.all_reduce sum, %[[G]]
// CHECK: dist.broadcast %[[G]] {dist.rank_parts} : (tensor<16x12xf32>) -> tensor<1x16x12xf32>
// CHECK: %{{.*}}, %{{.*}}, %[[REST:.*]] = dist.sparsify_top_k %{{.*}} k = 20 : (tensor<1x192xf32>) -> (tensor<1x20xf32>, tensor<1x20xi64>, tensor<1x192xf32>)
// CHECK: %[[V:.*]] = dist.reduce_sum %{{.*}} axes = [0] {dist.rank_sum = 768 : i64} : (tensor<1x2x20xf32>) -> tensor<2x20xf32>
// CHECK-NEXT: dist.all_reduce sum, %[[V]] axes = [0]
// CHECK: %[[I:.*]] = dist.reduce_sum %{{.*}} axes = [0] {dist.rank_sum = 0 : i64} : (tensor<1x2x20xi64>) -> tensor<2x20xi64>
// CHECK-NEXT: dist.all_reduce sum, %[[I]] axes = [0]
// CHECK: dist.scatter_add %{{.*}}[%{{.*}}] = %{{.*}} axis = 0 : (tensor<192xf32>, tensor<40xi64>, tensor<40xf32>) -> tensor<192xf32>
// CHECK-NOT: dist.all_reduce sum, {{.*}} : tensor<16x12xf32>
// CHECK: return

// ONE-LABEL: func.func @train_step
// ONE-SAME: tensor<1x16x12xf32> {dist.optimizer_state = #dist.optimizer_state<@w, "topk_error">, dist.per_rank}
// ONE: dist.broadcast %{{.*}} {dist.rank_parts} : (tensor<16x12xf32>) -> tensor<1x16x12xf32>
// ONE: dist.sparsify_top_k %{{.*}} k = 20 : (tensor<1x192xf32>) -> (tensor<1x20xf32>, tensor<1x20xi64>, tensor<1x192xf32>)

// BAD: grad-compression 'topk:0' is not one of none, bf16, fp16, powersgd:R (R >= 1), topk:F (0 < F <= 1)
// SCALE: grad-compression topk:0.1 with loss scaling: the residuals each rank keeps would be in the scale of the step that made them
