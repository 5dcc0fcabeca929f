// Pipeline stages on a two-layer MLP (the forward with its loss): the cut
// (dist-pipeline-split, before autodiff), the step of one micro-batch
// (dist-pipeline-microbatch, partition), then one program per stage with its
// sends and receives (dist-pipeline-schedule). The numbers these programs
// compute are checked against one device in test/Parallel/pipeline-parallel.test.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-training-step{optimizer=sgd pipeline-stages=2 explain-stages=true},dist-distribute{mesh=2 parallel=pp microbatches=2 schedule=1f1b overlap=false})' | FileCheck %s --check-prefixes=CUT,ONEF
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-training-step{optimizer=sgd pipeline-stages=2},dist-distribute{mesh=2 parallel=pp microbatches=2 schedule=gpipe overlap=false})' | FileCheck %s --check-prefix=GPIPE
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-training-step{optimizer=sgd pipeline-stages=2},dist-distribute{mesh=2 parallel=pp microbatches=1 overlap=false})' | FileCheck %s --check-prefix=ONE
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-training-step{optimizer=adamw pipeline-stages=2},dist-distribute{mesh=2,2 parallel=pp,dp microbatches=2 zero=1 overlap=false})' | FileCheck %s --check-prefix=ZERO

dist.parameter @fc1.weight : tensor<64x32xf32> = dense<0.01> : tensor<64x32xf32>
dist.parameter @fc1.bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
dist.parameter @fc2.weight : tensor<10x64xf32> = dense<0.02> : tensor<10x64xf32>
dist.parameter @fc2.bias : tensor<10xf32> = dense<0.0> : tensor<10xf32>

