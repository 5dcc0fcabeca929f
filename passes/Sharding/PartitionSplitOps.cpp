//===- PartitionSplitOps.cpp - Ops rebuilt with collectives ---------------===//
//
// A Collective factor may be split although no rank can compute its block
// of the op alone. dist-partition rebuilds such ops:
//  - softmax and log_softmax over split classes: the maximum and the sum of
//    exponentials are all-reduced over the classes' axis;
//  - cross_entropy and nll_loss over split classes (Megatron's parallel
//    cross-entropy): log-probabilities as above, and each rank picks those
//    of the labels in its block of classes, summed over the axis;
//  - gather from a table split by rows (a vocabulary-parallel embedding):
//    each rank looks up the indices in its block of rows and gives zeros
//    for the others, a partial sum over the axis;
//  - scatter_add into a destination split by rows (the embedding's
//    gradient): each rank adds the updates whose indices are in its block.
// A rank finds its block's first index by slicing the constant list of
// every block's first index with dist.shard_slice.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Partitioner.h"

#include "dialects/Dist/Gradients/GradientBuilder.h"
#include "dialects/Dist/IR/DistMesh.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

using P = ComparePredicate;

SmallVector<Value> Partitioner::localOperands(Operation *op,
                                              const ShardingRule &rule,
                                              ArrayRef<int64_t> factors) {
  SmallVector<Value> values;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    values.push_back(reshard(
        op->getLoc(), v, shardingFromFactors(rule, rule.operands[i], factors)));
  return values;
}

Value Partitioner::blockStart(Location loc, Value global, int64_t size,
                              int64_t axis, Type elementType) {
  int64_t ranks = mesh[axis];
  SmallVector<Attribute> starts;
  for (int64_t r = 0; r < ranks; ++r)
    starts.push_back(b.getIntegerAttr(elementType, r * (size / ranks)));
  Value all = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({ranks}, elementType),
                             starts));
  return markOrigin(
      ShardSliceOp::create(b, loc, RankedTensorType::get({1}, elementType), all,
                           0, ArrayRef<int64_t>{axis}),
      global);
}

