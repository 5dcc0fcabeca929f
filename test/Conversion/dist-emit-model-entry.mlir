// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s
// RUN: not dist-opt %s --dist-emit-model-entry -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// The CUDA lowering's target (test/Cuda/lower-to-cuda.mlir) becomes a
// "target" member; an unknown one is an error.
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-describe-model, dist-emit-model-entry{target="tpu v5"})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: target 'tpu v5': expected 'cpu' or 'cuda <arch>'

// The entry point wraps each buffer pointer in a memref descriptor (2x4:
// sizes 2, 4 and strides 4, 1) and calls the C interface of @forward with
// the input, the parameter and the out-parameter of the result.
// The description is JSON (\22 is '"'), NUL-terminated.
// CHECK: llvm.mlir.global external constant @dist_model_interface("{\22arguments\22:[{\22dtype\22:\22float32\22,\22name\22:\22x\22,\22role\22:\22input\22,\22shape\22:[2,4]},{\22dtype\22:\22float32\22,\22name\22:\22w\22,\22role\22:\22param\22,\22shape\22:[4]}],\22format\22:\22dist-model\22,\22mode\22:\22forward\22,\22outputs\22:[{\22dtype\22:\22float32\22,\22name\22:\22y\22,\22shape\22:[2,4]}],\22version\22:1}\0A\00")
// CHECK-LABEL: llvm.func @dist_model_forward(%{{.*}}: !llvm.ptr)
// CHECK-COUNT-3: llvm.alloca
// CHECK: llvm.call @_mlir_ciface_forward(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: dist.parameter
// ERR: error: no dist.model_interface attribute: run dist-describe-model first
module {
  dist.parameter @w : tensor<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  func.func @forward(%x: tensor<2x4xf32> {dist.input_name = "x"}, %w: tensor<4xf32> {dist.parameter = @w}) -> (tensor<2x4xf32> {dist.output_name = "y"}) {
    %0 = dist.mul %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
