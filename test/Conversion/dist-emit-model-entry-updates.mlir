// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s

// A result that updates an argument (a training step's new parameter) is
// not an output: the entry point passes the argument's own buffer (slot 0)
// as that result's out-parameter, after the loss's (slot 2).
// CHECK: llvm.mlir.global external constant @dist_model_interface("dist-model 1\0Amode train\0Aparam float32 4 w\0Astep int64 scalar step\0Aoutput float32 scalar loss\0A\00")
// CHECK-LABEL: llvm.func @dist_model_forward(
// CHECK-SAME: %[[BUFFERS:.*]]: !llvm.ptr)
// CHECK: llvm.getelementptr %[[BUFFERS]][0]
// CHECK: llvm.getelementptr %[[BUFFERS]][1]
// CHECK: llvm.getelementptr %[[BUFFERS]][2]
// CHECK: llvm.getelementptr %[[BUFFERS]][0]
// CHECK: llvm.call @_mlir_ciface_forward(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
module {
  dist.parameter @w : tensor<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  func.func @forward(%w: tensor<4xf32> {dist.parameter = @w}, %step: tensor<i64> {dist.step})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4xf32> {dist.updates = 0 : i64}) {
    %l = dist.reduce_sum %w axes = [0] : (tensor<4xf32>) -> tensor<f32>
    %h = dist.constant dense<0.5> : tensor<f32>
    %n = dist.mul %w, %h : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %l, %n : tensor<f32>, tensor<4xf32>
  }
}
