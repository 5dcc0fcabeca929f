// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s
// RUN: not dist-opt %s --dist-emit-model-entry -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// The entry point wraps each buffer pointer in a memref descriptor (2x4:
// sizes 2, 4 and strides 4, 1) and calls the C interface of @forward with
// the input, the parameter and the out-parameter of the result.
// CHECK: llvm.mlir.global external constant @dist_model_interface("dist-model 1\0Ainput float32 2x4 x\0Aparam float32 4 w\0Aoutput float32 2x4 y\0A\00")
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
