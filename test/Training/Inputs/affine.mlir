// An affine model (weight and bias) with a mean-squared loss.
dist.parameter @w : tensor<4x3xf32> = dense<0.5> : tensor<4x3xf32>
dist.parameter @b : tensor<3xf32> = dense<0.25> : tensor<3xf32>

func.func @forward(%x: tensor<8x4xf32> {dist.input_name = "x"},
                   %w: tensor<4x3xf32> {dist.parameter = @w},
                   %b: tensor<3xf32> {dist.parameter = @b})
    -> (tensor<f32> {dist.output_name = "loss"}) {
  %xw = dist.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %y = dist.add %xw, %b : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %sq = dist.mul %y, %y : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  %l = dist.reduce_mean %sq axes = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
