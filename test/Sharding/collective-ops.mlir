// RUN: dist-opt %s | dist-opt | FileCheck %s

module attributes {dist.mesh = array<i64: 2, 2>} {
  // CHECK-LABEL: func.func @collectives
  func.func @collectives(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<8x6xf32>, tensor<2x6xf32>, tensor<4x3xf32>, tensor<4x6xf32>) {
    // CHECK: dist.all_reduce sum, %{{.*}} axes = [0, 1] : tensor<4x6xf32>
    %0 = dist.all_reduce sum, %x axes = [0, 1] : tensor<4x6xf32>
    // CHECK: dist.all_gather %{{.*}} dim = 0 axes = [1] : (tensor<4x6xf32>) -> tensor<8x6xf32>
    %1 = dist.all_gather %x dim = 0 axes = [1] : (tensor<4x6xf32>) -> tensor<8x6xf32>
    // CHECK: dist.reduce_scatter mean, %{{.*}} dim = 0 axes = [0] : (tensor<4x6xf32>) -> tensor<2x6xf32>
    %2 = dist.reduce_scatter mean, %x dim = 0 axes = [0] : (tensor<4x6xf32>) -> tensor<2x6xf32>
    // CHECK: dist.shard_slice %{{.*}} dim = 1 axes = [1] : (tensor<4x6xf32>) -> tensor<4x3xf32>
    %3 = dist.shard_slice %x dim = 1 axes = [1] : (tensor<4x6xf32>) -> tensor<4x3xf32>
    // CHECK: dist.all_reduce max
    %4 = dist.all_reduce max, %x axes = [1] : tensor<4x6xf32>
    return %0, %1, %2, %3, %4 : tensor<4x6xf32>, tensor<8x6xf32>, tensor<2x6xf32>, tensor<4x3xf32>, tensor<4x6xf32>
  }
}
