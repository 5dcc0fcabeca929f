// RUN: dist-opt %s --verify-diagnostics --pass-pipeline='builtin.module(dist-data-parallel{function=step},dist-propagate-sharding,dist-partition)'

// The ranks' parts of a sum (dist.rank_parts) are stacked on a dimension
// that must be split over the data-parallel axis (by a dist.per_rank state
// they are added to); here nothing splits it.
module {
  dist.mesh @mesh shape = 2
  func.func @step(%x: tensor<4x3xf32> {dist.input_name = "x"})
      -> tensor<2x3xf32> {
    %s = dist.reduce_sum %x axes = [0] : (tensor<4x3xf32>) -> tensor<3xf32>
    // expected-error @+1 {{the ranks' parts of a sum (dist.rank_parts), stacked on a dimension of 2, must be split over a mesh axis of 2 ranks; annotate the per-rank state (dist.per_rank) with dist-data-parallel}}
    %p = dist.broadcast %s {dist.rank_parts} : (tensor<3xf32>) -> tensor<2x3xf32>
    return %p : tensor<2x3xf32>
  }
}
