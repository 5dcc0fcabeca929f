// What pipeline stages refuse, with the reason.
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-training-step{pipeline-stages=4})' 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-training-step{pipeline-stages=2},dist-distribute{mesh=2 parallel=pp microbatches=4})' 2>&1 | FileCheck %s --check-prefix=MICRO
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-training-step,dist-distribute{mesh=2 parallel=pp})' 2>&1 | FileCheck %s --check-prefix=UNCUT
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-training-step{pipeline-stages=2},dist-distribute{mesh=2,2 parallel=pp,dp zero=2})' 2>&1 | FileCheck %s --check-prefix=DP
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-training-step{pipeline-stages=2},dist-distribute{mesh=2 parallel=pp schedule=zigzag})' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-training-step{pipeline-stages=2 optimizer=adamw stage-memory-limit=0.0001})' 2>&1 | FileCheck %s --check-prefix=MEMORY

dist.parameter @w : tensor<4x4xf32> = dense<0.5> : tensor<4x4xf32>

func.func @forward(%x: tensor<6x4xf32>, %labels: tensor<6xi64>,
                   %w: tensor<4x4xf32> {dist.parameter = @w})
    -> tensor<f32> {
  %h = dist.matmul %x, %w : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  %a = dist.relu %h : tensor<6x4xf32>
  %loss = dist.cross_entropy mean, %a, %labels
      : (tensor<6x4xf32>, tensor<6xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// STAGES: error: cannot cut @forward into 4 pipeline stages: it has 3 ops that compute, and every stage needs at least one; use at most 3 stages
// MICRO: error: pipeline micro-batches: the batch of argument #0 (6, type 'tensor<6x4xf32>') does not split into 4 micro-batches; compile with a batch that is a multiple of 4 or change microbatches
// UNCUT: error: parameter @w has no pipeline stage: cut the forward with dist-pipeline-split (stages=2) before dist-autodiff
// DP: error: dist-distribute: zero=2 with pp: a stage accumulates each gradient whole over its micro-batches; use zero=1 (each stage's optimizer state split over dp)
// SCHEDULE: error: dist-distribute: schedule=zigzag: gpipe, 1f1b or interleaved
// MEMORY: error: no cut of @forward into 2 pipeline stages fits 0.0 MiB per device (parameters with their gradients and optimizer state, and the activations of the micro-batches in flight); the least any cut needs is about 0.0 MiB: use more stages, more micro-batches or the 1f1b schedule, or raise the limit
