// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-propagate-sharding,dist-partition)' | FileCheck %s

// A gradient norm over split and whole parameters: the sums of squares of
// split tensors are partial sums, those of whole ones are not. Each whole
// scalar added to (or subtracted from, or added to twice) the running
// partial sum is kept by the first rank and zeroed on the others (a
// select: the others add exactly zero), so the total stays a partial sum
// and is all-reduced once before the square root, not once per tensor (the
// order of the additions, and so the rounding, differs from one rank's).
// CHECK-LABEL: func.func @norm
// CHECK-SAME: %[[A:[^:]*]]: tensor<4xf32> {dist.sharding = #dist.sharding<[0]>}
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32> {dist.sharding = #dist.sharding<[-]>}
// CHECK: %[[SA:.*]] = dist.reduce_sum %{{.*}} axes = [0] : (tensor<4xf32>) -> tensor<f32>
// CHECK: %[[SB:.*]] = dist.reduce_sum %{{.*}} axes = [0] : (tensor<4xf32>) -> tensor<f32>
// CHECK: %[[SC:.*]] = dist.reduce_sum %{{.*}} axes = [0] : (tensor<3xf32>) -> tensor<f32>
// CHECK: %[[FIRST:.*]] = dist.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[MINE:.*]] = dist.shard_slice %[[FIRST]] dim = 0 axes = [0]
// CHECK: %[[M1:.*]] = dist.reshape %[[MINE]] : (tensor<1xi1>) -> tensor<i1>
// CHECK: %[[B1:.*]] = dist.select %[[M1]], %[[SB]], %{{.*}} : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: %[[T:.*]] = dist.add %[[SA]], %[[B1]]
// CHECK: %[[U:.*]] = dist.sub %[[T]], %[[SC]]
// CHECK-NOT: dist.shard_slice
// CHECK: %[[M2:.*]] = dist.reshape %[[MINE]] : (tensor<1xi1>) -> tensor<i1>
// CHECK: %[[B2:.*]] = dist.select %[[M2]], %[[SB]]
// CHECK: %[[V:.*]] = dist.add %[[U]], %[[B2]]
// CHECK: %[[TOTAL:.*]] = dist.all_reduce sum, %[[V]] axes = [0]
// CHECK-NOT: dist.all_reduce
// CHECK: dist.sqrt %[[TOTAL]]
module {
  dist.mesh @mesh shape = 2
  func.func @norm(%a: tensor<8xf32> {dist.sharding = #dist.sharding<[0]>},
                  %b: tensor<4xf32> {dist.sharding = #dist.sharding<[-]>},
                  %c: tensor<6xf32> {dist.sharding = #dist.sharding<[0]>}) -> tensor<f32> {
    %a2 = dist.mul %a, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %sa = dist.reduce_sum %a2 axes = [0] : (tensor<8xf32>) -> tensor<f32>
    %b2 = dist.mul %b, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %sb = dist.reduce_sum %b2 axes = [0] : (tensor<4xf32>) -> tensor<f32>
    %c2 = dist.mul %c, %c : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    %sc = dist.reduce_sum %c2 axes = [0] : (tensor<6xf32>) -> tensor<f32>
    %t = dist.add %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %u = dist.sub %t, %sc : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %v = dist.add %u, %sb : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %r = dist.sqrt %v : tensor<f32>
    return %r : tensor<f32>
  }
}
