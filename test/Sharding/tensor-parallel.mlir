// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dist-tensor-parallel{function=step},dist-propagate-sharding,dist-partition)' | FileCheck %s

// An MLP of two nn.Linear gemms with biases: the first is split along its
// output features, the second along its input features, its bias is split
// off (added once, after the all-reduce). The optimizer state follows.
module {
  dist.mesh @mesh shape = 2
  dist.parameter @w1 : tensor<8x4xf32> = dense<0.5> : tensor<8x4xf32>
  dist.parameter @b1 : tensor<8xf32> = dense<0.5> : tensor<8xf32>
  dist.parameter @w2 : tensor<3x8xf32> = dense<0.5> : tensor<3x8xf32>
  dist.parameter @b2 : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: %[[X:.*]]: tensor<2x4xf32>
  // CHECK-SAME: %[[W1:.*]]: tensor<4x4xf32> {dist.parameter = @w1, dist.sharding = #dist.sharding<[0, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: %[[B1:.*]]: tensor<4xf32> {dist.parameter = @b1, dist.sharding = #dist.sharding<[0]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: %[[W2:.*]]: tensor<3x4xf32> {dist.parameter = @w2, dist.sharding = #dist.sharding<[-, 0]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: %[[B2:.*]]: tensor<3xf32> {dist.parameter = @b2}
  // CHECK-SAME: tensor<4x4xf32> {dist.optimizer_state = #dist.optimizer_state<@w1, "m">, dist.sharding = #dist.sharding<[0, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: -> (tensor<2x3xf32>, tensor<4x4xf32> {dist.sharding = #dist.sharding<[0, -]>, dist.updates = 5 : i64})
  // CHECK: %[[H:.*]] = dist.gemm %[[X]], %[[W1]], %[[B1]] {transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: %[[G:.*]] = dist.gelu %[[H]] : tensor<2x4xf32>
  // CHECK: %[[P:.*]] = dist.gemm %[[G]], %[[W2]] {transpose_b} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R:.*]] = dist.all_reduce sum, %[[P]] axes = [0] {{.*}}: tensor<2x3xf32>
  // CHECK: dist.add %[[R]], %[[B2]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.func @step(%x: tensor<2x4xf32> {dist.input_name = "x"},
                  %w1: tensor<8x4xf32> {dist.parameter = @w1},
                  %b1: tensor<8xf32> {dist.parameter = @b1},
                  %w2: tensor<3x8xf32> {dist.parameter = @w2},
                  %b2: tensor<3xf32> {dist.parameter = @b2},
                  %m1: tensor<8x4xf32> {dist.optimizer_state = #dist.optimizer_state<@w1, "m">})
      -> (tensor<2x3xf32>, tensor<8x4xf32> {dist.updates = 5 : i64}) {
    %h = dist.gemm %x, %w1, %b1 {transpose_b} : (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    %g = dist.gelu %h : tensor<2x8xf32>
    %y = dist.gemm %g, %w2, %b2 {transpose_b} : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %m = dist.mul %m1, %w1 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    return %y, %m : tensor<2x3xf32>, tensor<8x4xf32>
  }
}

// -----

// 6 hidden features do not split over 4 ranks: a remark, and every rank
// computes the whole step.
module {
  dist.mesh @mesh shape = 4
  dist.parameter @w1 : tensor<4x6xf32> = dense<0.5> : tensor<4x6xf32>
  dist.parameter @w2 : tensor<6x4xf32> = dense<0.5> : tensor<6x4xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-NOT: dist.all_reduce
  // expected-remark @+1 {{tensor parallelism found no MLP (linear, elementwise, linear) or attention to split; every rank computes the whole step}}
  func.func @step(%x: tensor<2x4xf32>, %w1: tensor<4x6xf32> {dist.parameter = @w1},
                  %w2: tensor<6x4xf32> {dist.parameter = @w2}) -> tensor<2x4xf32> {
    // expected-remark @+1 {{tensor parallelism: 6 hidden features do not split over 4 ranks; this MLP stays replicated}}
    %h = dist.matmul %x, %w1 : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
    %g = dist.relu %h : tensor<2x6xf32>
    %y = dist.matmul %g, %w2 : (tensor<2x6xf32>, tensor<6x4xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}

// -----

// Attention split by heads: the fused QKV projection (a gemm by a weight in
// nn.Linear layout, its rows reshaped to batch x sequence, then split in
// q, k, v) holds on each rank its heads of each of q, k and v, a strided
// split of its features (300: mesh axis 0 in 3 groups); the output
// projection is row-parallel, all-reduced once before its bias. The fused
// output returned whole is gathered group by group.
module {
  dist.mesh @mesh shape = 2
  dist.parameter @wa : tensor<24x8xf32> = dense<0.5> : tensor<24x8xf32>
  dist.parameter @ba : tensor<24xf32> = dense<0.5> : tensor<24xf32>
  dist.parameter @wp : tensor<8x8xf32> = dense<0.5> : tensor<8x8xf32>
  dist.parameter @bp : tensor<8xf32> = dense<0.5> : tensor<8xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: %[[X:.*]]: tensor<8x8xf32>
  // CHECK-SAME: %[[WA:.*]]: tensor<12x8xf32> {dist.parameter = @wa, dist.sharding = #dist.sharding<[0/3, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: %[[BA:.*]]: tensor<12xf32> {dist.parameter = @ba, dist.sharding = #dist.sharding<[0/3]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: %[[WP:.*]]: tensor<8x4xf32> {dist.parameter = @wp, dist.sharding = #dist.sharding<[-, 0]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: %[[BP:.*]]: tensor<8xf32> {dist.parameter = @bp}
  // CHECK: %[[QKV:.*]] = dist.gemm %[[X]], %[[WA]], %[[BA]] {transpose_b} : (tensor<8x8xf32>, tensor<12x8xf32>, tensor<12xf32>) -> tensor<8x12xf32>
  // CHECK: %[[QKV3:.*]] = dist.reshape %[[QKV]] : (tensor<8x12xf32>) -> tensor<2x4x12xf32>
  // CHECK: dist.split %[[QKV3]] axis = 2 : (tensor<2x4x12xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>)
  // CHECK: dist.softmax %{{.*}} axis = 3 : tensor<2x1x4x4xf32>
  // CHECK: %[[P:.*]] = dist.gemm %{{.*}}, %[[WP]] {transpose_b} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  // CHECK: %[[R:.*]] = dist.all_reduce sum, %[[P]] axes = [0]
  // CHECK: %[[Y:.*]] = dist.add %[[R]], %[[BP]]
  // CHECK: %[[G1:.*]] = dist.reshape %[[QKV3]] : (tensor<2x4x12xf32>) -> tensor<2x4x3x4xf32>
  // CHECK: %[[G2:.*]] = dist.all_gather %[[G1]] dim = 3 axes = [0] {{.*}}: (tensor<2x4x3x4xf32>) -> tensor<2x4x3x8xf32>
  // CHECK: %[[G3:.*]] = dist.reshape %[[G2]] : (tensor<2x4x3x8xf32>) -> tensor<2x4x24xf32>
  // CHECK: return %[[Y]], %[[G3]]
  func.func @step(%x: tensor<8x8xf32> {dist.input_name = "x"},
                  %wa: tensor<24x8xf32> {dist.parameter = @wa},
                  %ba: tensor<24xf32> {dist.parameter = @ba},
                  %wp: tensor<8x8xf32> {dist.parameter = @wp},
                  %bp: tensor<8xf32> {dist.parameter = @bp})
      -> (tensor<8x8xf32>, tensor<2x4x24xf32>) {
    %qkv = dist.gemm %x, %wa, %ba {transpose_b} : (tensor<8x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<8x24xf32>
    %qkv3 = dist.reshape %qkv : (tensor<8x24xf32>) -> tensor<2x4x24xf32>
    %q, %k, %v = dist.split %qkv3 axis = 2 : (tensor<2x4x24xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>)
    %q4 = dist.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
    %k4 = dist.reshape %k : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
    %v4 = dist.reshape %v : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
    %qh = dist.transpose %q4 permutation = [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %kh = dist.transpose %k4 permutation = [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %vh = dist.transpose %v4 permutation = [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
    %s = dist.matmul %qh, %kh {transpose_rhs} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %p = dist.softmax %s axis = 3 : tensor<2x2x4x4xf32>
    %o = dist.matmul %p, %vh : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %ot = dist.transpose %o permutation = [0, 2, 1, 3] : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
    %om = dist.reshape %ot : (tensor<2x4x2x4xf32>) -> tensor<8x8xf32>
    %y = dist.gemm %om, %wp, %bp {transpose_b} : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    return %y, %qkv3 : tensor<8x8xf32>, tensor<2x4x24xf32>
  }
}

// -----

// 3 heads do not split over 2 ranks: the attention stays replicated, with a
// remark.
module {
  dist.mesh @mesh shape = 2
  dist.parameter @wa : tensor<18x6xf32> = dense<0.5> : tensor<18x6xf32>
  dist.parameter @wp : tensor<6x6xf32> = dense<0.5> : tensor<6x6xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: tensor<18x6xf32> {dist.parameter = @wa, dist.sharding = #dist.sharding<[-, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-SAME: tensor<6x6xf32> {dist.parameter = @wp, dist.sharding = #dist.sharding<[-, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK-NOT: dist.all_reduce
  // expected-remark @+1 {{tensor parallelism found no MLP (linear, elementwise, linear) or attention to split; every rank computes the whole step}}
  func.func @step(%x: tensor<4x6xf32>, %wa: tensor<18x6xf32> {dist.parameter = @wa},
                  %wp: tensor<6x6xf32> {dist.parameter = @wp}) -> tensor<4x6xf32> {
    // expected-remark @+1 {{tensor parallelism: 3 attention heads do not split over 2 ranks; this attention stays replicated}}
    %qkv = dist.matmul %x, %wa {transpose_rhs} : (tensor<4x6xf32>, tensor<18x6xf32>) -> tensor<4x18xf32>
    %q, %k, %v = dist.split %qkv axis = 1 : (tensor<4x18xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>)
    %q3 = dist.reshape %q : (tensor<4x6xf32>) -> tensor<4x3x2xf32>
    %k3 = dist.reshape %k : (tensor<4x6xf32>) -> tensor<4x3x2xf32>
    %v3 = dist.reshape %v : (tensor<4x6xf32>) -> tensor<4x3x2xf32>
    %qh = dist.transpose %q3 permutation = [1, 0, 2] : (tensor<4x3x2xf32>) -> tensor<3x4x2xf32>
    %kh = dist.transpose %k3 permutation = [1, 0, 2] : (tensor<4x3x2xf32>) -> tensor<3x4x2xf32>
    %vh = dist.transpose %v3 permutation = [1, 0, 2] : (tensor<4x3x2xf32>) -> tensor<3x4x2xf32>
    %s = dist.matmul %qh, %kh {transpose_rhs} : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> tensor<3x4x4xf32>
    %p = dist.softmax %s axis = 2 : tensor<3x4x4xf32>
    %o = dist.matmul %p, %vh : (tensor<3x4x4xf32>, tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
    %ot = dist.transpose %o permutation = [1, 0, 2] : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
    %om = dist.reshape %ot : (tensor<4x3x2xf32>) -> tensor<4x6xf32>
    %y = dist.matmul %om, %wp {transpose_rhs} : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
    return %y : tensor<4x6xf32>
  }
}
