// y = exp(tanh(x * w)) and s = sum(y): an input, a parameter, two outputs.
module {
  dist.parameter @w : tensor<4xf32> = dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>
  func.func @forward(%x: tensor<2x4xf32> {dist.input_name = "x"},
                     %w: tensor<4xf32> {dist.parameter = @w})
      -> (tensor<2x4xf32> {dist.output_name = "y"}, tensor<f32> {dist.output_name = "s"}) {
    %0 = dist.mul %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %1 = dist.tanh %0 : tensor<2x4xf32>
    %2 = dist.exp %1 : tensor<2x4xf32>
    %3 = dist.reduce_sum %2 axes = [0, 1] : (tensor<2x4xf32>) -> tensor<f32>
    return %2, %3 : tensor<2x4xf32>, tensor<f32>
  }
}
