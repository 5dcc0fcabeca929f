// A small ResNet-style CNN (batch 4, 3x16x16 images, 10 classes): a stem
// convolution, batch norm (training mode, frozen running statistics), ReLU,
// max pool, one residual block, global average pooling and a linear head.
//
//   build/bin/dist-opt examples/cnn/cnn.mlir

dist.parameter @conv1.weight : tensor<8x3x3x3xf32>
dist.parameter @bn1.weight : tensor<8xf32>
dist.parameter @bn1.bias : tensor<8xf32>
dist.parameter frozen @bn1.running_mean : tensor<8xf32>
dist.parameter frozen @bn1.running_var : tensor<8xf32>
dist.parameter @block.conv_a.weight : tensor<8x8x3x3xf32>
dist.parameter @block.conv_b.weight : tensor<8x8x3x3xf32>
dist.parameter @fc.weight : tensor<10x8xf32>
dist.parameter @fc.bias : tensor<10xf32>

func.func @forward(
    %images: tensor<4x3x16x16xf32>, %labels: tensor<4xi64>,
    %w1: tensor<8x3x3x3xf32> {dist.parameter = @conv1.weight},
    %g1: tensor<8xf32> {dist.parameter = @bn1.weight},
    %b1: tensor<8xf32> {dist.parameter = @bn1.bias},
    %m1: tensor<8xf32> {dist.parameter = @bn1.running_mean},
    %v1: tensor<8xf32> {dist.parameter = @bn1.running_var},
    %wa: tensor<8x8x3x3xf32> {dist.parameter = @block.conv_a.weight},
    %wb: tensor<8x8x3x3xf32> {dist.parameter = @block.conv_b.weight},
    %wf: tensor<10x8xf32> {dist.parameter = @fc.weight},
    %bf: tensor<10xf32> {dist.parameter = @fc.bias}) -> tensor<f32> {
  // Stem.
  %c1 = dist.conv2d %images, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x16x16xf32>
  %n1 = dist.batch_norm %c1, %g1, %b1, %m1, %v1 {training} : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x16x16xf32>
  %r1 = dist.relu %n1 : tensor<4x8x16x16xf32>
  %p1 = dist.max_pool2d %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<4x8x16x16xf32>) -> tensor<4x8x8x8xf32>

  // Residual block.
  %ca = dist.conv2d %p1, %wa {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32>
  %ra = dist.relu %ca : tensor<4x8x8x8xf32>
  %cb = dist.conv2d %ra, %wb {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32>
  %sum = dist.add %cb, %p1 : (tensor<4x8x8x8xf32>, tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %rb = dist.relu %sum : tensor<4x8x8x8xf32>

  // Head.
  %g = dist.global_avg_pool %rb : (tensor<4x8x8x8xf32>) -> tensor<4x8x1x1xf32>
  %flat = dist.reshape %g : (tensor<4x8x1x1xf32>) -> tensor<4x8xf32>
  %logits = dist.gemm %flat, %wf, %bf {transpose_b} : (tensor<4x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %loss = dist.cross_entropy mean, %logits, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
