//===- LossSharding.cpp - Sharding of cross-entropy and NLL losses --------===//
//
// Positions (batch and spatial dimensions) are Reduction factors unless the
// loss keeps them (reduction none); classes are a Collective factor. Split
// classes are Megatron's parallel cross-entropy: log-probabilities from an
// all-reduced maximum and sum of exponentials, and each rank picks those of
// the labels in its block of classes. A mean over split positions divides
// the all-reduced sum by the all-reduced count, so it is exactly the mean
// over all positions.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

using P = ComparePredicate;

namespace {

/// Losses: input N x C x d..., labels N x d..., weight C. Positions (N and
/// d...) reduce unless `none`; classes split only without class weights.
ShardingRule lossRule(Operation *op, LossReduction reduction, Value input,
                      Value labels, Value weight) {
  RuleBuilder b;
  ArrayRef<int64_t> in = shapeOf(input);
  // A weighted mean divides by a sum of weights over all positions, which
  // dist-partition does not rebuild: those positions stay whole.
  FactorKind positions = reduction == LossReduction::none ? FactorKind::Parallel
                         : reduction == LossReduction::mean && weight
                             ? FactorKind::Fixed
                             : FactorKind::Reduction;
  SmallVector<int64_t> inF = b.newFactors(in, positions);
  // Split classes: a parallel cross-entropy (weights are per class: whole).
  b.rule.factorKinds[inF[1]] =
      weight ? FactorKind::Fixed : FactorKind::Collective;
  Dims labelDims, inDims = RuleBuilder::single(inF);
  for (auto [d, f] : llvm::enumerate(inF))
    if (d != 1)
      labelDims.push_back({f});
  b.operand(inDims);
  b.operand(labelDims);
  if (weight)
    b.operand(Dims{{inF[1]}});
  b.result(reduction == LossReduction::none ? labelDims : Dims{});
  b.rule.reduction = reduction == LossReduction::mean ? CollectiveKind::mean
                                                      : CollectiveKind::sum;
  return b.rule;
}

/// Over split classes (no class weights).
bool partitionSplitClasses(SplitOpBuilder &s, LossReduction reduction,
                           std::optional<int64_t> ignoreIndex) {
  Operation *op = s.op;
  DistBuilder &g = s.g;
  OpBuilder &b = s.p.builder();
  Location loc = s.loc;
  int64_t axis = s.splitAxis(0, 1);
  if (axis == kReplicated || op->getNumOperands() != 2)
    return false;
  SmallVector<int64_t> reduced = s.reducedAxes();
  SmallVector<Value> v = s.operands();
  Value x = v[0], labels = v[1];
  Value logp = x;
  if (isa<CrossEntropyOp>(op)) {
    SplitOpBuilder::Normalized n = s.normalize(x, 1, axis);
    logp = g.sub(n.shifted, LogOp::create(b, loc, n.sum));
  }
  // Each position's log-probability of its label, from the rank holding
  // that label's class.
  ArrayRef<int64_t> shape = shapeOf(x);
  Type labelType = elementTypeOf(labels), floatType = elementTypeOf(x);
  SmallVector<int64_t> columnShape(shape);
  columnShape[1] = 1;
  Value shifted = g.sub(labels, s.p.blockStart(loc, op->getResult(0),
                                               shapeOf(op->getOperand(0))[1],
                                               axis, labelType));
  Value onehot = g.cast(g.compare(P::eq, g.reshape(shifted, columnShape),
                                  g.iota(shape[1], labelType, shape.size(), 1)),
                        floatType);
  Value picked = s.allReduce(
      CollectiveKind::sum,
      g.reduceSum(g.mul(logp, onehot), {1}, /*keepDims=*/false), {axis});
  Value loss = g.neg(picked);
  Value valid;
  if (ignoreIndex) {
    valid = g.cast(
        g.compare(P::ne, labels,
                  g.scalar(static_cast<double>(*ignoreIndex), labelType)),
        floatType);
    loss = g.mul(loss, valid);
  }
  if (reduction == LossReduction::none) {
    s.setResult(loss, {});
    return true;
  }
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(loss).size()));
  Value total = g.reduceSum(loss, all, /*keepDims=*/false);
  if (reduction == LossReduction::sum) {
    s.setResult(total, reduced);
    return true;
  }
  // The mean over every position: the sum and the count over the ranks.
  Value count =
      valid ? g.reduceSum(valid, all, /*keepDims=*/false)
            : g.scalar(static_cast<double>(
                           cast<RankedTensorType>(op->getOperand(1).getType())
                               .getNumElements()),
                       floatType);
  if (!reduced.empty()) {
    total = s.allReduce(CollectiveKind::sum, total, reduced);
    if (valid)
      count = s.allReduce(CollectiveKind::sum, count, reduced);
  }
  s.setResult(g.div(total, count), {});
  return true;
}

