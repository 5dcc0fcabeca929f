// RUN: dist-opt %s --split-input-file --dist-mixed-precision="precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: dist-opt %s --split-input-file --dist-mixed-precision="precision=fp16" | FileCheck %s --check-prefix=FP16
// RUN: dist-opt %s --split-input-file --dist-mixed-precision="precision=fp32" | FileCheck %s --check-prefix=FP32
// RUN: not dist-opt %s --split-input-file --dist-mixed-precision="precision=fp8" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: dist-opt %s --split-input-file --dist-mixed-precision="precision=fp16" --dist-autodiff="loss-scale-argument=true" --dist-optimizer="optimizer=adamw loss-scale=dynamic loss-scale-value=1024 loss-scale-growth-interval=5" | FileCheck %s --check-prefix=SCALED

// A gemm with a bias (beta 2) and a conv with a bias: the inputs are cast
// to the compute type, the product cast back, the bias added after in f32
// (so its gradient is an f32 reduction); nothing else changes.
dist.parameter @w : tensor<4x3xf32> = dense<0.5> : tensor<4x3xf32>
dist.parameter @b : tensor<3xf32> = dense<0.0> : tensor<3xf32>
dist.parameter @k : tensor<2x1x3x3xf32> = dense<0.1> : tensor<2x1x3x3xf32>
dist.parameter @kb : tensor<2xf32> = dense<0.0> : tensor<2xf32>
// BF16-LABEL: func.func @forward
// BF16: %[[X:.*]] = dist.cast %arg0 : tensor<8x4xf32> to tensor<8x4xbf16>
// BF16: %[[W:.*]] = dist.cast %arg2 : tensor<4x3xf32> to tensor<4x3xbf16>
// BF16: %[[P:.*]] = dist.gemm %[[X]], %[[W]] : (tensor<8x4xbf16>, tensor<4x3xbf16>) -> tensor<8x3xbf16>
// BF16: %[[PW:.*]] = dist.cast %[[P]] : tensor<8x3xbf16> to tensor<8x3xf32>
// BF16: %[[B2:.*]] = dist.mul %arg3, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// BF16: %[[Y:.*]] = dist.add %[[PW]], %[[B2]] : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
// BF16: %[[I:.*]] = dist.cast %arg1 : tensor<1x1x5x5xf32> to tensor<1x1x5x5xbf16>
// BF16: %[[K:.*]] = dist.cast %arg4 : tensor<2x1x3x3xf32> to tensor<2x1x3x3xbf16>
// BF16: %[[C:.*]] = dist.conv2d %[[I]], %[[K]] : (tensor<1x1x5x5xbf16>, tensor<2x1x3x3xbf16>) -> tensor<1x2x3x3xbf16>
// BF16: %[[CW:.*]] = dist.cast %[[C]] : tensor<1x2x3x3xbf16> to tensor<1x2x3x3xf32>
// BF16: %[[KB:.*]] = dist.reshape %arg5 : (tensor<2xf32>) -> tensor<2x1x1xf32>
// BF16: %[[Z:.*]] = dist.add %[[CW]], %[[KB]] : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
// BF16: dist.reduce_mean %[[Y]] axes = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
// BF16: dist.reduce_mean %[[Z]]
// FP16-LABEL: func.func @forward
// FP16: dist.gemm %{{.*}}, %{{.*}} : (tensor<8x4xf16>, tensor<4x3xf16>) -> tensor<8x3xf16>
// FP16: dist.conv2d %{{.*}}, %{{.*}} : (tensor<1x1x5x5xf16>, tensor<2x1x3x3xf16>) -> tensor<1x2x3x3xf16>
// FP32-LABEL: func.func @forward
// FP32-NOT: dist.cast
// FP32: dist.gemm %arg0, %arg2, %arg3 {beta = 2.000000e+00 : f64}
// BAD: error: precision 'fp8' is not one of fp32, bf16, fp16

// With dynamic loss scaling the step takes the scale, its growth tracker
// and the skipped-step count as state of the whole step (the scale starts
// at loss-scale-value), returns loss_scale and skipped after lr, and
// selects the old value of every parameter and state when a gradient is
// inf or NaN (sum(g * 0) != itself).
// SCALED-LABEL: func.func @train_step
// SCALED-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {dist.optimizer_state = #dist.optimizer_state<"loss_scale", init = 1.024000e+03 : f32>}
// SCALED-SAME: %[[T:[a-z0-9]+]]: tensor<f32> {dist.optimizer_state = #dist.optimizer_state<"loss_scale_growth_tracker">}
// SCALED-SAME: %[[N:[a-z0-9]+]]: tensor<f32> {dist.optimizer_state = #dist.optimizer_state<"skipped_steps">}
// SCALED-SAME: {dist.output_name = "loss"}, tensor<f32> {dist.output_name = "grad_norm"}, tensor<f32> {dist.output_name = "lr"}, tensor<f32> {dist.output_name = "loss_scale"}, tensor<f32> {dist.output_name = "skipped"}
// SCALED: %[[FOUND:.*]] = dist.compare ne, %[[Z:[0-9]+]], %[[Z]] : (tensor<f32>, tensor<f32>) -> tensor<i1>
// SCALED: dist.select %[[FOUND]], %arg2, %{{.*}} : (tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// SCALED: return %{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %{{.*}},
func.func @forward(%x: tensor<8x4xf32> {dist.input_name = "x"},
                   %img: tensor<1x1x5x5xf32> {dist.input_name = "img"},
                   %w: tensor<4x3xf32> {dist.parameter = @w},
                   %b: tensor<3xf32> {dist.parameter = @b},
                   %k: tensor<2x1x3x3xf32> {dist.parameter = @k},
                   %kb: tensor<2xf32> {dist.parameter = @kb})
    -> (tensor<f32> {dist.output_name = "loss"}) {
  %y = dist.gemm %x, %w, %b {beta = 2.0 : f64} : (tensor<8x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %c = dist.conv2d %img, %k, %kb : (tensor<1x1x5x5xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %l1 = dist.reduce_mean %y axes = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
  %l2 = dist.reduce_mean %c axes = [0, 1, 2, 3] : (tensor<1x2x3x3xf32>) -> tensor<f32>
  %l = dist.add %l1, %l2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
