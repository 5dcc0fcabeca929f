// RUN: dist-opt %s --split-input-file --dist-matmul-to-runtime="function=distrt_cuda_gemm epilogues=1" --canonicalize | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-matmul-to-runtime --canonicalize | FileCheck %s --check-prefix=CPU

// With epilogues (the CUDA lowering), the elementwise ops after an f32
// product run in cuBLASLt's epilogue. Arguments after C's: epilogue
// (0 plain, 1 bias, 2 bias + tanh GELU), bias, aux, ldaux, C's element type
// (dist-matmul-to-runtime-bf16-output.mlir), the op's name.
// Without, the CPU's distrt_gemm keeps its 18 arguments and nothing folds.

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// The bias addition after a product (through the expand_shape back to
// batch x seq): the product writes the addition's output, adding the bias.
// CHECK: llvm.mlir.global internal constant @dist_gemm_op_0("/h.0/attn/c_attn/MatMul (gpt2.onnx)\00")
// CHECK: func.func private @distrt_cuda_gemm(i32, i32, i32, i64, i64, i64, i64, f64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, f64, !llvm.ptr, i64, i64, i32, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr)
// CHECK-LABEL: func.func @bias_add
// CHECK-DAG: %[[BETA0:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[NAME:.*]] = llvm.mlir.addressof @dist_gemm_op_0
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x8x64xf32>
// CHECK-NOT: linalg.
// CHECK: extract_aligned_pointer_as_index %[[OUT]] :
// CHECK: extract_aligned_pointer_as_index %arg2
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: %[[B:.*]] = llvm.inttoptr
// CHECK-NEXT: call @distrt_cuda_gemm({{(([^,]*, ){14})}}%[[BETA0]], {{(([^,]*, ){3})}}%[[BIAS]], %[[B]], %[[NULL]], %{{.*}}, %[[NAME]])
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
// CPU-LABEL: func.func @bias_add
// CPU: call @distrt_gemm
// CPU: linalg.generic
func.func @bias_add(%x: memref<16x32xf32>, %w: memref<32x64xf32>, %bias: memref<64xf32>) -> memref<2x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>) loc(#c_attn)
  %e = memref.expand_shape %c [[0, 1], [2]] output_shape [2, 8, 64] : memref<16x64xf32> into memref<2x8x64xf32>
  %out = memref.alloc() : memref<2x8x64xf32>
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias, %e : memref<64xf32>, memref<2x8x64xf32>) outs(%out : memref<2x8x64xf32>) {
  ^bb0(%b: f32, %p: f32, %o: f32):
    %s = arith.addf %b, %p : f32
    linalg.yield %s : f32
  }
  return %out : memref<2x8x64xf32>
}
#c_attn = loc(fused["/h.0/attn/c_attn/MatMul"("gpt2.onnx":0:0)])

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// dist.gemm's bias broadcast into the output, then tanh GELU of the result
// in a generic of its own, whose input the backward pass also reads: one
// call, epilogue 2, the values before GELU written as aux (ldaux = n).
// CHECK-LABEL: func.func @gelu_aux
// CHECK-DAG: %[[GELU:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 64 : i64
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[GELU]], %{{.*}}, %{{.*}}, %[[N]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @gelu_aux(%x: memref<16x32xf32>, %w: memref<32x64xf32>, %bias: memref<64xf32>) -> (memref<16x64xf32>, memref<16x64xf32>) {
  %c = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  %g = memref.alloc() : memref<16x64xf32>
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k = arith.constant 0.044715 : f32
  %s = arith.constant 0.797884583 : f32
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x64xf32>) outs(%g : memref<16x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %k : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %s : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r : f32
  }
  return %g, %c : memref<16x64xf32>, memref<16x64xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// The bias addition and its GELU in two outputs of one generic (what
// dist-fuse-elementwise's multi-output fusion writes when the backward
// pass reads the sum), GELU's first: epilogue 2, GELU's values into the
// first output, the sums as aux (ldaux = n). With n = 60 (not a multiple
// of 8, cuBLASLt's rule for aux) nothing folds.
// CHECK-LABEL: func.func @two_outputs
// CHECK-DAG: %[[GELU:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 64 : i64
// CHECK: %[[G:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK: %[[S:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK-NOT: linalg.
// CHECK: extract_aligned_pointer_as_index %[[G]]
// CHECK: extract_aligned_pointer_as_index %[[S]]
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: %[[AUX:.*]] = llvm.inttoptr
// CHECK-NEXT: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[GELU]], %{{.*}}, %[[AUX]], %[[N]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]], %[[S]]
// CHECK-LABEL: func.func @two_outputs_odd
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: linalg.generic
func.func @two_outputs(%x: memref<16x32xf32>, %w: memref<32x64xf32>, %bias: memref<64xf32>) -> (memref<16x64xf32>, memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  %g = memref.alloc() : memref<16x64xf32>
  %sum = memref.alloc() : memref<16x64xf32>
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k = arith.constant 0.044715 : f32
  %s = arith.constant 0.797884583 : f32
  linalg.generic {indexing_maps = [#row2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %c : memref<64xf32>, memref<16x64xf32>) outs(%g, %sum : memref<16x64xf32>, memref<16x64xf32>) {
  ^bb0(%b: f32, %p: f32, %o: f32, %o2: f32):
    %v = arith.addf %p, %b : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %k : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %s : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r, %v : f32, f32
  }
  return %g, %sum : memref<16x64xf32>, memref<16x64xf32>
}
func.func @two_outputs_odd(%x: memref<16x32xf32>, %w: memref<32x60xf32>, %bias: memref<60xf32>) -> (memref<16x60xf32>, memref<16x60xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x60xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x60xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x60xf32>) outs(%c : memref<16x60xf32>)
  %g = memref.alloc() : memref<16x60xf32>
  %sum = memref.alloc() : memref<16x60xf32>
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k = arith.constant 0.044715 : f32
  %s = arith.constant 0.797884583 : f32
  linalg.generic {indexing_maps = [#row2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %c : memref<60xf32>, memref<16x60xf32>) outs(%g, %sum : memref<16x60xf32>, memref<16x60xf32>) {
  ^bb0(%b: f32, %p: f32, %o: f32, %o2: f32):
    %v = arith.addf %p, %b : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %k : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %s : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r, %v : f32, f32
  }
  return %g, %sum : memref<16x60xf32>, memref<16x60xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// The bias addition and GELU fused in one generic (inference): epilogue 2
// without aux.
// CHECK-LABEL: func.func @fused_bias_gelu
// CHECK-DAG: %[[GELU:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[GELU]], %{{.*}}, %[[NULL]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.generic
func.func @fused_bias_gelu(%x: memref<16x32xf32>, %w: memref<32x64xf32>, %bias: memref<64xf32>) -> memref<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  %out = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<16x64xf32>, memref<64xf32>) outs(%out : memref<16x64xf32>) {
  ^bb0(%p: f32, %b: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.044715 : f32
    %s = arith.constant 0.797884583 : f32
    %v = arith.addf %p, %b : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %k : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %s : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r : f32
  }
  return %out : memref<16x64xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// GELU with erf (PyTorch's default) is not what cuBLASLt computes: the
// bias folds, the GELU stays a generic.
// CHECK-LABEL: func.func @erf_gelu
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 1 : i32
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[BIAS]],
// CHECK: linalg.generic
// CHECK: math.erf
func.func @erf_gelu(%x: memref<16x32xf32>, %w: memref<32x64xf32>, %bias: memref<64xf32>) -> memref<16x64xf32> {
  %c = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  %g = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x64xf32>) outs(%g : memref<16x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %r2 = arith.constant 0.707106769 : f32
    %t0 = arith.mulf %v, %r2 : f32
    %t1 = math.erf %t0 : f32
    %t2 = arith.addf %t1, %one : f32
    %t3 = arith.mulf %v, %half : f32
    %r = arith.mulf %t3, %t2 : f32
    linalg.yield %r : f32
  }
  return %g : memref<16x64xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// Not folded: a write between the product and the addition (moving the
// product down past it could change what it reads), a subtraction, and an
// addition writing into the product's own input.
// CHECK-LABEL: func.func @not_folded
// CHECK-DAG: %[[PLAIN:.*]] = arith.constant 0 : i32
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[PLAIN]],
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[PLAIN]],
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: call @distrt_cuda_gemm({{(([^,]*, ){18})}}%[[PLAIN]],
// CHECK: linalg.generic
func.func @not_folded(%x: memref<16x32xf32>, %w: memref<32x64xf32>, %bias: memref<64xf32>, %y: memref<16x64xf32>, %sq: memref<64x64xf32>) -> (memref<16x64xf32>, memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<16x64xf32>)
  %out = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<16x64xf32>, memref<64xf32>) outs(%out : memref<16x64xf32>) {
  ^bb0(%p: f32, %b: f32, %o: f32):
    %v = arith.addf %p, %b : f32
    linalg.yield %v : f32
  }
  %c2 = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<16x64xf32>)
  linalg.matmul ins(%x, %w : memref<16x32xf32>, memref<32x64xf32>) outs(%c2 : memref<16x64xf32>)
  %out2 = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c2, %bias : memref<16x64xf32>, memref<64xf32>) outs(%out2 : memref<16x64xf32>) {
  ^bb0(%p: f32, %b: f32, %o: f32):
    %v = arith.subf %p, %b : f32
    linalg.yield %v : f32
  }
  %c3 = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%zero : f32) outs(%c3 : memref<16x64xf32>)
  linalg.matmul ins(%y, %sq : memref<16x64xf32>, memref<64x64xf32>) outs(%c3 : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c3, %bias : memref<16x64xf32>, memref<64xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%p: f32, %b: f32, %o: f32):
    %v = arith.addf %p, %b : f32
    linalg.yield %v : f32
  }
  return %out, %out2 : memref<16x64xf32>, memref<16x64xf32>
}