/// A mean over split positions: the sum over this rank's positions and the
/// number of positions counted, each summed over the ranks, then divided.
bool partitionMean(SplitOpBuilder &s, LossReduction reduction,
                   std::optional<int64_t> ignoreIndex) {
  if (reduction != LossReduction::mean)
    return false;
  SmallVector<int64_t> axes = s.reducedAxes();
  if (axes.empty())
    return false;
  Operation *op = s.op;
  DistBuilder &g = s.g;
  OpBuilder &b = s.p.builder();
  IRMapping map;
  map.map(op->getOperands(), s.operands());
  Operation *sum = b.clone(*op, map);
  sum->setAttr("reduction",
               LossReductionAttr::get(b.getContext(), LossReduction::sum));
  sum->removeAttr(DistDialect::kShardingAttrName);
  auto scalar = cast<RankedTensorType>(op->getResult(0).getType());
  Value labels = map.lookup(op->getOperand(1));
  Value count;
  if (ignoreIndex) {
    Type labelType = elementTypeOf(labels);
    Value kept = g.cast(
        g.compare(P::ne, labels,
                  g.scalar(static_cast<double>(*ignoreIndex), labelType)),
        scalar.getElementType());
    SmallVector<int64_t> all =
        llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(labels).size()));
    count = s.allReduce(CollectiveKind::sum,
                        g.reduceSum(kept, all, /*keepDims=*/false), axes);
  } else {
    int64_t n =
        cast<RankedTensorType>(op->getOperand(1).getType()).getNumElements();
    count = g.scalar(static_cast<double>(n), scalar.getElementType());
  }
  Value total = s.allReduce(CollectiveKind::sum, sum->getResult(0), axes);
  s.p.setResult(op->getResult(0), g.div(total, count),
                replicatedSharding(scalar.getRank()), {});
  return true;
}

template <typename OpT> struct LossSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(OpT op, std::string &) {
    return lossRule(op, op.getReduction(), op.getInput(), op.getLabels(),
                    op.getWeight());
  }
  static bool partition(Operation *op, SplitOpPartitioner &p,
                        const ShardingRule &rule,
                        ArrayRef<DimSharding> factors) {
    auto loss = cast<OpT>(op);
    SplitOpBuilder s(p, op, rule, factors);
    std::optional<int64_t> ignore;
    if (auto attr = loss.getIgnoreIndexAttr())
      ignore = attr.getInt();
    // With split classes only the parallel cross-entropy applies; when it
    // does not (a strided split), dist-partition takes the classes whole and
    // asks again, and only then may the positions' mean be rebuilt.
    bool classesSplit =
        llvm::any_of(llvm::enumerate(factors), [&](const auto &factor) {
          return factor.value().isSplit() &&
                 rule.factorKinds[factor.index()] == FactorKind::Collective;
        });
    if (classesSplit)
      return partitionSplitClasses(s, loss.getReduction(), ignore);
    return partitionMean(s, loss.getReduction(), ignore);
  }
};

} // namespace

void mlir::dist::detail::attachLossSharding(MLIRContext *ctx) {
  attachSharding<LossSharding<CrossEntropyOp>, CrossEntropyOp>(ctx);
  attachSharding<LossSharding<NllLossOp>, NllLossOp>(ctx);
}
