// RUN: dist-opt %s --dist-matmul-to-runtime --canonicalize | FileCheck %s

// A product into a buffer that only a zero fill wrote overwrites it
// (beta = 0) and the fill goes; one that accumulates onto data keeps beta 1.
// CHECK-LABEL: func.func @zero_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[BETA0:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NOT: linalg.fill
// CHECK: call @distrt_gemm({{(([^,]*, ){14})}}%[[BETA0]],
func.func @zero_fill(%a: memref<8x32xf32>, %b: memref<32x16xf32>) -> memref<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  return %c : memref<8x16xf32>
}

// CHECK-LABEL: func.func @accumulate
// CHECK: %[[BETA1:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: call @distrt_gemm({{(([^,]*, ){14})}}%[[BETA1]],
func.func @accumulate(%a: memref<8x32xf32>, %b: memref<32x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// One buffer of zeros copied into each product's output (what bufferizing
// a shared zero tensor gives), the last product writing it in place: every
// product overwrites (beta 0), the copies go, and the fill stays until no
// copy reads it.
// CHECK-LABEL: func.func @zero_copies
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK: %[[BETA0:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK: call @distrt_gemm({{(([^,]*, ){14})}}%[[BETA0]],
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK: call @distrt_gemm({{(([^,]*, ){14})}}%[[BETA0]],
func.func @zero_copies(%a: memref<8x32xf32>, %b: memref<32x16xf32>) -> (memref<8x16xf32>, memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<8x16xf32>)
  %c = memref.alloc() : memref<8x16xf32>
  memref.copy %z, %c : memref<8x16xf32> to memref<8x16xf32>
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%z : memref<8x16xf32>)
  return %c, %z : memref<8x16xf32>, memref<8x16xf32>
}

// A copy from a buffer something else wrote after its zero fill is data:
// beta 1, the copy stays.
// CHECK-LABEL: func.func @copy_of_data
// CHECK-DAG: %[[BETA1:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG: memref.copy
// CHECK: call @distrt_gemm({{(([^,]*, ){14})}}%[[BETA1]],
func.func @copy_of_data(%a: memref<8x32xf32>, %b: memref<32x16xf32>, %d: memref<8x16xf32>) -> memref<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<8x16xf32>)
  linalg.copy ins(%d : memref<8x16xf32>) outs(%z : memref<8x16xf32>)
  %c = memref.alloc() : memref<8x16xf32>
  memref.copy %z, %c : memref<8x16xf32> to memref<8x16xf32>
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  return %c : memref<8x16xf32>
}

// The product's output read afterwards by a load nested in another op (a
// gather in a generic's body: cross-entropy's logit at each label) still
// overwrites it (beta 0) and the fill goes: the nested use counts as its
// op, which comes after the product.
// CHECK-LABEL: func.func @nested_reader
// CHECK-NOT: linalg.fill
// CHECK: %[[BETA0:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NOT: linalg.fill
// CHECK: call @distrt_gemm({{(([^,]*, ){14})}}%[[BETA0]],
// CHECK: linalg.generic
// CHECK: memref.load
func.func @nested_reader(%a: memref<8x32xf32>, %b: memref<32x16xf32>, %labels: memref<8xindex>, %out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%labels : memref<8xindex>) outs(%out : memref<8xf32>) {
  ^bb0(%l: index, %o: f32):
    %n = linalg.index 0 : index
    %v = memref.load %c[%n, %l] : memref<8x16xf32>
    linalg.yield %v : f32
  }
  memref.dealloc %c : memref<8x16xf32>
  return
}
