// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s

// A result that updates an argument (a training step's new parameter) is
// not an output: the entry point passes the argument's own buffer (slot 0)
// as that result's out-parameter, after the loss's (slot 2).
// CHECK: llvm.mlir.global external constant @dist_model_interface("{\22arguments\22:[{\22dtype\22:\22float32\22,\22name\22:\22w\22,\22role\22:\22param\22,\22shape\22:[4]},{\22dtype\22:\22int64\22,\22name\22:\22step\22,\22role\22:\22step\22,\22shape\22:[]}],\22format\22:\22dist-model\22,\22mode\22:\22train\22,\22outputs\22:[{\22dtype\22:\22float32\22,\22name\22:\22loss\22,\22shape\22:[]}],\22version\22:1}\0A\00")
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
