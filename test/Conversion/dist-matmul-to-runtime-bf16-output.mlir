// RUN: dist-opt %s --split-input-file --dist-matmul-to-runtime="function=distrt_cuda_gemm epilogues=1" --canonicalize | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-matmul-to-runtime --canonicalize | FileCheck %s --check-prefix=CPU

// A product of bfloat16 inputs whose float32 result is only rounded to
// bfloat16 (how dist-mixed-precision's products are lowered) writes the
// rounded values itself on CUDA: c_dtype (the argument before the op's
// name) is 3 (bfloat16) instead of 0 (float32), C is the rounding's
// output, and neither the float32 buffer nor the rounding remain. The
// CPU's distrt_gemm has no c_dtype: there the rounding stays a loop.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Batched (the attention scores), read through no view: batch stride m * n.
// CHECK-LABEL: func.func @batched
// CHECK-DAG: %[[BETA0:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG: %[[BF16:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[MN:.*]] = arith.constant 128 : i64
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x8x16xbf16>
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: extract_aligned_pointer_as_index %[[OUT]]
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: %[[C:.*]] = llvm.inttoptr
// CHECK-NEXT: call @distrt_cuda_gemm(%[[BF16]], {{(([^,]*, ){13})}}%[[BETA0]], %[[C]], %[[N]], %[[MN]], {{(([^,]*, ){4})}}%[[BF16]], %{{.*}})
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
// CPU-LABEL: func.func @batched
// CPU: call @distrt_gemm
// CPU: linalg.generic
// CPU: arith.truncf
func.func @batched(%q: memref<4x8x32xbf16>, %k: memref<4x32x16xbf16>) -> memref<4x8x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8x16xf32>)
  linalg.batch_matmul ins(%q, %k : memref<4x8x32xbf16>, memref<4x32x16xbf16>) outs(%c : memref<4x8x16xf32>)
  %out = memref.alloc() : memref<4x8x16xbf16>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : memref<4x8x16xf32>) outs(%out : memref<4x8x16xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %out : memref<4x8x16xbf16>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A 2-D product read through its expand_shape back to batch x seq: batch
// stride 0.
// CHECK-LABEL: func.func @expanded
// CHECK-DAG: %[[BF16:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x8x64xbf16>
// CHECK-NOT: linalg.
// CHECK: call @distrt_cuda_gemm(%[[BF16]], {{(([^,]*, ){16})}}%[[ZERO]], {{(([^,]*, ){4})}}%[[BF16]], %{{.*}})
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
func.func @expanded(%x: memref<16x32xbf16>, %w: memref<32x64xbf16>) -> memref<2x8x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c : memref<16x64xf32>)
  %e = memref.expand_shape %c [[0, 1], [2]] output_shape [2, 8, 64] : memref<16x64xf32> into memref<2x8x64xf32>
  %out = memref.alloc() : memref<2x8x64xbf16>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e : memref<2x8x64xf32>) outs(%out : memref<2x8x64xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %out : memref<2x8x64xbf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// What must not fold: the float32 result also read elsewhere (the caller
// gets it), a rounding to float16 (cuBLASLt's may saturate where truncf
// gives inf), a rounding that is more than a truncf, one of another
// rounding mode, and a product that accumulates onto its output (beta 1).
// Each keeps a float32 C (c_dtype 0) and its generic.
// CHECK-LABEL: func.func @kept
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){22})}}%[[F32]], %{{.*}})
// CHECK: linalg.generic
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){22})}}%[[F32]], %{{.*}})
// CHECK: linalg.generic
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){22})}}%[[F32]], %{{.*}})
// CHECK: linalg.generic
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){22})}}%[[F32]], %{{.*}})
// CHECK: linalg.generic
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){22})}}%[[F32]], %{{.*}})
// CHECK: linalg.generic
// CHECK-NOT: call @distrt_cuda_gemm
func.func @kept(%x: memref<16x32xbf16>, %w: memref<32x64xbf16>, %acc: memref<16x64xf32>)
    -> (memref<16x64xf32>, memref<16x64xbf16>, memref<16x64xf16>, memref<16x64xbf16>, memref<16x64xbf16>, memref<16x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c1 = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c1 : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c1 : memref<16x64xf32>)
  %o1 = memref.alloc() : memref<16x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c1 : memref<16x64xf32>) outs(%o1 : memref<16x64xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  %c2 = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c2 : memref<16x64xf32>)
  %o2 = memref.alloc() : memref<16x64xf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<16x64xf32>) outs(%o2 : memref<16x64xf16>) {
  ^bb0(%p: f32, %o: f16):
    %r = arith.truncf %p : f32 to f16
    linalg.yield %r : f16
  }
  %c3 = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c3 : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c3 : memref<16x64xf32>)
  %o3 = memref.alloc() : memref<16x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c3 : memref<16x64xf32>) outs(%o3 : memref<16x64xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %m = arith.mulf %p, %two : f32
    %r = arith.truncf %m : f32 to bf16
    linalg.yield %r : bf16
  }
  %c4 = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c4 : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c4 : memref<16x64xf32>)
  %o4 = memref.alloc() : memref<16x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c4 : memref<16x64xf32>) outs(%o4 : memref<16x64xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %r = arith.truncf %p to_nearest_away : f32 to bf16
    linalg.yield %r : bf16
  }
  linalg.matmul ins(%x, %w : memref<16x32xbf16>, memref<32x64xbf16>) outs(%acc : memref<16x64xf32>)
  %o5 = memref.alloc() : memref<16x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x64xf32>) outs(%o5 : memref<16x64xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %c1, %o1, %o2, %o3, %o4, %o5 : memref<16x64xf32>, memref<16x64xbf16>, memref<16x64xf16>, memref<16x64xbf16>, memref<16x64xbf16>, memref<16x64xbf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// The rounding writes into A: the product would overwrite what it reads.
// CHECK-LABEL: func.func @aliased
// CHECK: call @distrt_cuda_gemm
// CHECK: linalg.generic
func.func @aliased(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>) -> memref<64x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%x : memref<64x64xbf16>) {
  ^bb0(%p: f32, %o: bf16):
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %x : memref<64x64xbf16>
}
