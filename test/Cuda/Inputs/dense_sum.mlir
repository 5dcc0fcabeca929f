// One 1024 x 1024 parameter (1M values), the loss the sum of the parameter
// times an input (kernel-shapes.test): its AdamW step with clipping reduces
// 1M values twice (the loss and the gradient's squared norm).
dist.parameter @w : tensor<1024x1024xf32> = dense<0.01> : tensor<1024x1024xf32>

func.func @forward(%x: tensor<1024x1024xf32>,
                   %w: tensor<1024x1024xf32> {dist.parameter = @w})
    -> tensor<f32> {
  %p = dist.mul %w, %x
      : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %loss = dist.reduce_sum %p axes = [0, 1]
      : (tensor<1024x1024xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
