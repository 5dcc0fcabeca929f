// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-free-buffers-early))' | FileCheck %s

// A buffer is freed right after its last use, views included.
// CHECK-LABEL: func.func @after_last_use
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK: memref.copy %[[V]], %arg0
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: memref.copy %arg1, %arg0
func.func @after_last_use(%out: memref<2x2xf32, strided<[4, 1]>>, %other: memref<2x2xf32, strided<[4, 1]>>) {
  %a = memref.alloc() : memref<4x4xf32>
  %v = memref.subview %a[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>
  memref.copy %v, %out : memref<2x2xf32, strided<[4, 1]>> to memref<2x2xf32, strided<[4, 1]>>
  memref.copy %other, %out : memref<2x2xf32, strided<[4, 1]>> to memref<2x2xf32, strided<[4, 1]>>
  memref.dealloc %a : memref<4x4xf32>
  return
}

// A raw pointer taken from the buffer keeps it alive until the call that
// uses the pointer (the runtime's gemm takes pointers).
// CHECK-LABEL: func.func @pointer_use
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: memref.copy
// CHECK: call @use_pointer
// CHECK-NEXT: memref.dealloc
func.func private @use_pointer(i64)
func.func @pointer_use(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  %i = arith.index_cast %p : index to i64
  memref.copy %out, %out : memref<4xf32> to memref<4xf32>
  call @use_pointer(%i) : (i64) -> ()
  memref.copy %out, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// A buffer that escapes through an op the pass does not follow keeps its
// dealloc.
// CHECK-LABEL: func.func @escapes
// CHECK: call @wrap
// CHECK-NEXT: memref.copy
// CHECK-NEXT: memref.dealloc
func.func private @wrap(memref<4xf32>) -> memref<4xf32>
func.func @escapes(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %w = call @wrap(%a) : (memref<4xf32>) -> memref<4xf32>
  memref.copy %w, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
