// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(dist-write-updates-early{entry=step})' | FileCheck %s

// Result #1 updates argument #0: its copy moves up to right after the op
// that computes it, since nothing after reads argument #0. Result #0 is an
// output and keeps its copy.
// CHECK-LABEL: func.func @step
// CHECK: linalg.generic {{.*}} outs(%[[NEW:.*]] : memref<4xf32>)
// CHECK-NEXT: ^bb0
// CHECK: }
// CHECK-NEXT: memref.copy %[[NEW]], %arg3
// CHECK: linalg.generic
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: -1, 0>} {
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%p : memref<4xf32>) outs(%new : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
    %o = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%o : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    memref.copy %o, %out0 : memref<4xf32> to memref<4xf32>
    memref.copy %new, %out1 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// An op after the update still reads the argument the copy overwrites: the
// copy stays at the end.
// CHECK-LABEL: func.func @step
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK-NEXT: memref.copy %{{.*}}, %arg3
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: -1, 0>} {
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%new : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    %o = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%p : memref<4xf32>) outs(%o : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    memref.copy %o, %out0 : memref<4xf32> to memref<4xf32>
    memref.copy %new, %out1 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// A call after the update reads the argument through a raw pointer (as the
// runtime's gemm does): the copy stays at the end.
// CHECK-LABEL: func.func @step
// CHECK: call @read_pointer
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: 0>} {
  func.func private @read_pointer(i64)
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>) {
    %base = memref.extract_aligned_pointer_as_index %p : memref<4xf32> -> index
    %ptr = arith.index_cast %base : index to i64
    %new = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%new : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    call @read_pointer(%ptr) : (i64) -> ()
    memref.copy %new, %out0 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// The update's buffer is written by a runtime call through a raw pointer (as
// distrt's collectives write theirs), after the argument's last use: the
// copy moves no earlier than that call.
// CHECK-LABEL: func.func @step
// CHECK: call @write_pointer
// CHECK-NEXT: memref.copy %{{.*}}, %arg2
// CHECK: call @other
module attributes {dist.model_updates = array<i64: 0>} {
  func.func private @write_pointer(i64)
  func.func private @other()
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    memref.copy %p, %new : memref<4xf32> to memref<4xf32>
    %base = memref.extract_aligned_pointer_as_index %new : memref<4xf32> -> index
    %ptr = arith.index_cast %base : index to i64
    call @write_pointer(%ptr) : (i64) -> ()
    call @other() : () -> ()
    memref.copy %new, %out0 : memref<4xf32> to memref<4xf32>
    return
  }
}
