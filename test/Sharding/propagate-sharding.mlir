// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dist-propagate-sharding,dist-partition)' | FileCheck %s

// An op without a rule for the split (here one of another dialect) is
// computed whole on every rank, with a remark; the rest of the function
// stays split.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @no_rule
  // CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>
  func.func @no_rule(%x: tensor<4x6xf32> {dist.sharding = #dist.sharding<[0, -]>})
      -> (tensor<4x6xf32> {dist.sharding = #dist.sharding<[0, -]>}) {
    // CHECK: %[[E:.*]] = dist.exp %[[X]] : tensor<2x6xf32>
    %e = dist.exp %x : tensor<4x6xf32>
    // CHECK: %[[G:.*]] = dist.all_gather %[[E]] dim = 0 axes = [0] {{.*}}: (tensor<2x6xf32>) -> tensor<4x6xf32>
    // CHECK: %[[N:.*]] = arith.negf %[[G]]
    // expected-remark @+1 {{computed whole on every rank: it is not a dist op}}
    %n = arith.negf %e : tensor<4x6xf32>
    // CHECK: dist.shard_slice %[[N]] dim = 0 axes = [0] {{.*}}: (tensor<4x6xf32>) -> tensor<2x6xf32>
    return %n : tensor<4x6xf32>
  }
}

// -----

// A reshape whose dimensions interleave (neither 31 nor 16 divides the
// other: XLNet's relative shift) keeps that block whole; the batch before
// it still splits, so nothing is gathered. Interleaving from the first
// dimension on leaves nothing to split: the input is gathered.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @interleaved_reshapes
  // CHECK-SAME: (%[[X:.*]]: tensor<1x31x16xf32>{{.*}}, %[[Y:.*]]: tensor<2x6xf32>
  func.func @interleaved_reshapes(%x: tensor<2x31x16xf32> {dist.sharding = #dist.sharding<[0, -, -]>},
                                  %y: tensor<4x6xf32> {dist.sharding = #dist.sharding<[0, -]>})
      -> (tensor<2x16x31xf32> {dist.sharding = #dist.sharding<[0, -, -]>},
          tensor<6x4xf32> {dist.sharding = #dist.sharding<[0, -]>}) {
    // CHECK: dist.reshape %[[X]] : (tensor<1x31x16xf32>) -> tensor<1x16x31xf32>
    %r = dist.reshape %x : (tensor<2x31x16xf32>) -> tensor<2x16x31xf32>
    // CHECK: %[[G:.*]] = dist.all_gather %[[Y]] dim = 0 axes = [0] {{.*}}: (tensor<2x6xf32>) -> tensor<4x6xf32>
    // CHECK: %[[S:.*]] = dist.reshape %[[G]] : (tensor<4x6xf32>) -> tensor<6x4xf32>
    // CHECK: dist.shard_slice %[[S]] dim = 0 axes = [0]
    %s = dist.reshape %y : (tensor<4x6xf32>) -> tensor<6x4xf32>
    return %r, %s : tensor<2x16x31xf32>, tensor<6x4xf32>
  }
}

// -----

// Training-mode batch norm over a split batch: each rank sums its rows of
// every channel's values and squared deviations, the sums are all-reduced
// (SyncBatchNorm's statistics), and the rows are normalized with them.
// Nothing is gathered.
module {
  dist.mesh @mesh shape = 2
  // CHECK-LABEL: func.func @batch_statistics
  // CHECK-SAME: (%[[X:.*]]: tensor<2x3x2x2xf32>
  func.func @batch_statistics(%x: tensor<4x3x2x2xf32> {dist.sharding = #dist.sharding<[0, -, -, -]>},
                              %c: tensor<3xf32>)
      -> (tensor<4x3x2x2xf32> {dist.sharding = #dist.sharding<[0, -, -, -]>}) {
    // CHECK-NOT: dist.all_gather
    // CHECK: %[[S:.*]] = dist.reduce_sum %[[X]] axes = [0, 2, 3] : (tensor<2x3x2x2xf32>) -> tensor<3xf32>
    // CHECK: %[[SUM:.*]] = dist.all_reduce sum, %[[S]] axes = [0]
    // CHECK: %[[MEAN:.*]] = dist.mul %[[SUM]]
    // CHECK: dist.sub %[[X]]
    // CHECK: dist.all_reduce sum
    // CHECK: %[[VAR:.*]] = dist.mul
    // CHECK: dist.batch_norm %[[X]], %{{.*}}, %{{.*}}, %[[MEAN]], %[[VAR]] : ({{.*}}) -> tensor<2x3x2x2xf32>
    // CHECK-NOT: dist.all_gather
    %b = dist.batch_norm %x, %c, %c, %c, %c {training} : (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x2x2xf32>
    return %b : tensor<4x3x2x2xf32>
  }
}

// -----

// Dropout and the random ops split like elementwise ops: each rank draws
// its block of the whole tensor's values (offsets = the block's start,
// whole_shape = the whole op's shape); nothing is gathered.
module {
  dist.mesh @mesh shape = 2x2
  // CHECK-LABEL: func.func @dropout
  // CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>
  func.func @dropout(%x: tensor<4x4xf32> {dist.sharding = #dist.sharding<[1, -]>},
                     %seed: tensor<i64>, %step: tensor<i64>)
      -> (tensor<4x4xf32> {dist.sharding = #dist.sharding<[1, -]>},
          tensor<4x8xf32> {dist.sharding = #dist.sharding<[1, 0]>}) {
    // CHECK-NOT: dist.all_gather
    // CHECK: %[[E:.*]] = dist.exp %[[X]] : tensor<2x4xf32>
    %e = dist.exp %x : tensor<4x4xf32>
    // CHECK: %[[STARTS:.*]] = dist.constant dense<[0, 2]> : tensor<2xi64>
    // CHECK: %[[MINE:.*]] = dist.shard_slice %[[STARTS]] dim = 0 axes = [1]
    // CHECK: %[[ROW:.*]] = dist.reshape %[[MINE]] : (tensor<1xi64>) -> tensor<i64>
    // CHECK: %[[ZERO:.*]] = dist.constant dense<0> : tensor<i64>
    // CHECK: dist.dropout %[[E]] keys(%{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>) offsets(%[[ROW]], %[[ZERO]] : tensor<i64>, tensor<i64>)
    // CHECK-SAME: whole_shape = array<i64: 4, 4>
    // CHECK-SAME: : tensor<2x4xf32>
    %d, %m = dist.dropout %e keys(%seed, %step : tensor<i64>, tensor<i64>) {ratio = 0.5 : f64, seed = 1 : i64} : tensor<4x4xf32>
    // Split over both axes: rows over axis 1, columns over axis 0.
    // CHECK: dist.random_normal keys(%{{.*}} : tensor<i64>) offsets(%{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>)
    // CHECK-SAME: whole_shape = array<i64: 4, 8>
    // CHECK-SAME: : tensor<2x4xf32>
    %n = dist.random_normal keys(%seed : tensor<i64>) {mean = 0.0 : f64, scale = 1.0 : f64, seed = 2 : i64} : tensor<4x8xf32>
    // CHECK-NOT: dist.all_gather
    return %d, %n : tensor<4x4xf32>, tensor<4x8xf32>
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
