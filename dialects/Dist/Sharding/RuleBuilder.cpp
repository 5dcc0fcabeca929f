//===- RuleBuilder.cpp - Building sharding rules and models ---------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

#include "dialects/Dist/IR/DistAttrs.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

SmallVector<int64_t> RuleBuilder::newFactors(ArrayRef<int64_t> shape,
                                             FactorKind kind) {
  SmallVector<int64_t> factors;
  for (int64_t size : shape)
    factors.push_back(rule.addFactor(size, kind));
  return factors;
}

Dims RuleBuilder::single(ArrayRef<int64_t> factors) {
  Dims dims;
  for (int64_t f : factors)
    dims.push_back({f});
  return dims;
}

Dims RuleBuilder::broadcastDims(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> fullShape,
                                ArrayRef<int64_t> full) {
  Dims dims;
  size_t offset = fullShape.size() - shape.size();
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size == fullShape[offset + i])
      dims.push_back({full[offset + i]});
    else
      dims.push_back({});
  }
  return dims;
}

ShardingRule mlir::dist::detail::broadcastingRule(Operation *op) {
  RuleBuilder b;
  ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
  SmallVector<int64_t> factors = b.newFactors(shape, FactorKind::Parallel);
  for (Value v : op->getOperands())
    b.operand(RuleBuilder::broadcastDims(shapeOf(v), shape, factors));
  for (Value v : op->getResults())
    b.result(RuleBuilder::broadcastDims(shapeOf(v), shape, factors));
  return b.rule;
}

ShardingRule mlir::dist::detail::sameShapeRule(Operation *op,
                                               ArrayRef<int64_t> fixed) {
  RuleBuilder b;
  ArrayRef<int64_t> shape = shapeOf(op->getOperand(0));
  SmallVector<int64_t> factors = b.newFactors(shape, FactorKind::Parallel);
  for (int64_t d : fixed)
    b.rule.factorKinds[factors[d]] = FactorKind::Fixed;
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    b.operand(RuleBuilder::single(factors));
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    b.result(RuleBuilder::single(factors));
  return b.rule;
}

ShardingRule mlir::dist::detail::reductionRule(Operation *op,
                                               ArrayRef<int64_t> axes,
                                               bool keepDims,
                                               CollectiveKind kind,
                                               bool splittable) {
  RuleBuilder b;
  ArrayRef<int64_t> shape = shapeOf(op->getOperand(0));
  SmallVector<int64_t> factors = b.newFactors(shape, FactorKind::Parallel);
  Dims result;
  for (auto [d, f] : llvm::enumerate(factors)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(d))) {
      result.push_back({f});
      continue;
    }
    b.rule.factorKinds[f] =
        splittable ? FactorKind::Reduction : FactorKind::Fixed;
    if (keepDims)
      result.push_back({});
  }
  b.rule.reduction = kind;
  b.operand(RuleBuilder::single(factors));
  b.result(result);
  return b.rule;
}

ShardingRule mlir::dist::detail::matmulRule(Value lhs, Value rhs, Value result,
                                            bool transLhs, bool transRhs,
                                            bool kSplittable) {
  RuleBuilder b;
  ArrayRef<int64_t> out = shapeOf(result);
  int64_t rank = out.size();
  SmallVector<int64_t> factors = b.newFactors(out, FactorKind::Parallel);
  ArrayRef<int64_t> lhsShape = shapeOf(lhs), rhsShape = shapeOf(rhs);
  int64_t k = lhsShape[lhsShape.size() - (transLhs ? 2 : 1)];
  int64_t kf = b.rule.addFactor(k, kSplittable ? FactorKind::Reduction
                                               : FactorKind::Fixed);
  auto operandDims = [&](ArrayRef<int64_t> shape, bool trans, bool isLhs) {
    // Batch dimensions broadcast against the result's.
    SmallVector<int64_t> batch(shape.drop_back(2));
    Dims dims = RuleBuilder::broadcastDims(
        batch, out.drop_back(2), ArrayRef<int64_t>(factors).drop_back(2));
    int64_t mn = isLhs ? factors[rank - 2] : factors[rank - 1];
    SmallVector<int64_t, 2> inner = isLhs ? SmallVector<int64_t, 2>{mn, kf}
                                          : SmallVector<int64_t, 2>{kf, mn};
    if (trans)
      std::swap(inner[0], inner[1]);
    dims.push_back({inner[0]});
    dims.push_back({inner[1]});
    return dims;
  };
  b.operand(operandDims(lhsShape, transLhs, /*isLhs=*/true));
  b.operand(operandDims(rhsShape, transRhs, /*isLhs=*/false));
  b.result(RuleBuilder::single(factors));
  return b.rule;
}

