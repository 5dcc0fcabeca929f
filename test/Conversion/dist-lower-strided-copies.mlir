// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-lower-strided-copies))' | FileCheck %s

// CHECK-LABEL: func.func @copies
// CHECK: memref.copy %arg0, %arg1 : memref<4x3xf32> to memref<4x3xf32>
// CHECK: linalg.copy ins(%arg0 : memref<4x3xf32>) outs(%arg2 : memref<4x3xf32, strided<[6, 1], offset: 2>>)
func.func @copies(%a: memref<4x3xf32>, %b: memref<4x3xf32>, %v: memref<4x3xf32, strided<[6, 1], offset: 2>>) {
  memref.copy %a, %b : memref<4x3xf32> to memref<4x3xf32>
  memref.copy %a, %v : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1], offset: 2>>
  return
}
