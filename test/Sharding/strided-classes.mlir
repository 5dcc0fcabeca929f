// RUN: dist-opt %s --dist-propagate-sharding --dist-partition | FileCheck %s

// Classes split in a strided way (each rank holds its block of each of two
// groups) have no parallel cross-entropy: the loss takes them whole, and only
// then is the mean over the split batch rebuilt as an all-reduced sum over an
// all-reduced count. Rebuilding the mean on the local block of classes would
// compare global labels with local class indices.
module {
  dist.mesh @mesh shape = 2x2
  // CHECK-LABEL: func.func @strided_classes
  // CHECK: %[[X:.*]] = dist.all_gather {{.*}} axes = [1]
  // CHECK: %[[L:.*]] = dist.reshape %[[X]] {{.*}} -> tensor<2x8xf32>
  // CHECK: %[[S:.*]] = dist.cross_entropy sum, %[[L]], %{{.*}} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<f32>
  // CHECK: dist.all_reduce sum, %[[S]] axes = [0]
  func.func @strided_classes(
      %x: tensor<4x8xf32> {dist.sharding = #dist.sharding<[0, 1/2]>},
      %y: tensor<4xi64> {dist.sharding = #dist.sharding<[0]>})
      -> tensor<f32> {
    %l = dist.cross_entropy mean, %x, %y : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<f32>
    return %l : tensor<f32>
  }
}
