//===- RuleBuilder.h - Building sharding rules and models -------*- C++ -*-===//
//
// What the op families' sharding models (<Family>Sharding.cpp) share: a
// builder of factor rules, the rules several families use, the external
// model template, and SplitOpBuilder for ops rebuilt with collectives.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_SHARDING_RULEBUILDER_H
#define DIALECTS_DIST_SHARDING_RULEBUILDER_H

#include "dialects/Dist/IR/DistBuilder.h"
#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistShardingInterface.h"
#include "dialects/Dist/Sharding/ShardingRule.h"

namespace mlir::dist::detail {

using Dims = SmallVector<SmallVector<int64_t, 2>>;

/// Builds a rule operand by operand.
struct RuleBuilder {
  ShardingRule rule;

  /// One new factor per dimension of `shape`.
  SmallVector<int64_t> newFactors(ArrayRef<int64_t> shape, FactorKind kind);
  /// One dimension per factor.
  static Dims single(ArrayRef<int64_t> factors);
  /// Dimensions of a value of `shape` broadcast (numpy, aligned right) to
  /// the dimensions `full` of `fullShape`: a size-1 dimension that
  /// broadcasts has no factor.
  static Dims broadcastDims(ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> fullShape,
                            ArrayRef<int64_t> full);
  void operand(Dims dims) { rule.operands.push_back(std::move(dims)); }
  void result(Dims dims) { rule.results.push_back(std::move(dims)); }
};

/// Elementwise with numpy broadcasting over all operands and results.
ShardingRule broadcastingRule(Operation *op);
/// One factor per dimension of operand 0, shared by every operand and result
/// of the same shape; dimensions in `fixed` must stay whole.
ShardingRule sameShapeRule(Operation *op, ArrayRef<int64_t> fixed);
/// Reductions over `axes` of operand 0, combined by `kind` when split (or
/// Fixed unless `splittable`).
ShardingRule reductionRule(Operation *op, ArrayRef<int64_t> axes, bool keepDims,
                           CollectiveKind kind, bool splittable);
/// A (batched) matrix product; K may be split unless `kSplittable` is false.
ShardingRule matmulRule(Value lhs, Value rhs, Value result, bool transLhs,
                        bool transRhs, bool kSplittable);
/// Only the batch (dimension 0 of the batched operands and of the results)
/// may be split; every other dimension stays whole.
ShardingRule batchOnlyRule(Operation *op, ArrayRef<unsigned> batchedOperands);

/// The defaults of a family's `Fn` (see ShardingModel): no rebuilding with
/// collectives, no partial sums passed through.
struct DefaultSharding {
  static bool partition(Operation *, SplitOpPartitioner &, const ShardingRule &,
                        ArrayRef<DimSharding>) {
    return false;
  }
  static PartialSums partialSums(Operation *) { return PartialSums::none; }
};

/// The external model: forwards to `Fn::rule(OpT, std::string &why)`,
/// `Fn::partition` and `Fn::partialSums`.
template <typename OpT, typename Fn>
struct ShardingModel
    : ShardingOpInterface::ExternalModel<ShardingModel<OpT, Fn>, OpT> {
  std::optional<ShardingRule> getShardingRule(Operation *op,
                                              std::string &why) const {
    return Fn::rule(cast<OpT>(op), why);
  }
  bool partition(Operation *op, SplitOpPartitioner &partitioner,
                 const ShardingRule &rule,
                 ArrayRef<DimSharding> factors) const {
    return Fn::partition(op, partitioner, rule, factors);
  }
  PartialSums getPartialSums(Operation *op) const {
    return Fn::partialSums(op);
  }
};

/// Attaches the model of `Fn` to each of `OpTs`.
template <typename Fn, typename... OpTs> void attachSharding(MLIRContext *ctx) {
  (OpTs::template attachInterface<ShardingModel<OpTs, Fn>>(*ctx), ...);
}

/// Rebuilding one op whose Collective factor is split.
struct SplitOpBuilder {
  SplitOpBuilder(SplitOpPartitioner &p, Operation *op, const ShardingRule &rule,
                 ArrayRef<DimSharding> factors);

  /// The mesh axis splitting the Collective factor of operand `i`'s
  /// dimension `dim` in one block per rank, or kReplicated.
  int64_t splitAxis(unsigned i, int64_t dim) const;
  /// The axes over which split Reduction factors leave partial results,
  /// sorted.
  SmallVector<int64_t> reducedAxes() const;
  /// The op's operands as this rank holds them in the rule's shardings.
  SmallVector<Value> operands();
  Value allReduce(CollectiveKind kind, Value v, ArrayRef<int64_t> axes);
  /// Records `local` as this rank's result, still to be summed over
  /// `partial`.
  void setResult(Value local, ArrayRef<int64_t> partial);

  /// exp(x - max) and x - max, with the maximum and the sum of exp over
  /// dimension `dim` taken across the ranks of `axis`.
  struct Normalized {
    Value shifted, exp, sum;
  };
  Normalized normalize(Value x, int64_t dim, int64_t axis);
  /// Indices into a dimension of `size` split over `axis`: shifted to this
  /// rank's block (0 where outside it) and whether they are inside.
  std::pair<Value, Value> localIndices(Value indices, int64_t size,
                                       int64_t axis);
  /// `x` where `inside` (shaped like the indices, which are `x`'s
  /// dimensions `at`, ...) holds, zero elsewhere.
  Value zeroOutside(Value inside, int64_t at, Value x);

  SplitOpPartitioner &p;
  Operation *op;
  const ShardingRule &rule;
  ArrayRef<DimSharding> factors;
  Location loc;
  DistBuilder g;
};

void attachElementwiseSharding(MLIRContext *ctx);
void attachReductionSharding(MLIRContext *ctx);
void attachLossSharding(MLIRContext *ctx);
void attachContractionSharding(MLIRContext *ctx);
void attachShapeSharding(MLIRContext *ctx);
void attachConvSharding(MLIRContext *ctx);

} // namespace mlir::dist::detail

#endif // DIALECTS_DIST_SHARDING_RULEBUILDER_H
