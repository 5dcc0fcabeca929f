//===- RankParts.h - The ranks' parts of a sum, in the global view -*- C++ -*-===//
//
// What per-rank gradient compression (PowerSGD, top-k) is built of, in the
// global view of the training step: a data-parallel gradient is a sum over
// the ranks; `rankParts` stacks each rank's part of it on a new leading
// dimension (dist.rank_parts: the partitioner gives each rank its local
// partial value, without communicating), and `rankSum` sums values stacked
// that way over the ranks where it is made (dist.rank_sum: one all-reduce,
// bucketed and overlapped like a gradient's). See docs/decisions.md 49.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_PASSES_TRANSFORMS_RANKPARTS_H
#define DIST_PASSES_TRANSFORMS_RANKPARTS_H

#include "dialects/Dist/IR/DistBuilder.h"

namespace mlir::dist {

/// Each of the `ranks` data-parallel ranks' part of `gradient`, stacked on
/// a new leading dimension.
Value rankParts(DistBuilder &g, Value gradient, int64_t ranks);

/// The sum over dimension 0 (the ranks) of `stacked`, taken whole where it
/// is made; `gradientBytes` of uncompressed gradient it stands for in
/// --explain (0: counted with another sum).
Value rankSum(DistBuilder &g, Value stacked, int64_t gradientBytes);

} // namespace mlir::dist

#endif // DIST_PASSES_TRANSFORMS_RANKPARTS_H
