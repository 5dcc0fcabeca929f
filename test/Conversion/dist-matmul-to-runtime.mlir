// RUN: dist-opt %s --dist-matmul-to-runtime | FileCheck %s

// CHECK: func.func private @distrt_gemm(i32, i32, i32, i64, i64, i64, i64, f64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, f64, !llvm.ptr, i64, i64)
// Arguments: dtype (0 = f32), trans_a, trans_b, batch, m, n, k, alpha, and
// pointer, row stride and batch stride of A, B and C.
// CHECK-LABEL: func.func @plain
// CHECK: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: %[[TA:.*]] = arith.constant 0 : i32
// CHECK: %[[TB:.*]] = arith.constant 0 : i32
// CHECK: %[[B:.*]] = arith.constant 1 : i64
// CHECK: %[[M:.*]] = arith.constant 8 : i64
// CHECK: %[[N:.*]] = arith.constant 16 : i64
// CHECK: %[[K:.*]] = arith.constant 32 : i64
// CHECK: call @distrt_gemm(%[[F32]], %[[TA]], %[[TB]], %[[B]], %[[M]], %[[N]], %[[K]],
// CHECK-NOT: linalg.matmul
func.func @plain(%a: memref<8x32xf32>, %b: memref<32x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// The transposed B of attention scores: trans_b = 1.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: %[[TA:.*]] = arith.constant 0 : i32
// CHECK: %[[TB:.*]] = arith.constant 1 : i32
// CHECK: %[[B:.*]] = arith.constant 2 : i64
// CHECK: call @distrt_gemm(%[[F32]], %[[TA]], %[[TB]], %[[B]],
func.func @transposed(%a: memref<2x64x32xf32>, %b: memref<2x64x32xf32>, %c: memref<2x64x64xf32>) {
  linalg.batch_matmul indexing_maps = [
      affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
      affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>,
      affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
    ins(%a, %b : memref<2x64x32xf32>, memref<2x64x32xf32>) outs(%c : memref<2x64x64xf32>)
  return
}

// A column view (inner stride 2) is not BLAS-compatible: loops stay.
// CHECK-LABEL: func.func @strided
// CHECK: linalg.matmul
func.func @strided(%a: memref<8x32xf32, strided<[64, 2]>>, %b: memref<32x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x32xf32, strided<[64, 2]>>, memref<32x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// f16 has no BLAS gemm: loops stay.
// CHECK-LABEL: func.func @half
// CHECK: linalg.matmul
func.func @half(%a: memref<8x32xf16>, %b: memref<32x16xf16>, %c: memref<8x16xf16>) {
  linalg.matmul ins(%a, %b : memref<8x32xf16>, memref<32x16xf16>) outs(%c : memref<8x16xf16>)
  return
}

