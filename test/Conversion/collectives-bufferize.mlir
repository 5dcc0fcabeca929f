// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(convert-dist-to-linalg)' | FileCheck %s --check-prefix=LINALG
// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(dist-lower-to-linalg{entry=step},one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map})' | FileCheck %s

// Collectives stay dist ops through convert-dist-to-linalg and become distrt
// calls in one-shot bufferization, which then knows where each reads its
// input. The softmax of a cross-entropy over split classes takes the
// all-reduced maximum of the same logits twice (forward and backward); the
// forward's `x - max` may be written over the logits' buffer in between.
// Both reads happen before that write: CSE makes them one all-reduce, read
// at its place. (When collectives were calls on bufferization.to_buffer,
// CSE merged the two to_buffers and the backward read the overwritten
// buffer: NaN gradients with large logits.)
module {
  dist.mesh @mesh shape = 2
  // LINALG-LABEL: func.func @step
  // LINALG: dist.all_reduce max, %{{.*}} axes = [0] : tensor<2x1xf32>
  // LINALG: dist.all_reduce max, %{{.*}} axes = [0] : tensor<2x1xf32>
  // LINALG-NOT: to_buffer
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: (%[[X:.*]]: memref<2x4xf32>)
  // CHECK: %[[M:.*]] = memref.alloc() {{.*}} : memref<2xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<2x4xf32>) outs(%[[M]] : memref<2xf32>)
  // CHECK: arith.maximumf
  // CHECK: %[[MAX:.*]] = memref.alloc() {{.*}} : memref<2x1xf32>
  // CHECK: memref.copy %{{.*}}, %[[MAX]]
  // CHECK: call @distrt_all_reduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, !llvm.ptr, i64, i64) -> ()
  // CHECK-NOT: call @distrt_all_reduce({{.*}}) : (i32, i32, !llvm.ptr, i64, i64) -> ()
  // CHECK: return
  func.func @step(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %m = dist.reduce_max %x axes = [1] {keep_dims} : (tensor<2x4xf32>) -> tensor<2x1xf32>
    %a = dist.all_reduce max, %m axes = [0] : tensor<2x1xf32>
    %d = dist.sub %x, %a : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
    %b = dist.all_reduce max, %m axes = [0] : tensor<2x1xf32>
    %e = dist.sub %x, %b : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
    %f = dist.exp %e : tensor<2x4xf32>
    return %d, %f : tensor<2x4xf32>, tensor<2x4xf32>
  }
}

// -----

// An unsigned collective keeps its runtime type (uint8, distrt_dtype 11)
// when its tensors become signless; a strided input (a slice) is copied to a
// contiguous buffer before the runtime reads it.
module {
  dist.mesh @mesh shape = 2
  // LINALG-LABEL: func.func @step
  // LINALG: dist.all_gather %{{.*}} dim = 0 axes = [0] {dist.unsigned} : (tensor<2x3xi8>) -> tensor<4x3xi8>
  // CHECK-LABEL: func.func @step
  // CHECK: %[[SLICE:.*]] = memref.subview
  // CHECK: %[[IN:.*]] = memref.alloc() {{.*}} : memref<2x3xi8>
  // CHECK: memref.copy %[[SLICE]], %[[IN]]
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<4x3xi8>
  // CHECK: %[[U8:.*]] = arith.constant 11 : i32
  // CHECK: call @distrt_all_gather(%[[U8]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
  // CHECK: return %[[OUT]]
  func.func @step(%x: tensor<4x3xui8>) -> tensor<4x3xui8> {
    %s = dist.slice %x starts = [1, 0] strides = [1, 1] : (tensor<4x3xui8>) -> tensor<2x3xui8>
    %g = dist.all_gather %s dim = 0 axes = [0] : (tensor<2x3xui8>) -> tensor<4x3xui8>
    return %g : tensor<4x3xui8>
  }
}

// -----

// A bucket: the inputs are copied into one buffer whose all-reduce starts;
// the wait completes it and copies each result out.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<2x3xf32>)
  // CHECK: %[[BUCKET:.*]] = memref.alloc() {{.*}} : memref<10xf32>
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4xf32> to memref<4xf32, strided<[1]>>
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<6xf32> to memref<6xf32, strided<[1], offset: 4>>
  // CHECK: %[[REQUEST:.*]] = call @distrt_all_reduce_start
  // CHECK: call @distrt_wait(%[[REQUEST]]) : (i64) -> ()
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4xf32, strided<[1]>> to memref<4xf32>
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<6xf32, strided<[1], offset: 4>> to memref<6xf32>
  func.func @step(%a: tensor<4xf32>, %b: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
    %bucket, %request = dist.all_reduce_start sum, %a, %b axes = [0] : (tensor<4xf32>, tensor<2x3xf32>) -> (tensor<10xf32>, i64)
    %r:2 = dist.wait %request, %bucket : tensor<10xf32> -> tensor<4xf32>, tensor<2x3xf32>
    return %r#0, %r#1 : tensor<4xf32>, tensor<2x3xf32>
  }
}
