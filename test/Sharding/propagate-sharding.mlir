// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dist-propagate-sharding,dist-partition)' | FileCheck %s

// An op without a rule for the split (dropout's mask depends on global
// element indices) is computed whole on every rank, with a remark; the rest
// of the function stays split.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @dropout
  // CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>
  func.func @dropout(%x: tensor<4x4xf32> {dist.sharding = #dist.sharding<[0, -]>})
      -> (tensor<4x4xf32> {dist.sharding = #dist.sharding<[0, -]>}) {
    // CHECK: %[[E:.*]] = dist.exp %[[X]] : tensor<2x4xf32>
    %e = dist.exp %x : tensor<4x4xf32>
    // CHECK: %[[G:.*]] = dist.all_gather %[[E]] dim = 0 axes = [0] {{.*}}: (tensor<2x4xf32>) -> tensor<4x4xf32>
    // CHECK: %[[D:.*]], %{{.*}} = dist.dropout %[[G]] {{.*}} : tensor<4x4xf32>
    // expected-remark @+1 {{computed whole on every rank: its random draws depend on each element's global index}}
    %d, %m = dist.dropout %e {ratio = 0.5 : f64, seed = 1 : i64} : tensor<4x4xf32>
    // CHECK: dist.shard_slice %[[D]] dim = 0 axes = [0] {{.*}}: (tensor<4x4xf32>) -> tensor<2x4xf32>
    return %d : tensor<4x4xf32>
  }
}

// -----

// Column- then row-split matmuls (the Megatron MLP): one all-reduce, at the
// end, and nothing else.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @megatron_mlp
  // CHECK-SAME: tensor<8x4xf32> {dist.sharding = #dist.sharding<[-, -]>}
  // CHECK-SAME: tensor<4x8xf32> {dist.sharding = #dist.sharding<[-, 0]>}
  // CHECK-SAME: tensor<8x4xf32> {dist.sharding = #dist.sharding<[0, -]>}
  func.func @megatron_mlp(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<[-, -]>},
                          %w1: tensor<4x16xf32> {dist.sharding = #dist.sharding<[-, 0]>},
                          %w2: tensor<16x4xf32> {dist.sharding = #dist.sharding<[0, -]>})
      -> tensor<8x4xf32> {
    // CHECK: dist.matmul {{.*}} -> tensor<8x8xf32>
    %h = dist.matmul %x, %w1 : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    // CHECK: dist.gelu {{.*}} : tensor<8x8xf32>
    %g = dist.gelu %h : tensor<8x16xf32>
    // CHECK: %[[P:.*]] = dist.matmul {{.*}} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %y = dist.matmul %g, %w2 : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    // CHECK-NOT: dist.all_gather
    // CHECK: dist.all_reduce sum, %[[P]] axes = [0] {{.*}}: tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}

// -----

// A reshape that splits a split dimension into heads keeps the split on
// the heads; a dimension a rule cannot express is gathered.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @heads
  func.func @heads(%x: tensor<2x8x12xf32> {dist.sharding = #dist.sharding<[-, -, 0]>})
      -> (tensor<2x4x8x3xf32> {dist.sharding = #dist.sharding<[-, 0, -, -]>}) {
    // CHECK: dist.reshape %{{.*}} : (tensor<2x8x6xf32>) -> tensor<2x8x2x3xf32>
    %r = dist.reshape %x : (tensor<2x8x12xf32>) -> tensor<2x8x4x3xf32>
    // CHECK: dist.transpose %{{.*}} permutation = [0, 2, 1, 3] : (tensor<2x8x2x3xf32>) -> tensor<2x2x8x3xf32>
    %t = dist.transpose %r permutation = [0, 2, 1, 3] : (tensor<2x8x4x3xf32>) -> tensor<2x4x8x3xf32>
    // CHECK-NOT: dist.all_gather
    return %t : tensor<2x4x8x3xf32>
  }
}

// -----

// Equal pieces: a concatenation of block-split pieces is a strided split of
// the whole (each rank holds its block of every piece: 200, axis 0 in 2
// groups), and a split of it hands each piece its block, with no collective.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @pieces
  // CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32> {{.*}}, %[[B:.*]]: tensor<2x3xf32>
  func.func @pieces(%a: tensor<4x3xf32> {dist.sharding = #dist.sharding<[0, -]>},
                    %b: tensor<4x3xf32> {dist.sharding = #dist.sharding<[0, -]>})
      -> (tensor<8x3xf32> {dist.sharding = #dist.sharding<[0/2, -]>},
          tensor<4x3xf32> {dist.sharding = #dist.sharding<[0, -]>}) {
    // CHECK: %[[C:.*]] = dist.concat %[[A]], %[[B]] axis = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %c = dist.concat %a, %b axis = 0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    // CHECK: %[[E:.*]] = dist.exp %[[C]] : tensor<4x3xf32>
    %e = dist.exp %c : tensor<8x3xf32>
    // CHECK: %[[S:.*]]:2 = dist.split %[[E]] axis = 0 : (tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    %s:2 = dist.split %e axis = 0 : (tensor<8x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    // CHECK-NOT: dist.all_gather
    // CHECK: return %[[E]], %[[S]]#1
    return %e, %s#1 : tensor<8x3xf32>, tensor<4x3xf32>
  }
}

// -----

// Unequal pieces keep the axis whole: the split pieces are gathered first.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @unequal_pieces
  func.func @unequal_pieces(%a: tensor<4x3xf32> {dist.sharding = #dist.sharding<[0, -]>},
                            %b: tensor<2x3xf32>)
      -> tensor<6x3xf32> {
    // CHECK: %[[G:.*]] = dist.all_gather %{{.*}} dim = 0 axes = [0] {{.*}}: (tensor<2x3xf32>) -> tensor<4x3xf32>
    // CHECK: dist.concat %[[G]], %{{.*}} axis = 0 : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
    %c = dist.concat %a, %b axis = 0 : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
    return %c : tensor<6x3xf32>
  }
}
