//===- DistShardingInterface.h - How ops split over a mesh ------*- C++ -*-===//
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
//    per block: its `partition` method rebuilds it with collectives (a
//    softmax or cross-entropy over split classes, a lookup in or scatter
//    into a table split by rows).
//
// Data and tensor parallelism, ZeRO and (later) the planner only choose how
// some tensors are split; propagation and partitioning follow these rules,
// which each op gives through ShardingOpInterface (external models in
// dialects/Dist/Sharding/).
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_DISTSHARDINGINTERFACE_H
#define DIALECTS_DIST_IR_DISTSHARDINGINTERFACE_H

#include "dialects/Dist/IR/DistAttrs.h"
#include "dialects/Dist/IR/DistEnums.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

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

/// Through which operands an op passes pending partial sums (contributions
/// of several ranks still to be added) without combining them first: the
/// operands it is linear in.
enum class PartialSums {
  /// None: partial operands are combined first.
  none,
  /// Every partial operand (negation, reshapes, sums over axes).
  linear,
  /// A sum: partial operands with the same pending axes, and whole float
  /// scalars (kept by one rank of the group, zero on the others).
  sum,
  /// Exactly one partial operand (a product of a partial and a whole
  /// value).
  oneFactor,
  /// Only operand 0 (a quotient's numerator).
  numerator,
  /// Only operand 2 (a scatter into zeros: its updates, never its
  /// indices).
  scatterUpdates,
};

/// What an op's `partition` method builds with: dist-partition's state,
/// seen from one op.
class SplitOpPartitioner {
public:
  virtual ~SplitOpPartitioner() = default;
  /// Where to build, before the op being partitioned.
  virtual OpBuilder &builder() = 0;
  /// The mesh's axis sizes.
  virtual ArrayRef<int64_t> mesh() const = 0;
  /// The local values of `op`'s operands in the shardings `rule` and
  /// `factors` give them (collectives inserted as needed).
  virtual SmallVector<Value> localOperands(Operation *op,
                                           const ShardingRule &rule,
                                           ArrayRef<DimSharding> factors) = 0;
  /// An all-reduce of `value` over `axes` for the op computing `global`.
  virtual Value allReduce(Location loc, Value global, CollectiveKind kind,
                          Value value, ArrayRef<int64_t> axes) = 0;
  /// The first index of this rank's block of `size` indices split over
  /// mesh axis `axis`, as a tensor<1 x elementType>, for the op computing
  /// `global`.
  virtual Value blockStart(Location loc, Value global, int64_t size,
                           int64_t axis, Type elementType) = 0;
  /// Records `local` as this rank's value of `global`, split as `sharding`
  /// and still to be summed over `partial` axes.
  virtual void setResult(Value global, Value local,
                         ArrayRef<DimSharding> sharding,
                         ArrayRef<int64_t> partial) = 0;
};

} // namespace mlir::dist

#include "dialects/Dist/IR/DistShardingInterface.h.inc"

#endif // DIALECTS_DIST_IR_DISTSHARDINGINTERFACE_H
