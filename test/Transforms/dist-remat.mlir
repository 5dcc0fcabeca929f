// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-remat="mode=full" | FileCheck %s
// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-remat="mode=selective" | FileCheck %s --check-prefix=SEL

// A chain of three forward values, each the only activation alive after
// its op: the cuts are %a, %b, %c, and a forward without a residual fan-out
// keeps every sqrt(3)-th rounded up, %b. The backward's read of %a is a
// recomputation from a barrier of the data input %x, handed over through a
// barrier; %a keeps a second use in the forward (a barrier) so that fusion
// sees the forward as before; %b is read as is. Reads of kept values for a
// recomputation are transparent: they do not count as uses for fusion.
// What remat adds for the backward is tagged dist.backward.
// CHECK-LABEL: func.func @train_step
// CHECK: %[[A:.*]] = dist.tanh %arg0
// CHECK-NEXT: dist.optimization_barrier %[[A]]
// CHECK-NEXT: %[[B:.*]] = dist.tanh %[[A]]
// CHECK-NEXT: %[[C:.*]] = dist.tanh %[[B]]
// CHECK-NEXT: %[[L:.*]] = dist.reduce_sum %[[C]]
// CHECK-NEXT: %[[X:.*]] = dist.optimization_barrier %arg0 transparent {dist.backward}
// CHECK-NEXT: %[[A2:.*]] = dist.tanh %[[X]] {dist.backward}
// CHECK-NEXT: %[[H:.*]] = dist.optimization_barrier %[[A2]] {dist.backward}
// CHECK-NEXT: %[[G:.*]] = dist.mul %[[H]], %[[B]]
// CHECK-NEXT: return %[[L]], %[[G]]
module {
  func.func @train_step(%x: tensor<4x8xf32> {dist.input_name = "x"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x8xf32>) {
    %a = dist.tanh %x : tensor<4x8xf32>
    %b = dist.tanh %a : tensor<4x8xf32>
    %c = dist.tanh %b : tensor<4x8xf32>
    %l = dist.reduce_sum %c axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %g = dist.mul %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %l, %g : tensor<f32>, tensor<4x8xf32>
  }
}

// -----

// Arguments are in memory anyway: %h, %r and %s are each the only computed
// activation alive after their op (cuts), none fans out, so every second is
// kept: %r. The backward's read of %h is a recomputation from barriers of
// the input and of %wt, which does not depend on the data (kept); the
// return's read of %s is not rewritten.
// CHECK-LABEL: func.func @train_step
// CHECK: %[[WT:.*]] = dist.transpose %arg1
// CHECK: %[[H:.*]] = dist.matmul %arg0, %[[WT]]
// CHECK: %[[R:.*]] = dist.relu %[[H]]
// CHECK: %[[S:.*]] = dist.add %arg0, %[[R]]
// CHECK: dist.reduce_sum %[[S]]
// CHECK: %[[XB:.*]] = dist.optimization_barrier %arg0 transparent
// CHECK: %[[WB:.*]] = dist.optimization_barrier %[[WT]] transparent
// CHECK: %[[H2:.*]] = dist.matmul %[[XB]], %[[WB]]
// CHECK: %[[HB:.*]] = dist.optimization_barrier %[[H2]] {dist.backward} :
// CHECK: dist.compare gt, %[[HB]]
// CHECK: return {{.*}}, %[[S]]
// Selective keeps the product with a weight: nothing to recompute.
// SEL-LABEL: func.func @train_step
// SEL-LABEL: func.func @train_step
// SEL-NOT: optimization_barrier
// SEL: return
module {
  dist.parameter @w : tensor<8x8xf32>
  func.func @train_step(%x: tensor<4x8xf32> {dist.input_name = "x"},
                        %w: tensor<8x8xf32> {dist.parameter = @w})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x8xi1>, tensor<4x8xf32>) {
    %wt = dist.transpose %w permutation = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %h = dist.matmul %x, %wt : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %r = dist.relu %h : tensor<4x8xf32>
    %s = dist.add %x, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %l = dist.reduce_sum %s axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %zero = dist.constant dense<0.0> : tensor<f32>
    %m = dist.compare gt, %h, %zero : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
    return %l, %m, %s : tensor<f32>, tensor<4x8xi1>, tensor<4x8xf32>
  }
}

// -----

// expected-error @+1 {{dist-remat: no single-block function @train_step (the training step; name it with function=<name>)}}
module {
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// A step cut into pipeline stages (before dist-pipeline-schedule): the
// cuts are %a to %e, every third is kept (%c). Each recomputation is tagged
// with its original's stage and dist.backward, and the barrier a clone
// reads with the clone's stage, so the schedule runs them in that stage's
// backward slot. %b is read on stage 1 but made on stage 0 (sent between
// stages): it is kept and read as is, never recomputed on stage 0 during
// stage 1's backward.
// CHECK-LABEL: func.func @train_step
// CHECK: %[[A:.*]] = dist.tanh %arg0 {dist.stage = 0 : i64}
// CHECK: %[[B:.*]] = dist.tanh %[[A]] {dist.stage = 0 : i64}
// CHECK: %[[C:.*]] = dist.tanh %[[B]] {dist.stage = 1 : i64}
// CHECK: %[[X:.*]] = dist.optimization_barrier %arg0 transparent {dist.backward, dist.stage = 0 : i64}
// CHECK-NEXT: %[[A2:.*]] = dist.tanh %[[X]] {dist.backward, dist.stage = 0 : i64}
// CHECK-NEXT: %[[HA:.*]] = dist.optimization_barrier %[[A2]] {dist.backward, dist.stage = 0 : i64}
// CHECK-NEXT: dist.mul %[[HA]], %[[HA]] {dist.backward, dist.stage = 0 : i64}
// CHECK-NEXT: %[[CB:.*]] = dist.optimization_barrier %[[C]] transparent {dist.backward, dist.stage = 1 : i64}
// CHECK-NEXT: %[[D2:.*]] = dist.tanh %[[CB]] {dist.backward, dist.stage = 1 : i64}
// CHECK-NEXT: %[[HD:.*]] = dist.optimization_barrier %[[D2]] {dist.backward, dist.stage = 1 : i64}
// CHECK-NEXT: dist.mul %[[HD]], %[[B]] {dist.backward, dist.stage = 1 : i64}
module {
  func.func @train_step(%x: tensor<4x8xf32> {dist.input_name = "x"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x8xf32>,
          tensor<4x8xf32>) {
    %a = dist.tanh %x {dist.stage = 0 : i64} : tensor<4x8xf32>
    %b = dist.tanh %a {dist.stage = 0 : i64} : tensor<4x8xf32>
    %c = dist.tanh %b {dist.stage = 1 : i64} : tensor<4x8xf32>
    %d = dist.tanh %c {dist.stage = 1 : i64} : tensor<4x8xf32>
    %e = dist.tanh %d {dist.stage = 1 : i64} : tensor<4x8xf32>
    %l = dist.reduce_sum %e axes = [0, 1] {dist.stage = 1 : i64} : (tensor<4x8xf32>) -> tensor<f32>
    %g0 = dist.mul %a, %a {dist.stage = 0 : i64, dist.backward} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %g1 = dist.mul %d, %b {dist.stage = 1 : i64, dist.backward} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %l, %g0, %g1 : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}
