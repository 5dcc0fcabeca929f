// RUN: dist-opt %s --split-input-file --dist-results-to-out-params | FileCheck %s

// A forward program: the result is computed straight into the caller's
// buffer (the allocation is hoisted: no copy).
// CHECK-LABEL: func.func @forward(%arg0: memref<4xf32>, %arg1: memref<4xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%arg0 : memref<4xf32>) outs(%arg1 : memref<4xf32>)
// CHECK-NEXT: return
func.func @forward(%x: memref<4xf32>) -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%r : memref<4xf32>)
  return %r : memref<4xf32>
}

// -----

// A training step, whose out-parameter is its argument's own buffer
// (dist.model_updates): the result is computed into a temporary and copied
// out at the end, never in place.
// CHECK-LABEL: func.func @train_step(%arg0: memref<4xf32>, %arg1: memref<4xf32>)
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.copy ins(%arg0 : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK: memref.copy %[[T]], %arg1
// CHECK-NEXT: return
module attributes {dist.model_updates = array<i64: 0>} {
  func.func @train_step(%x: memref<4xf32>) -> memref<4xf32> {
    %r = memref.alloc() : memref<4xf32>
    linalg.copy ins(%x : memref<4xf32>) outs(%r : memref<4xf32>)
    return %r : memref<4xf32>
  }
}