func.func @forward(%x: tensor<8x32xf32>, %labels: tensor<8xi64>,
                   %w1: tensor<64x32xf32> {dist.parameter = @fc1.weight},
                   %b1: tensor<64xf32> {dist.parameter = @fc1.bias},
                   %w2: tensor<10x64xf32> {dist.parameter = @fc2.weight},
                   %b2: tensor<10xf32> {dist.parameter = @fc2.bias})
    -> (tensor<f32>, tensor<8x10xf32>) {
  %h = dist.gemm %x, %w1, %b1 {transpose_b}
      : (tensor<8x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %a = dist.relu %h : tensor<8x64xf32>
  %logits = dist.gemm %a, %w2, %b2 {transpose_b}
      : (tensor<8x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %loss = dist.cross_entropy mean, %logits, %labels
      : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  return %loss, %logits : tensor<f32>, tensor<8x10xf32>
}

// The cut balances the first product (its input is the widest) against
// the rest: 8x64 floats cross it.
// CUT: pipeline stages of @forward: 2 stages over 4 ops
// CUT: stage 0: ops 0-0 (1), {{.*}} 2 parameters (8.2 KiB)
// CUT: cut: 2048 bytes per step cross to stage 1
// CUT: stage 1: ops 1-3 (3), {{.*}} 2 parameters (2.5 KiB)

// 1F1B on stage 0 of 2: one forward to warm up, then forward 1 and
// backward 0, then backward 1; each micro-batch's activations go to stage 1
// and their gradients come back. The gradients add up over the
// micro-batches as each backward makes its term (behind a barrier, so that
// fusion does not merge the sums into one op at the end, which would keep
// every term alive); stage 0 returns the outputs stage 1
// computes (loss, grad norm) and its own parameters' updates.
// ONEF: module attributes {dist.pipeline = {axis = 0 : i64, functions = [@train_step_stage0, @train_step_stage1], microbatches = 2 : i64, schedule = "1f1b", stages = 2 : i64, virtual_stages = 1 : i64}}
// ONEF: dist.mesh @mesh shape = 2{{$}}
// ONEF-LABEL: func.func @train_step_stage0(%arg0: tensor<8x32xf32>
// ONEF-SAME: %arg2: tensor<64x32xf32> {dist.parameter = @fc1.weight, dist.sharding = #dist.sharding<[-, -]>, dist.stage = 0 : i64}
// ONEF-SAME: %arg4: tensor<10x64xf32> {dist.parameter = @fc2.weight, dist.sharding = #dist.sharding<[-, -]>, dist.stage = 1 : i64}
// ONEF-SAME: -> (tensor<f32> {dist.output_name = "loss"{{.*}}, tensor<f32> {dist.output_name = "grad_norm"{{.*}}, tensor<f32> {dist.output_name = "lr"{{.*}}, tensor<64x32xf32> {{.*}}dist.updates = 2 : i64}, tensor<64xf32> {{.*}}dist.updates = 3 : i64})
// ONEF: %[[X0:.*]] = dist.slice %arg0 starts = [0, 0]
// ONEF: %[[H0:.*]] = dist.gemm %[[X0]], %arg2, %arg3
// ONEF: dist.send %[[H0]] to 1 axis = 0 tag = [[A0:[0-9]+]]
// ONEF: %[[X1:.*]] = dist.slice %arg0 starts = [4, 0]
// ONEF: %[[H1:.*]] = dist.gemm %[[X1]], %arg2, %arg3
// ONEF: dist.send %[[H1]] to 1 axis = 0 tag = [[A1:[0-9]+]]
// ONEF: %[[G0:.*]] = dist.recv from 1 axis = 0 tag = [[GR0:[0-9]+]]
// ONEF: %[[W0:.*]] = dist.matmul %[[G0]], %[[X0]] {transpose_lhs}
// ONEF: %[[S0:.*]] = dist.optimization_barrier %[[W0]]
// ONEF: %[[G1:.*]] = dist.recv from 1 axis = 0 tag = [[GR1:[0-9]+]]
// ONEF: %[[W1:.*]] = dist.matmul %[[G1]], %[[X1]] {transpose_lhs}
// ONEF: %[[S1:.*]] = dist.add %[[S0]], %[[W1]]
// ONEF: dist.optimization_barrier %[[S1]]
// ONEF: return
// 1F1B on the last stage: forward 0, backward 0, forward 1, backward 1.
// ONEF-LABEL: func.func @train_step_stage1
// ONEF: dist.recv from 0 axis = 0 tag = [[A0]]
// ONEF: dist.cross_entropy sum
// ONEF: dist.send {{.*}} to 0 axis = 0 tag = [[GR0]]
// ONEF: dist.recv from 0 axis = 0 tag = [[A1]]
// ONEF: dist.cross_entropy sum
// ONEF: dist.send {{.*}} to 0 axis = 0 tag = [[GR1]]
// ONEF: return

// GPipe: every forward, then the backwards in reverse order.
// GPIPE-LABEL: func.func @train_step_stage1
// GPIPE: %[[A0:.*]] = dist.recv from 0 axis = 0 tag = 0
// GPIPE: dist.cross_entropy sum
// GPIPE: %[[A1:.*]] = dist.recv from 0 axis = 0 tag = 1
// GPIPE: dist.cross_entropy sum
// GPIPE-NOT: dist.recv
// GPIPE: dist.matmul {{.*}}, %{{.*}} {transpose_lhs} : (tensor<4x10xf32>, tensor<4x64xf32>)
// GPIPE: dist.send {{.*}} to 0 axis = 0 tag = 2
// GPIPE: dist.send {{.*}} to 0 axis = 0 tag = 3

// One micro-batch: the whole batch, nothing sliced.
// ONE-LABEL: func.func @train_step_stage0
// ONE-NOT: dist.slice
// ONE: dist.gemm %arg0, %arg2, %arg3 {transpose_b} : (tensor<8x32xf32>
// ONE: dist.send {{.*}} : tensor<8x64xf32>

// ZeRO-1 inside the stages (dist-pipeline-zero): each stage's AdamW state is
// split over the data-parallel axis (1) in every stage's signature (only the
// holder reads it); the holder updates its block of the parameter from the
// whole gradient and all-gathers the result.
// ZERO-LABEL: func.func @train_step_stage0(
// ZERO-SAME: %arg7: tensor<32x32xf32> {dist.optimizer_state = #dist.optimizer_state<@fc1.weight, "exp_avg">, dist.sharding = #dist.sharding<[1, -]>, dist.stage = 0 : i64}
// ZERO-SAME: %arg11: tensor<5x64xf32> {dist.optimizer_state = #dist.optimizer_state<@fc2.weight, "exp_avg">, dist.sharding = #dist.sharding<[1, -]>, dist.stage = 1 : i64}
// ZERO: %[[W:.*]] = dist.shard_slice %arg2 dim = 0 axes = [1] : (tensor<64x32xf32>) -> tensor<32x32xf32>
// ZERO: %[[FULL:.*]] = dist.all_gather %{{.*}} dim = 0 axes = [1] : (tensor<32x32xf32>) -> tensor<64x32xf32>
// ZERO: return {{.*}}%[[FULL]], {{.*}} : tensor<f32>, tensor<f32>, tensor<f32>, tensor<64x32xf32>, tensor<64xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>
// ZERO-LABEL: func.func @train_step_stage1(
// ZERO-SAME: %arg7: tensor<32x32xf32>
// ZERO: dist.all_gather {{.*}} : (tensor<5x64xf32>) -> tensor<10x64xf32>
// ZERO: return {{.*}} : tensor<f32>, tensor<f32>, tensor<f32>, tensor<10x64xf32>, tensor<10xf32>, tensor<5x64xf32>, tensor<5x64xf32>, tensor<5xf32>, tensor<5xf32>
