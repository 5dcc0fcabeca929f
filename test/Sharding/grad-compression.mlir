// Gradient compression (dist-optimizer{grad-compression}): the weight
// gradient is rounded to bf16 where the backward makes it, by a cast marked
// dist.compressed, and dist-partition sums it over the data-parallel ranks
// after that cast, in bf16; the update reads it widened back to f32.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 grad-compression=bf16},dist-data-parallel,dist-propagate-sharding,dist-partition,canonicalize)' | FileCheck %s
// ZeRO-2: the split the update wants does not flow back past the rounding,
// so the bf16 gradient is reduce-scattered.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad optimizer=sgd lr=0.1 momentum=0.9 grad-compression=fp16},dist-data-parallel{zero=2},dist-propagate-sharding,dist-partition,canonicalize)' | FileCheck %s --check-prefix=ZERO2
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-autodiff{function=forward},dist-optimizer{function=forward_grad grad-compression=int8})' 2>&1 | FileCheck %s --check-prefix=BAD

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
// CHECK: %[[G:.*]] = dist.matmul %{{.*}}, %{{.*}} {transpose_lhs} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[R:.*]] = dist.cast %[[G]] {dist.compressed} : tensor<4x3xf32> to tensor<4x3xbf16>
// CHECK: %[[S:.*]] = dist.all_reduce sum, %[[R]] axes = [0] {{.*}}: tensor<4x3xbf16>
// CHECK: dist.cast %[[S]] : tensor<4x3xbf16> to tensor<4x3xf32>
// CHECK-NOT: dist.all_reduce sum, {{.*}}xf32>
// CHECK: return

// ZERO2-LABEL: func.func @train_step
// ZERO2: %[[R:.*]] = dist.cast %{{.*}} {dist.compressed} : tensor<4x3xf32> to tensor<4x3xf16>
// ZERO2: %[[S:.*]] = dist.reduce_scatter sum, %[[R]] dim = 0 axes = [0] {{.*}}: (tensor<4x3xf16>) -> tensor<2x3xf16>
// ZERO2: dist.cast %[[S]] : tensor<2x3xf16> to tensor<2x3xf32>
// ZERO2-NOT: dist.reduce_scatter sum, {{.*}}xf32>
// ZERO2: return

// BAD: grad-compression 'int8' is not one of none, bf16, fp16
