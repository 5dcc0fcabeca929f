//===- ShardingRule.h - How an op's dimensions may be split -----*- C++ -*-===//
//
// The one sharding mechanism of dist-opt. An op's rule names its *factors*:
// the independent index ranges of its iteration space (for a matmul M, N and
// K; for an elementwise op one per dimension). Each dimension of each operand
// and result is a list of factors, major first (a reshape merges or splits
// factors; a broadcast dimension has none). Splitting a factor over a mesh
// axis splits every dimension whose major factor it is, consistently across
// operands and results, so one decision per factor partitions the op:
//
//  - a Parallel factor appears in the results: splitting it gives each rank a
//    block of the result;
//  - a Reduction factor appears only in operands: splitting it leaves each
//    rank a partial result, combined by `reduction` across that axis;
//  - a Fixed factor must stay whole (a sliced dimension, a layer norm's
//    normalized dimensions);
//  - a Collective factor may be split, but then the op is not computed
//    per block: dist-partition rebuilds it with collectives (a softmax or
//    cross-entropy over split classes, a lookup in or scatter into a table
//    split by rows; see PartitionSplitOps.cpp).
//
// Data and tensor parallelism, ZeRO and (later) the planner only choose how
// some tensors are split; propagation and partitioning follow these rules.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_SHARDING_SHARDINGRULE_H
#define DIALECTS_DIST_SHARDING_SHARDINGRULE_H

#include "dialects/Dist/IR/DistOps.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::dist {

enum class FactorKind { Parallel, Reduction, Fixed, Collective };

struct ShardingRule {
  /// Factor f spans factorSizes[f] indices.
  SmallVector<int64_t> factorSizes;
  SmallVector<FactorKind> factorKinds;
  /// How partial results over split Reduction factors combine.
  CollectiveKind reduction = CollectiveKind::sum;
  /// operands[i][d]: the factors of dimension d of operand i, major first.
  SmallVector<SmallVector<SmallVector<int64_t, 2>>> operands;
  SmallVector<SmallVector<SmallVector<int64_t, 2>>> results;

  int64_t addFactor(int64_t size, FactorKind kind) {
    factorSizes.push_back(size);
    factorKinds.push_back(kind);
    return factorSizes.size() - 1;
  }
  int64_t numFactors() const { return factorSizes.size(); }
};

/// The rule of `op`, or std::nullopt with `why` set when the op cannot be
/// split (it is then computed whole on every rank). Ops with no operands
/// (constants) have no rule and an empty `why`: replicating them is free.
std::optional<ShardingRule> getShardingRule(Operation *op, std::string &why);

/// Per factor, the mesh axis it is split over (kReplicated if none; a
/// strided entry, see DistMesh.h, when the factor itself is split in
/// groups), merged from the given shardings of `op`'s operands and results
/// (null entries are unknown). The first value that splits a factor decides
/// it; a factor's axis must divide its size (each group's), it may not be
/// Fixed, and an axis splits at most one factor. A strided split of a
/// dimension falls on the factor its groups end before.
SmallVector<int64_t>
mergeFactorAxes(const ShardingRule &rule,
                ArrayRef<const SmallVector<int64_t> *> operandShardings,
                ArrayRef<const SmallVector<int64_t> *> resultShardings,
                ArrayRef<int64_t> mesh);

/// The sharding of a value whose dimensions are `dims`, given factor axes: a
/// dimension is split over the axis of its first split factor, in as many
/// groups as the factors before it hold indices (a block split when that
/// factor is the major one).
SmallVector<int64_t> shardingFromFactors(const ShardingRule &rule,
                                         ArrayRef<SmallVector<int64_t, 2>> dims,
                                         ArrayRef<int64_t> factorAxes);

} // namespace mlir::dist

#endif // DIALECTS_DIST_SHARDING_SHARDINGRULE_H