ShardingRule
mlir::dist::detail::batchOnlyRule(Operation *op,
                                  ArrayRef<unsigned> batchedOperands) {
  RuleBuilder b;
  int64_t n =
      b.rule.addFactor(shapeOf(op->getOperand(0))[0], FactorKind::Parallel);
  auto dims = [&](Value v, bool batched) {
    Dims d;
    for (auto [i, size] : llvm::enumerate(shapeOf(v)))
      d.push_back(
          {i == 0 && batched ? n : b.rule.addFactor(size, FactorKind::Fixed)});
    return d;
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    b.operand(dims(v, llvm::is_contained(batchedOperands, i)));
  for (Value v : op->getResults())
    b.result(dims(v, true));
  return b.rule;
}

//===----------------------------------------------------------------------===//
// SplitOpBuilder
//===----------------------------------------------------------------------===//

SplitOpBuilder::SplitOpBuilder(SplitOpPartitioner &p, Operation *op,
                               const ShardingRule &rule,
                               ArrayRef<DimSharding> factors)
    : p(p), op(op), rule(rule), factors(factors), loc(op->getLoc()),
      g(p.builder(), op->getLoc()) {}

int64_t SplitOpBuilder::splitAxis(unsigned i, int64_t dim) const {
  const auto &dimFactors = rule.operands[i][dim];
  if (dimFactors.size() != 1)
    return kReplicated;
  int64_t f = dimFactors.front();
  if (rule.factorKinds[f] != FactorKind::Collective || !factors[f].isSplit() ||
      factors[f].groups != 1)
    return kReplicated;
  return factors[f].axis;
}

SmallVector<int64_t> SplitOpBuilder::reducedAxes() const {
  SmallVector<int64_t> reduced;
  for (auto [f, axis] : llvm::enumerate(factors))
    if (axis.isSplit() && rule.factorKinds[f] == FactorKind::Reduction)
      reduced.push_back(axis.axis);
  llvm::sort(reduced);
  return reduced;
}

SmallVector<Value> SplitOpBuilder::operands() {
  return p.localOperands(op, rule, factors);
}

Value SplitOpBuilder::allReduce(CollectiveKind kind, Value v,
                                ArrayRef<int64_t> axes) {
  return p.allReduce(loc, op->getResult(0), kind, v, axes);
}

void SplitOpBuilder::setResult(Value local, ArrayRef<int64_t> partial) {
  p.setResult(op->getResult(0), local,
              shardingFromFactors(rule, rule.results[0], factors), partial);
}

SplitOpBuilder::Normalized SplitOpBuilder::normalize(Value x, int64_t dim,
                                                     int64_t axis) {
  OpBuilder &b = p.builder();
  Value max = ReduceMaxOp::create(b, loc, x, ArrayRef<int64_t>{dim},
                                  /*keep_dims=*/true);
  max = allReduce(CollectiveKind::max, max, {axis});
  Normalized n;
  n.shifted = g.sub(x, max);
  n.exp = ExpOp::create(b, loc, n.shifted);
  n.sum = allReduce(CollectiveKind::sum,
                    g.reduceSum(n.exp, {dim}, /*keepDims=*/true), {axis});
  return n;
}

std::pair<Value, Value>
SplitOpBuilder::localIndices(Value indices, int64_t size, int64_t axis) {
  using P = ComparePredicate;
  Type type = elementTypeOf(indices);
  Value shifted =
      g.sub(indices, p.blockStart(loc, op->getResult(0), size, axis, type));
  Value zero = g.scalar(0, type);
  Value inside = AndOp::create(
      p.builder(), loc, g.compare(P::ge, shifted, zero),
      g.compare(P::lt, shifted,
                g.scalar(static_cast<double>(size / p.mesh()[axis]), type)));
  return {g.select(inside, shifted, zero), inside};
}

Value SplitOpBuilder::zeroOutside(Value inside, int64_t at, Value x) {
  SmallVector<int64_t> shape(at, 1);
  llvm::append_range(shape, shapeOf(inside));
  shape.resize(shapeOf(x).size(), 1);
  return g.select(g.reshape(inside, shape), x, g.scalar(0, elementTypeOf(x)));
}
