// A two-layer MLP classifier with its loss: 32 features, 64 hidden units,
// 10 classes, batch 8. Parameters carry their initial values inline here;
// imported models keep them in resource blobs.
//
//   build/bin/dist-opt examples/mlp/mlp.mlir

dist.parameter @fc1.weight : tensor<64x32xf32> = dense<0.01> : tensor<64x32xf32>
dist.parameter @fc1.bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
dist.parameter @fc2.weight : tensor<10x64xf32> = dense<0.02> : tensor<10x64xf32>
dist.parameter @fc2.bias : tensor<10xf32> = dense<0.0> : tensor<10xf32>

func.func @forward(%x: tensor<8x32xf32>, %labels: tensor<8xi64>,
                   %w1: tensor<64x32xf32> {dist.parameter = @fc1.weight},
                   %b1: tensor<64xf32> {dist.parameter = @fc1.bias},
                   %w2: tensor<10x64xf32> {dist.parameter = @fc2.weight},
                   %b2: tensor<10xf32> {dist.parameter = @fc2.bias})
    -> (tensor<f32>, tensor<8x10xf32>) {
  %h = dist.gemm %x, %w1, %b1 {transpose_b}
      : (tensor<8x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %a = dist.relu %h : tensor<8x64xf32>
  %logits = dist.gemm %a, %w2, %b2 {transpose_b}
      : (tensor<8x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %loss = dist.cross_entropy mean, %logits, %labels
      : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  return %loss, %logits : tensor<f32>, tensor<8x10xf32>
}
