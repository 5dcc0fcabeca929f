// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-overlap-collectives{bucket-mb=0.0001}))' | FileCheck %s
// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-overlap-collectives))' | FileCheck %s --check-prefix=ONE

// A backward pass producing three layers' gradients, last layer first, each
// all-reduced where the optimizer reads it. With ~100-byte buckets, each
// bucket starts right after its last gradient is produced and waits right
// before the first use, so the later layers' matmuls overlap the earlier
// buckets. With the default 25 MiB, one bucket holds all three.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @backward
  func.func @backward(%x: tensor<4x8xf32>, %d: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
    // CHECK:      %[[G2:.*]] = dist.matmul {{.*}} -> tensor<8x8xf32>
    // CHECK-NEXT: %[[B2:bucket[_0-9]*]], %[[Q2:request[_0-9]*]] = dist.all_reduce_start sum, %[[G2]] axes = [0] : (tensor<8x8xf32>) -> (tensor<64xf32>, i64)
    // CHECK-NEXT: %[[G1:.*]] = dist.matmul
    // CHECK-NEXT: %[[B1:bucket[_0-9]*]], %[[Q1:request[_0-9]*]] = dist.all_reduce_start sum, %[[G1]] axes = [0]
    // CHECK-NEXT: %[[G0:.*]] = dist.matmul
    // CHECK-NEXT: %[[B0:bucket[_0-9]*]], %[[Q0:request[_0-9]*]] = dist.all_reduce_start sum, %[[G0]] axes = [0]
    // CHECK-NEXT: %[[R2:.*]] = dist.wait %[[Q2]], %[[B2]] : tensor<64xf32> -> tensor<8x8xf32>
    // CHECK-NEXT: dist.mul %[[R2]]
    // CHECK-NEXT: %[[R1:.*]] = dist.wait %[[Q1]], %[[B1]]
    // CHECK-NEXT: dist.mul %[[R1]]
    // CHECK-NEXT: %[[R0:.*]] = dist.wait %[[Q0]], %[[B0]]
    // CHECK-NEXT: dist.mul %[[R0]]
    // ONE-LABEL: func.func @backward
    // ONE:      dist.matmul
    // ONE-NEXT: dist.matmul
    // ONE-NEXT: dist.matmul
    // ONE-NEXT: %[[B:bucket[_0-9]*]], %[[Q:request[_0-9]*]] = dist.all_reduce_start sum, %{{.*}}, %{{.*}}, %{{.*}} axes = [0] : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<192xf32>, i64)
    // ONE-NEXT: %{{.*}}:3 = dist.wait %[[Q]], %[[B]] : tensor<192xf32> -> tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
    %g2 = dist.matmul %x, %d {transpose_lhs} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %g1 = dist.matmul %d, %x {transpose_lhs} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %g0 = dist.matmul %x, %x {transpose_lhs} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %r2 = dist.all_reduce sum, %g2 axes = [0] : tensor<8x8xf32>
    %u2 = dist.mul %r2, %r2 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %r1 = dist.all_reduce sum, %g1 axes = [0] : tensor<8x8xf32>
    %u1 = dist.mul %r1, %r1 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %r0 = dist.all_reduce sum, %g0 axes = [0] : tensor<8x8xf32>
    %u0 = dist.mul %r0, %r0 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    return %u2, %u1, %u0 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  }
}

// -----

// Different kinds never share a bucket, and an all-reduce whose result is
// needed before another's input exists closes the bucket.
module {
  dist.mesh @mesh shape = 2
  // ONE-LABEL: func.func @kinds
  // ONE:      %[[S:bucket[_0-9]*]], %[[SQ:request[_0-9]*]] = dist.all_reduce_start sum, %arg0 axes = [0]
  // ONE-NEXT: %[[M:bucket[_0-9]*]], %[[MQ:request[_0-9]*]] = dist.all_reduce_start max, %arg0 axes = [0]
  // ONE-NEXT: %[[RS:.*]] = dist.wait %[[SQ]], %[[S]]
  // ONE-NEXT: %[[E:.*]] = dist.exp %[[RS]]
  // ONE-NEXT: %[[B:bucket[_0-9]*]], %[[BQ:request[_0-9]*]] = dist.all_reduce_start sum, %[[E]] axes = [0]
  // ONE-NEXT: %[[RM:.*]] = dist.wait %[[MQ]], %[[M]]
  // ONE-NEXT: %[[RB:.*]] = dist.wait %[[BQ]], %[[B]]
  func.func @kinds(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %s = dist.all_reduce sum, %x axes = [0] : tensor<4xf32>
    %m = dist.all_reduce max, %x axes = [0] : tensor<4xf32>
    %e = dist.exp %s : tensor<4xf32>
    %t = dist.all_reduce sum, %e axes = [0] : tensor<4xf32>
    %u = dist.add %m, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %u, %t : tensor<4xf32>, tensor<4xf32>
  }
}
