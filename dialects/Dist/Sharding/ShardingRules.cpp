//===- ShardingRules.cpp - The sharding rule of every dist op -------------===//

#include "dialects/Dist/Sharding/ShardingRule.h"

#include "dialects/Dist/IR/DistMesh.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::dist;

namespace {

using Dims = SmallVector<SmallVector<int64_t, 2>>;

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Builds a rule operand by operand.
struct RuleBuilder {
  ShardingRule rule;

  /// One new factor per dimension of `shape`.
  SmallVector<int64_t> newFactors(ArrayRef<int64_t> shape, FactorKind kind) {
    SmallVector<int64_t> factors;
    for (int64_t size : shape)
      factors.push_back(rule.addFactor(size, kind));
    return factors;
  }
  static Dims single(ArrayRef<int64_t> factors) {
    Dims dims;
    for (int64_t f : factors)
      dims.push_back({f});
    return dims;
  }
  /// Dimensions of a value of `shape` broadcast (numpy, aligned right) to
  /// the dimensions `full` of `fullShape`: a size-1 dimension that
  /// broadcasts has no factor.
  static Dims broadcastDims(ArrayRef<int64_t> shape,
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
  void operand(Dims dims) { rule.operands.push_back(std::move(dims)); }
  void result(Dims dims) { rule.results.push_back(std::move(dims)); }
};

/// Elementwise with numpy broadcasting over all operands and results.
ShardingRule broadcastingRule(Operation *op) {
  RuleBuilder b;
  ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
  SmallVector<int64_t> factors = b.newFactors(shape, FactorKind::Parallel);
  for (Value v : op->getOperands())
    b.operand(RuleBuilder::broadcastDims(shapeOf(v), shape, factors));
  for (Value v : op->getResults())
    b.result(RuleBuilder::broadcastDims(shapeOf(v), shape, factors));
  return b.rule;
}

/// One factor per dimension of operand 0, shared by every operand and result
/// of the same shape; dimensions in `fixed` must stay whole.
ShardingRule sameShapeRule(Operation *op, ArrayRef<int64_t> fixed) {
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

/// Reductions over `axes` of operand 0.
ShardingRule reductionRule(Operation *op, ArrayRef<int64_t> axes, bool keepDims,
                           CollectiveKind kind, bool splittable) {
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

ShardingRule matmulRule(Value lhs, Value rhs, Value result, bool transLhs,
                        bool transRhs, bool kSplittable) {
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

/// Factors shared by a reshape's input and result: walks both shapes,
/// splitting the larger of two sizes by the smaller when it divides it.
/// std::nullopt when the shapes interleave in a way factors cannot express.
std::optional<ShardingRule> reshapeRule(Value input, Value result) {
  RuleBuilder b;
  ArrayRef<int64_t> in = shapeOf(input), out = shapeOf(result);
  Dims inDims(in.size()), outDims(out.size());
  size_t i = 0, j = 0;
  int64_t a = 0, c = 0; // what is left of in[i] and out[j]
  auto skipOnes = [&] {
    while (i < in.size() && in[i] == 1 && a == 0)
      ++i;
    while (j < out.size() && out[j] == 1 && c == 0)
      ++j;
  };
  skipOnes();
  while (i < in.size() && j < out.size()) {
    if (a == 0)
      a = in[i];
    if (c == 0)
      c = out[j];
    int64_t size;
    if (a % c == 0)
      size = c;
    else if (c % a == 0)
      size = a;
    else
      return std::nullopt;
    int64_t f = b.rule.addFactor(size, FactorKind::Parallel);
    inDims[i].push_back(f);
    outDims[j].push_back(f);
    a /= size;
    c /= size;
    if (a == 1) {
      a = 0;
      ++i;
    }
    if (c == 1) {
      c = 0;
      ++j;
    }
    skipOnes();
  }
  b.operand(inDims);
  b.result(outDims);
  return b.rule;
}

/// Slices and inserts: a dimension taken whole (start 0, stride 1, same
/// size) may be split; the others stay whole.
ShardingRule sliceRule(Operation *op, Value small, Value large,
                       ArrayRef<int64_t> starts, ArrayRef<int64_t> strides) {
  RuleBuilder b;
  ArrayRef<int64_t> s = shapeOf(small), l = shapeOf(large);
  Dims smallDims, largeDims;
  for (size_t d = 0; d < s.size(); ++d) {
    bool whole = starts[d] == 0 && strides[d] == 1 && s[d] == l[d];
    if (whole) {
      int64_t f = b.rule.addFactor(s[d], FactorKind::Parallel);
      smallDims.push_back({f});
      largeDims.push_back({f});
    } else {
      smallDims.push_back({b.rule.addFactor(s[d], FactorKind::Fixed)});
      largeDims.push_back({b.rule.addFactor(l[d], FactorKind::Fixed)});
    }
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    b.operand(largeDims);
    b.result(smallDims);
  } else { // insert_slice: source, dest -> result (dest's shape)
    b.operand(smallDims);
    b.operand(largeDims);
    b.result(largeDims);
  }
  return b.rule;
}

/// Gather along `axis`: the result is input[:axis] + indices + input[axis+1:].
ShardingRule gatherRule(GatherOp op) {
  RuleBuilder b;
  ArrayRef<int64_t> in = shapeOf(op.getInput()), idx = shapeOf(op.getIndices());
  int64_t axis = op.getAxis();
  SmallVector<int64_t> inF = b.newFactors(in, FactorKind::Parallel);
  // A table split by rows: each rank looks up the indices it holds.
  b.rule.factorKinds[inF[axis]] = FactorKind::Collective;
  SmallVector<int64_t> idxF = b.newFactors(idx, FactorKind::Parallel);
  Dims result;
  for (int64_t d = 0; d < axis; ++d)
    result.push_back({inF[d]});
  for (int64_t f : idxF)
    result.push_back({f});
  for (int64_t d = axis + 1; d < static_cast<int64_t>(in.size()); ++d)
    result.push_back({inF[d]});
  b.operand(RuleBuilder::single(inF));
  b.operand(RuleBuilder::single(idxF));
  b.result(result);
  return b.rule;
}

bool isZeroConstant(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// scatter_add(dest, indices, updates): updates is indices + dest[axis+1:]
/// (after dest[:axis]); the positions of indices sum into the result, so
/// splitting them leaves partial sums (only when dest is zero: otherwise
/// every rank would add it).
ShardingRule scatterAddRule(ScatterAddOp op) {
  RuleBuilder b;
  ArrayRef<int64_t> dest = shapeOf(op.getDest()),
                    idx = shapeOf(op.getIndices());
  int64_t axis = op.getAxis();
  SmallVector<int64_t> destF = b.newFactors(dest, FactorKind::Parallel);
  // A destination split by rows: each rank adds the updates it holds.
  b.rule.factorKinds[destF[axis]] = FactorKind::Collective;
  SmallVector<int64_t> idxF =
      b.newFactors(idx, isZeroConstant(op.getDest()) ? FactorKind::Reduction
                                                     : FactorKind::Fixed);
  Dims updates;
  for (int64_t d = 0; d < axis; ++d)
    updates.push_back({destF[d]});
  for (int64_t f : idxF)
    updates.push_back({f});
  for (int64_t d = axis + 1; d < static_cast<int64_t>(dest.size()); ++d)
    updates.push_back({destF[d]});
  b.operand(RuleBuilder::single(destF));
  b.operand(RuleBuilder::single(idxF));
  b.operand(updates);
  b.result(RuleBuilder::single(destF));
  b.rule.reduction = CollectiveKind::sum;
  return b.rule;
}

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

/// Concatenation (or split) of `pieces` along `axis` into (from) `whole`.
/// Equal pieces make the axis two factors, [pieces, piece size], and the
/// piece size may be split: each rank holds its block of every piece, a
/// strided split of `whole` (a fused QKV projection split by heads).
/// Unequal pieces keep the axis whole.
ShardingRule piecesRule(Value whole, ValueRange pieces, int64_t axis,
                        bool split) {
  RuleBuilder b;
  SmallVector<int64_t> f = b.newFactors(shapeOf(whole), FactorKind::Parallel);
  int64_t piece = shapeOf(pieces.front())[axis];
  bool equal =
      llvm::all_of(pieces, [&](Value v) { return shapeOf(v)[axis] == piece; });
  Dims wholeDims = RuleBuilder::single(f);
  int64_t pieceFactor = -1;
  if (equal) {
    int64_t count = b.rule.addFactor(pieces.size(), FactorKind::Fixed);
    pieceFactor = f[axis];
    b.rule.factorSizes[pieceFactor] = piece;
    wholeDims[axis] = {count, pieceFactor};
  } else {
    b.rule.factorKinds[f[axis]] = FactorKind::Fixed;
  }
  SmallVector<Dims> pieceDims;
  for (Value v : pieces) {
    Dims d = RuleBuilder::single(f);
    d[axis] = {equal ? pieceFactor
                     : b.rule.addFactor(shapeOf(v)[axis], FactorKind::Fixed)};
    pieceDims.push_back(d);
  }
  if (split) {
    b.operand(wholeDims);
    for (Dims &d : pieceDims)
      b.result(d);
  } else {
    for (Dims &d : pieceDims)
      b.operand(d);
    b.result(wholeDims);
  }
  return b.rule;
}

/// Only the batch (dimension 0 of operand 0 and of the result) may be split;
/// every other dimension of every operand and result stays whole.
ShardingRule batchOnlyRule(Operation *op, ArrayRef<unsigned> batchedOperands) {
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

/// Whether `rule` describes every dimension of every operand and result of
/// `op` with valid factors.
bool ruleFits(const ShardingRule &rule, Operation *op) {
  auto fits = [&](const SmallVector<Dims> &all, ValueRange values) {
    if (all.size() != values.size())
      return false;
    for (auto [dims, v] : llvm::zip(all, values)) {
      if (dims.size() != shapeOf(v).size())
        return false;
      for (const auto &factors : dims)
        for (int64_t f : factors)
          if (f < 0 || f >= rule.numFactors())
            return false;
    }
    return true;
  };
  return fits(rule.operands, op->getOperands()) &&
         fits(rule.results, op->getResults());
}

} // namespace

std::optional<ShardingRule> mlir::dist::getShardingRule(Operation *op,
                                                        std::string &why) {
  why.clear();
  if (op->getNumOperands() == 0)
    return std::nullopt;
  if (!isa<DistDialect>(op->getDialect())) {
    why = "it is not a dist op";
    return std::nullopt;
  }
  std::optional<ShardingRule> rule =
      llvm::TypeSwitch<Operation *, std::optional<ShardingRule>>(op)
          .Case<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, RemOp, AndOp,
                OrOp, XorOp, CompareOp, SelectOp>(
              [](Operation *op) { return broadcastingRule(op); })
          .Case<SoftmaxOp, LogSoftmaxOp>([](auto op) {
            ShardingRule rule = sameShapeRule(op, {});
            rule.factorKinds[op.getAxis()] = FactorKind::Collective;
            return rule;
          })
          .Case<CumSumOp>([](auto op) {
            return sameShapeRule(op, {static_cast<int64_t>(op.getAxis())});
          })
          .Case<TriluOp>([](TriluOp op) {
            int64_t r = op.getType().getRank();
            return sameShapeRule(op, {r - 2, r - 1});
          })
          .Case<ReduceSumOp>([](ReduceSumOp op) {
            return reductionRule(op, op.getAxes(), op.getKeepDims(),
                                 CollectiveKind::sum, true);
          })
          .Case<ReduceMeanOp>([](ReduceMeanOp op) {
            return reductionRule(op, op.getAxes(), op.getKeepDims(),
                                 CollectiveKind::mean, true);
          })
          .Case<ReduceMaxOp>([](ReduceMaxOp op) {
            return reductionRule(op, op.getAxes(), op.getKeepDims(),
                                 CollectiveKind::max, true);
          })
          .Case<ReduceMinOp>([](ReduceMinOp op) {
            return reductionRule(op, op.getAxes(), op.getKeepDims(),
                                 CollectiveKind::min, true);
          })
          .Case<ReduceProdOp>([](ReduceProdOp op) {
            return reductionRule(op, op.getAxes(), op.getKeepDims(),
                                 CollectiveKind::sum, false);
          })
          .Case<ArgMaxOp, ArgMinOp>([](auto op) {
            return reductionRule(op, {static_cast<int64_t>(op.getAxis())},
                                 op.getKeepDims(), CollectiveKind::sum, false);
          })
          .Case<MatmulOp>([](MatmulOp op) {
            return matmulRule(op.getLhs(), op.getRhs(), op.getResult(),
                              op.getTransposeLhs(), op.getTransposeRhs(), true);
          })
          .Case<GemmOp>([](GemmOp op) -> std::optional<ShardingRule> {
            // A bias would be added once per rank of a split K.
            ShardingRule rule =
                matmulRule(op.getA(), op.getB(), op.getResult(),
                           op.getTransposeA(), op.getTransposeB(),
                           /*kSplittable=*/!op.getBias());
            if (Value bias = op.getBias()) {
              ArrayRef<int64_t> out = shapeOf(op.getResult());
              SmallVector<int64_t> mn = {0, 1};
              rule.operands.push_back(
                  RuleBuilder::broadcastDims(shapeOf(bias), out, mn));
            }
            return rule;
          })
          .Case<LayerNormOp>([](LayerNormOp op) {
            RuleBuilder b;
            ArrayRef<int64_t> shape = shapeOf(op.getInput());
            SmallVector<int64_t> f = b.newFactors(shape, FactorKind::Parallel);
            for (int64_t d = op.getAxis(); d < (int64_t)shape.size(); ++d)
              b.rule.factorKinds[f[d]] = FactorKind::Fixed;
            Dims trailing = RuleBuilder::single(
                ArrayRef<int64_t>(f).drop_front(op.getAxis()));
            b.operand(RuleBuilder::single(f));
            b.operand(trailing);
            b.operand(trailing);
            b.result(RuleBuilder::single(f));
            return b.rule;
          })
          .Case<CrossEntropyOp, NllLossOp>([](auto op) {
            return lossRule(op, op.getReduction(), op.getInput(),
                            op.getLabels(), op.getWeight());
          })
          .Case<TransposeOp>([](TransposeOp op) {
            RuleBuilder b;
            SmallVector<int64_t> f =
                b.newFactors(shapeOf(op.getInput()), FactorKind::Parallel);
            Dims result;
            for (int64_t p : op.getPermutation())
              result.push_back({f[p]});
            b.operand(RuleBuilder::single(f));
            b.result(result);
            return b.rule;
          })
          .Case<ReshapeOp>([](ReshapeOp op) {
            return reshapeRule(op.getInput(), op.getResult());
          })
          .Case<BroadcastOp>([](BroadcastOp op) {
            RuleBuilder b;
            ArrayRef<int64_t> out = shapeOf(op.getResult());
            SmallVector<int64_t> f = b.newFactors(out, FactorKind::Parallel);
            b.operand(
                RuleBuilder::broadcastDims(shapeOf(op.getInput()), out, f));
            b.result(RuleBuilder::single(f));
            return b.rule;
          })
          .Case<SliceOp>([](SliceOp op) {
            return sliceRule(op, op.getResult(), op.getInput(), op.getStarts(),
                             op.getStrides());
          })
          .Case<InsertSliceOp>([](InsertSliceOp op) {
            return sliceRule(op, op.getSource(), op.getDest(), op.getStarts(),
                             op.getStrides());
          })
          .Case<ConcatOp>([](ConcatOp op) {
            return piecesRule(op.getResult(), op.getInputs(), op.getAxis(),
                              /*split=*/false);
          })
          .Case<SplitOp>([](SplitOp op) {
            return piecesRule(op.getInput(), op.getResults(), op.getAxis(),
                              /*split=*/true);
          })
          .Case<GatherOp>([](GatherOp op) { return gatherRule(op); })
          .Case<GatherElementsOp>([](GatherElementsOp op) {
            RuleBuilder b;
            ArrayRef<int64_t> in = shapeOf(op.getInput()),
                              idx = shapeOf(op.getIndices());
            Dims inD, idxD;
            for (size_t d = 0; d < in.size(); ++d) {
              bool shared = in[d] == idx[d] && d != op.getAxis();
              int64_t f = b.rule.addFactor(idx[d], shared ? FactorKind::Parallel
                                                          : FactorKind::Fixed);
              idxD.push_back({f});
              inD.push_back(
                  {shared ? f : b.rule.addFactor(in[d], FactorKind::Fixed)});
            }
            b.operand(inD);
            b.operand(idxD);
            b.result(idxD);
            return b.rule;
          })
          .Case<ScatterAddOp>(
              [](ScatterAddOp op) { return scatterAddRule(op); })
          .Case<Conv2DOp, MaxPool2DOp, AvgPool2DOp, GlobalAvgPoolOp>(
              [](Operation *op) { return batchOnlyRule(op, {0}); })
          .Case<MaxPool2DGradOp, AvgPool2DGradOp>([](Operation *op) {
            return batchOnlyRule(op, {0, 1});
          })
          .Default([&](Operation *op) -> std::optional<ShardingRule> {
            if (op->hasTrait<OpTrait::Elementwise>() &&
                op->getNumOperands() == 1 && op->getNumResults() == 1 &&
                shapeOf(op->getOperand(0)) == shapeOf(op->getResult(0)))
              return sameShapeRule(op, {});
            return std::nullopt;
          });
  if (isa<DropoutOp>(op)) {
    why = "its random mask depends on each element's global index";
    return std::nullopt;
  }
  if (isa<BatchNormOp>(op)) {
    why = "training-mode batch statistics need the whole batch";
    return std::nullopt;
  }
  if (!rule && why.empty())
    why = "it has no sharding rule";
  if (rule && !ruleFits(*rule, op)) {
    why = "its sharding rule does not match its operands (a bug: please "
          "report it)";
    return std::nullopt;
  }
  return rule;
}

SmallVector<int64_t> mlir::dist::mergeFactorAxes(
    const ShardingRule &rule,
    ArrayRef<const SmallVector<int64_t> *> operandShardings,
    ArrayRef<const SmallVector<int64_t> *> resultShardings,
    ArrayRef<int64_t> mesh) {
  SmallVector<int64_t> axes(rule.numFactors(), kReplicated);
  SmallVector<bool> axisUsed(mesh.size(), false);
  auto visit = [&](const Dims &dims, const SmallVector<int64_t> *sharding) {
    if (!sharding || sharding->size() != dims.size())
      return;
    for (auto [d, entry] : llvm::enumerate(*sharding)) {
      if (entry == kReplicated)
        continue;
      int64_t axis = shardAxis(entry), groups = shardGroups(entry);
      if (axis >= static_cast<int64_t>(mesh.size()) || axisUsed[axis])
        continue;
      // The split falls on the factor before which the dimension holds a
      // whole number of its groups (`outer`), and that the remaining
      // groups times the axis divide.
      int64_t outer = 1;
      for (int64_t f : dims[d]) {
        if (groups % outer != 0)
          break;
        int64_t within = groups / outer;
        if (rule.factorSizes[f] % (within * mesh[axis]) == 0) {
          if (axes[f] == kReplicated &&
              rule.factorKinds[f] != FactorKind::Fixed) {
            axes[f] = stridedShard(axis, within);
            axisUsed[axis] = true;
          }
          break;
        }
        outer *= rule.factorSizes[f];
      }
    }
  };
  for (auto [i, s] : llvm::enumerate(operandShardings))
    visit(rule.operands[i], s);
  for (auto [i, s] : llvm::enumerate(resultShardings))
    visit(rule.results[i], s);
  // A dimension made of two split factors would be in pieces no (strided)
  // block describes: the minor one stays whole.
  auto dropMinor = [&](const Dims &dims) {
    for (const auto &factors : dims) {
      bool split = false;
      for (int64_t f : factors) {
        if (axes[f] != kReplicated && split)
          axes[f] = kReplicated;
        split |= axes[f] != kReplicated;
      }
    }
  };
  for (const Dims &dims : rule.operands)
    dropMinor(dims);
  for (const Dims &dims : rule.results)
    dropMinor(dims);
  return axes;
}

SmallVector<int64_t>
mlir::dist::shardingFromFactors(const ShardingRule &rule,
                                ArrayRef<SmallVector<int64_t, 2>> dims,
                                ArrayRef<int64_t> factorAxes) {
  SmallVector<int64_t> sharding;
  for (const auto &factors : dims) {
    // A split minor factor splits the dimension in as many groups as the
    // factors before it hold indices.
    int64_t entry = kReplicated, outer = 1;
    for (int64_t f : factors) {
      if (int64_t a = factorAxes[f]; a != kReplicated) {
        entry = stridedShard(shardAxis(a), outer * shardGroups(a));
        break;
      }
      outer *= rule.factorSizes[f];
    }
    sharding.push_back(entry);
  }
  return sharding;
}
