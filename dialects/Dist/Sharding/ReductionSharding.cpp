//===- ReductionSharding.cpp - Sharding of reductions and normalizations --===//
//
// A reduced dimension is a Reduction factor (split: partial results, then
// combined by the reduction's own kind); softmax and log_softmax over split
// classes are rebuilt with an all-reduced maximum and sum of exponentials;
// a layer norm's normalized dimensions and a cumulative sum's axis stay
// whole.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

/// reduce_* over `axes`, combined by `Kind` (Fixed when not `Splittable`).
template <CollectiveKind Kind, bool Splittable,
          PartialSums Partial = PartialSums::none>
struct ReduceSharding : DefaultSharding {
  template <typename OpT>
  static std::optional<ShardingRule> rule(OpT op, std::string &) {
    return reductionRule(op, op.getAxes(), op.getKeepDims(), Kind, Splittable);
  }
  static PartialSums partialSums(Operation *) { return Partial; }
};

/// arg_max / arg_min: an index over the whole axis.
struct ArgExtremumSharding : DefaultSharding {
  template <typename OpT>
  static std::optional<ShardingRule> rule(OpT op, std::string &) {
    return reductionRule(op, {static_cast<int64_t>(op.getAxis())},
                         op.getKeepDims(), CollectiveKind::sum, false);
  }
};

struct CumSumSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(CumSumOp op, std::string &) {
    return sameShapeRule(op, {static_cast<int64_t>(op.getAxis())});
  }
};

/// sparsify_top_k: rows may be split, each row's selection stays whole.
struct SparsifyTopKSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(SparsifyTopKOp op, std::string &) {
    RuleBuilder b;
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    SmallVector<int64_t> rows = b.newFactors(shape, FactorKind::Parallel);
    b.rule.factorKinds[rows.back()] = FactorKind::Fixed;
    SmallVector<int64_t> selected(rows);
    selected.back() = b.rule.addFactor(op.getK(), FactorKind::Fixed);
    b.operand(RuleBuilder::single(rows));
    b.result(RuleBuilder::single(selected));
    b.result(RuleBuilder::single(selected));
    b.result(RuleBuilder::single(rows));
    return b.rule;
  }
};

/// softmax and log_softmax: the axis is a Collective factor.
struct SoftmaxSharding : DefaultSharding {
  template <typename OpT>
  static std::optional<ShardingRule> rule(OpT op, std::string &) {
    ShardingRule rule = sameShapeRule(op, {});
    rule.factorKinds[op.getAxis()] = FactorKind::Collective;
    return rule;
  }
  /// Over split classes: the maximum and the sum of exponentials are
  /// all-reduced over the classes' axis.
  static bool partition(Operation *op, SplitOpPartitioner &p,
                        const ShardingRule &rule,
                        ArrayRef<DimSharding> factors) {
    SplitOpBuilder s(p, op, rule, factors);
    int64_t dim = isa<SoftmaxOp>(op) ? cast<SoftmaxOp>(op).getAxis()
                                     : cast<LogSoftmaxOp>(op).getAxis();
    int64_t axis = s.splitAxis(0, dim);
    if (axis == kReplicated)
      return false;
    Value x = s.operands()[0];
    SplitOpBuilder::Normalized n = s.normalize(x, dim, axis);
    s.setResult(
        isa<SoftmaxOp>(op)
            ? s.g.div(n.exp, n.sum)
            : s.g.sub(n.shifted, LogOp::create(p.builder(), s.loc, n.sum)),
        {});
    return true;
  }
};

/// layer_norm: the normalized (trailing) dimensions stay whole.
struct LayerNormSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(LayerNormOp op, std::string &) {
    RuleBuilder b;
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    SmallVector<int64_t> f = b.newFactors(shape, FactorKind::Parallel);
    for (int64_t d = op.getAxis(); d < (int64_t)shape.size(); ++d)
      b.rule.factorKinds[f[d]] = FactorKind::Fixed;
    Dims trailing =
        RuleBuilder::single(ArrayRef<int64_t>(f).drop_front(op.getAxis()));
    b.operand(RuleBuilder::single(f));
    b.operand(trailing);
    b.operand(trailing);
    b.result(RuleBuilder::single(f));
    return b.rule;
  }
};

} // namespace

void mlir::dist::detail::attachReductionSharding(MLIRContext *ctx) {
  attachSharding<ReduceSharding<CollectiveKind::sum, true, PartialSums::linear>,
                 ReduceSumOp>(ctx);
  attachSharding<ReduceSharding<CollectiveKind::mean, true>, ReduceMeanOp>(ctx);
  attachSharding<ReduceSharding<CollectiveKind::max, true>, ReduceMaxOp>(ctx);
  attachSharding<ReduceSharding<CollectiveKind::min, true>, ReduceMinOp>(ctx);
  attachSharding<ReduceSharding<CollectiveKind::sum, false>, ReduceProdOp>(ctx);
  attachSharding<ArgExtremumSharding, ArgMaxOp, ArgMinOp>(ctx);
  attachSharding<CumSumSharding, CumSumOp>(ctx);
  attachSharding<SparsifyTopKSharding, SparsifyTopKOp>(ctx);
  attachSharding<SoftmaxSharding, SoftmaxOp, LogSoftmaxOp>(ctx);
  attachSharding<LayerNormSharding, LayerNormOp>(ctx);
}
