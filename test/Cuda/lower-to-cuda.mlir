// The CUDA lowering stage by stage on the example MLP's forward.
// RUN: dist-opt %S/../../examples/mlp/mlp.mlir --pass-pipeline='builtin.module(dist-lower-to-linalg,dist-linalg-to-cuda)' | FileCheck %s --check-prefix=GPU
// The whole pipeline: ptxas and fatbinary of the toolkit accept the kernels
// for each supported architecture (a fatbin: SASS + PTX).
// RUN: dist-opt %S/../../examples/mlp/mlp.mlir --pass-pipeline='builtin.module(dist-lower-to-cuda{toolkit=%cuda_home})' | FileCheck %s --check-prefix=BIN
// RUN: dist-opt %S/../../examples/mlp/mlp.mlir --pass-pipeline='builtin.module(dist-lower-to-cuda{toolkit=%cuda_home gpu-arch=sm_80})' | FileCheck %s --check-prefix=SM80
// RUN: dist-opt %S/../../examples/mlp/mlp.mlir --pass-pipeline='builtin.module(dist-lower-to-cuda{toolkit=%cuda_home gpu-arch=sm_100})' | FileCheck %s --check-prefix=SM100
// RUN: not dist-opt %S/../../examples/mlp/mlp.mlir --pass-pipeline='builtin.module(dist-lower-to-cuda{gpu-arch=sm_75})' 2>&1 | FileCheck %s --check-prefix=ARCH
// REQUIRES: cuda

// Matmuls call cuBLASLt (the bias in its epilogue: no broadcast kernel
// before the product, beta = 0, epilogue 1 = bias, the op's location for
// errors), every other op is a launch of a kernel in the one gpu.module,
// buffers come from memref.alloc (the device allocator), the
// cross-entropy's range check stays in its kernel.
// GPU-DAG: llvm.mlir.global internal constant @dist_gemm_op_0("loc(\22{{.*}}mlp.mlir\22:18:8)\00")
// GPU-DAG: func.func private @distrt_cuda_gemm(i32, i32, i32, i64, i64, i64, i64, f64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, f64, !llvm.ptr, i64, i64, i32, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr)
// GPU-DAG: func.func private @mgpuMemcpy(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
// GPU-LABEL: func.func @forward(
// GPU-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// GPU-DAG: %[[BIAS:.*]] = arith.constant 1 : i32
// GPU-DAG: %[[OP:.*]] = llvm.mlir.addressof @dist_gemm_op_0
// GPU: memref.alloc()
// GPU-NOT: gpu.launch_func
// GPU: extract_aligned_pointer_as_index %arg3
// GPU-NEXT: arith.index_cast
// GPU-NEXT: %[[B1:.*]] = llvm.inttoptr
// GPU-NEXT: call @distrt_cuda_gemm({{.*}}, %[[ZERO]], {{.*}}, %[[BIAS]], %[[B1]], {{.*}}, %[[OP]])
// GPU: gpu.launch_func @dist_kernels::@forward_k0 blocks in
// GPU-NOT: linalg.
// GPU-NOT: memref.load
// GPU: gpu.module @dist_kernels
// GPU-NOT: gpu.module
// GPU: gpu.func @forward_k0(
// GPU: cf.assert {{.*}}label is outside [0, 10)

// BIN-DAG: llvm.call @distrt_cuda_gemm
// BIN-DAG: llvm.call @_mlir_memref_to_llvm_alloc
// BIN-DAG: gpu.launch_func
// BIN: gpu.binary @dist_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// BIN-SAME: "P\ED
// BIN: llvm.mlir.global external constant @dist_model_interface("{\22arguments\22:
// BIN-SAME: \22target\22:{\22arch\22:\22sm_90\22,\22device\22:\22cuda\22}
// BIN: llvm.func @dist_model_forward(

// SM80: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// SM80: \22target\22:{\22arch\22:\22sm_80\22,\22device\22:\22cuda\22}
// SM100: #nvvm.target<O = 3, chip = "sm_100", features = "+ptx86">
// SM100: \22target\22:{\22arch\22:\22sm_100\22,\22device\22:\22cuda\22}

// ARCH: unsupported GPU architecture 'sm_75' (supported: sm_80, sm_89, sm_90, sm_100)