bool Partitioner::partitionSplitOp(Operation *op, const ShardingRule &rule,
                                   ArrayRef<int64_t> factors) {
  Location loc = op->getLoc();
  GradientBuilder g(b, loc);
  // The mesh axis splitting the Collective factor of operand `i`'s
  // dimension `dim`, or kReplicated.
  auto splitAxis = [&](unsigned i, int64_t dim) -> int64_t {
    const auto &dimFactors = rule.operands[i][dim];
    if (dimFactors.size() != 1)
      return kReplicated;
    int64_t f = dimFactors.front();
    if (rule.factorKinds[f] != FactorKind::Collective ||
        factors[f] == kReplicated || shardGroups(factors[f]) != 1)
      return kReplicated;
    return shardAxis(factors[f]);
  };
  auto allReduce = [&](CollectiveKind kind, Value v,
                       ArrayRef<int64_t> axes) -> Value {
    return markOrigin(AllReduceOp::create(b, loc, kind, v, axes),
                      op->getResult(0));
  };
  // The axes over which the split Reduction factors leave partial results.
  SmallVector<int64_t> reduced;
  for (auto [f, axis] : llvm::enumerate(factors))
    if (axis != kReplicated && rule.factorKinds[f] == FactorKind::Reduction)
      reduced.push_back(shardAxis(axis));
  llvm::sort(reduced);
  auto setResult = [&](Value local, SmallVector<int64_t> partial) {
    state[op->getResult(0)] = {
        local, shardingFromFactors(rule, rule.results[0], factors),
        std::move(partial), CollectiveKind::sum};
  };
  // exp(x - max) and x - max, the maximum and the sum of exp over the
  // classes (dimension `dim`) taken across the ranks of `axis`.
  struct Normalized {
    Value shifted, exp, sum;
  };
  auto normalize = [&](Value x, int64_t dim, int64_t axis) {
    Value max = ReduceMaxOp::create(b, loc, x, ArrayRef<int64_t>{dim},
                                    /*keep_dims=*/true);
    max = allReduce(CollectiveKind::max, max, {axis});
    Normalized n;
    n.shifted = g.sub(x, max);
    n.exp = ExpOp::create(b, loc, n.shifted);
    n.sum = allReduce(CollectiveKind::sum,
                      g.reduceSum(n.exp, {dim}, /*keepDims=*/true), {axis});
    return n;
  };
  // Indices into a dimension of `size` split over `axis`: shifted to this
  // rank's block (0 where outside it) and whether they are inside.
  auto localIndices = [&](Value indices, int64_t size,
                          int64_t axis) -> std::pair<Value, Value> {
    Type type = elementTypeOf(indices);
    Value shifted =
        g.sub(indices, blockStart(loc, op->getResult(0), size, axis, type));
    Value zero = g.scalar(0, type);
    Value inside = AndOp::create(
        b, loc, g.compare(P::ge, shifted, zero),
        g.compare(P::lt, shifted,
                  g.scalar(static_cast<double>(size / mesh[axis]), type)));
    return {g.select(inside, shifted, zero), inside};
  };
  // `x` where `inside` (shaped like the indices, which are `x`'s dimensions
  // `at`, ...) holds, zero elsewhere.
  auto zeroOutside = [&](Value inside, int64_t at, Value x) {
    SmallVector<int64_t> shape(at, 1);
    llvm::append_range(shape, shapeOf(inside));
    shape.resize(shapeOf(x).size(), 1);
    return g.select(g.reshape(inside, shape), x, g.scalar(0, elementTypeOf(x)));
  };

  if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    int64_t dim = op->getAttrOfType<IntegerAttr>("axis").getInt();
    int64_t axis = splitAxis(0, dim);
    if (axis == kReplicated)
      return false;
    Value x = localOperands(op, rule, factors)[0];
    Normalized n = normalize(x, dim, axis);
    setResult(isa<SoftmaxOp>(op)
                  ? g.div(n.exp, n.sum)
                  : g.sub(n.shifted, LogOp::create(b, loc, n.sum)),
              {});
    return true;
  }

  if (auto gather = dyn_cast<GatherOp>(op)) {
    int64_t dim = gather.getAxis();
    int64_t axis = splitAxis(0, dim);
    if (axis == kReplicated)
      return false;
    SmallVector<Value> v = localOperands(op, rule, factors);
    auto [safe, inside] =
        localIndices(v[1], shapeOf(gather.getInput())[dim], axis);
    Value looked = GatherOp::create(b, loc, v[0], safe, dim);
    Value masked = zeroOutside(inside, dim, looked);
    SmallVector<int64_t> partial = reduced;
    partial.push_back(axis);
    llvm::sort(partial);
    setResult(masked, partial);
    return true;
  }

  if (auto scatter = dyn_cast<ScatterAddOp>(op)) {
    int64_t dim = scatter.getAxis();
    int64_t axis = splitAxis(0, dim);
    if (axis == kReplicated)
      return false;
    SmallVector<Value> v = localOperands(op, rule, factors);
    auto [safe, inside] =
        localIndices(v[1], shapeOf(scatter.getDest())[dim], axis);
    Value updates = zeroOutside(inside, dim, v[2]);
    setResult(
        ScatterAddOp::create(b, loc, v[0].getType(), v[0], safe, updates, dim),
        reduced);
    return true;
  }

  if (isa<CrossEntropyOp, NllLossOp>(op)) {
    int64_t axis = splitAxis(0, 1);
    if (axis == kReplicated || op->getNumOperands() != 2)
      return false;
    SmallVector<Value> v = localOperands(op, rule, factors);
    Value x = v[0], labels = v[1];
    Value logp = x;
    if (isa<CrossEntropyOp>(op)) {
      Normalized n = normalize(x, 1, axis);
      logp = g.sub(n.shifted, LogOp::create(b, loc, n.sum));
    }
    // Each position's log-probability of its label, from the rank holding
    // that label's class.
    ArrayRef<int64_t> shape = shapeOf(x);
    Type labelType = elementTypeOf(labels), floatType = elementTypeOf(x);
    SmallVector<int64_t> columnShape(shape);
    columnShape[1] = 1;
    Value shifted = g.sub(labels, blockStart(loc, op->getResult(0),
                                             shapeOf(op->getOperand(0))[1],
                                             axis, labelType));
    Value onehot =
        g.cast(g.compare(P::eq, g.reshape(shifted, columnShape),
                         g.iota(shape[1], labelType, shape.size(), 1)),
               floatType);
    Value picked = allReduce(
        CollectiveKind::sum,
        g.reduceSum(g.mul(logp, onehot), {1}, /*keepDims=*/false), {axis});
    Value loss = g.neg(picked);
    Value valid;
    if (auto ignore = op->getAttrOfType<IntegerAttr>("ignore_index")) {
      valid = g.cast(
          g.compare(P::ne, labels,
                    g.scalar(static_cast<double>(ignore.getInt()), labelType)),
          floatType);
      loss = g.mul(loss, valid);
    }
    auto reduction = op->getAttrOfType<LossReductionAttr>("reduction");
    if (reduction.getValue() == LossReduction::none) {
      setResult(loss, {});
      return true;
    }
    SmallVector<int64_t> all =
        llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(loss).size()));
    Value total = g.reduceSum(loss, all, /*keepDims=*/false);
    if (reduction.getValue() == LossReduction::sum) {
      setResult(total, reduced);
      return true;
    }
    // The mean over every position: the sum and the count over the ranks.
    Value count =
        valid ? g.reduceSum(valid, all, /*keepDims=*/false)
              : g.scalar(static_cast<double>(
                             typeOf(op->getOperand(1)).getNumElements()),
                         floatType);
    if (!reduced.empty()) {
      total = allReduce(CollectiveKind::sum, total, reduced);
      if (valid)
        count = allReduce(CollectiveKind::sum, count, reduced);
    }
    setResult(g.div(total, count), {});
    return true;
  }
  return false;
}
