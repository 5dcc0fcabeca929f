//===- ShapeSharding.cpp - Sharding of shape ops, gathers and scatters ----===//
//
// Transposes, reshapes and broadcasts map factors between dimensions;
// slices keep a sliced dimension whole; concatenations of equal pieces
// split by blocks of every piece (a strided split). A gather from (or a
// scatter_add into) a table split by rows is rebuilt so that each rank
// handles the indices in its block of rows.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

/// Factors shared by a reshape's input and result: walks both shapes,
/// splitting the larger of two sizes by the smaller when it divides it;
/// where neither divides, the block of dimensions up to where the shapes'
/// products meet again stays whole (Fixed factors).
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
    if (a % c == 0) {
      size = c;
    } else if (c % a == 0) {
      size = a;
    } else {
      // The shapes interleave here (XLNet's relative shift: 31 x 16 to
      // 16 x 31): the dimensions up to where both shapes' products meet
      // again are one block of the row-major order that no factor crosses.
      // Each keeps a Fixed factor for what is left of it; the factors
      // before the block (a batch) may still split, and those after it.
      int64_t inBlock = a, outBlock = c;
      inDims[i].push_back(b.rule.addFactor(a, FactorKind::Fixed));
      outDims[j].push_back(b.rule.addFactor(c, FactorKind::Fixed));
      while (inBlock != outBlock) {
        if (inBlock < outBlock) {
          if (++i == in.size())
            return std::nullopt;
          inDims[i].push_back(b.rule.addFactor(in[i], FactorKind::Fixed));
          inBlock *= in[i];
        } else {
          if (++j == out.size())
            return std::nullopt;
          outDims[j].push_back(b.rule.addFactor(out[j], FactorKind::Fixed));
          outBlock *= out[j];
        }
      }
      a = c = 0;
      ++i;
      ++j;
      skipOnes();
      continue;
    }
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

struct TransposeSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(TransposeOp op, std::string &) {
    RuleBuilder b;
    SmallVector<int64_t> f =
        b.newFactors(shapeOf(op.getInput()), FactorKind::Parallel);
    Dims result;
    for (int64_t p : op.getPermutation())
      result.push_back({f[p]});
    b.operand(RuleBuilder::single(f));
    b.result(result);
    return b.rule;
  }
  static PartialSums partialSums(Operation *) { return PartialSums::linear; }
};

struct ReshapeSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(ReshapeOp op, std::string &) {
    return reshapeRule(op.getInput(), op.getResult());
  }
  static PartialSums partialSums(Operation *) { return PartialSums::linear; }
};

struct BroadcastSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(BroadcastOp op, std::string &) {
    RuleBuilder b;
    ArrayRef<int64_t> out = shapeOf(op.getResult());
    SmallVector<int64_t> f = b.newFactors(out, FactorKind::Parallel);
    b.operand(RuleBuilder::broadcastDims(shapeOf(op.getInput()), out, f));
    b.result(RuleBuilder::single(f));
    return b.rule;
  }
  static PartialSums partialSums(Operation *) { return PartialSums::linear; }
};

struct SliceSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(SliceOp op, std::string &) {
    return sliceRule(op, op.getResult(), op.getInput(), op.getStarts(),
                     op.getStrides());
  }
  static PartialSums partialSums(Operation *) { return PartialSums::linear; }
};

struct InsertSliceSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(InsertSliceOp op, std::string &) {
    return sliceRule(op, op.getSource(), op.getDest(), op.getStarts(),
                     op.getStrides());
  }
};

struct ConcatSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(ConcatOp op, std::string &) {
    return piecesRule(op.getResult(), op.getInputs(), op.getAxis(),
                      /*split=*/false);
  }
};

struct SplitSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(SplitOp op, std::string &) {
    return piecesRule(op.getInput(), op.getResults(), op.getAxis(),
                      /*split=*/true);
  }
};

struct GatherSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(GatherOp op, std::string &) {
    return gatherRule(op);
  }
  /// From a table split by rows (a vocabulary-parallel embedding): each rank
  /// looks up the indices in its block of rows and gives zeros for the
  /// others, a partial sum over the rows' axis.
  static bool partition(Operation *op, SplitOpPartitioner &p,
                        const ShardingRule &rule,
                        ArrayRef<DimSharding> factors) {
    auto gather = cast<GatherOp>(op);
    SplitOpBuilder s(p, op, rule, factors);
    int64_t dim = gather.getAxis();
    int64_t axis = s.splitAxis(0, dim);
    if (axis == kReplicated)
      return false;
    SmallVector<Value> v = s.operands();
    auto [safe, inside] =
        s.localIndices(v[1], shapeOf(gather.getInput())[dim], axis);
    Value looked = GatherOp::create(p.builder(), s.loc, v[0], safe, dim);
    SmallVector<int64_t> partial = s.reducedAxes();
    partial.push_back(axis);
    llvm::sort(partial);
    s.setResult(s.zeroOutside(inside, dim, looked), partial);
    return true;
  }
};

struct GatherElementsSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(GatherElementsOp op, std::string &) {
    RuleBuilder b;
    ArrayRef<int64_t> in = shapeOf(op.getInput()),
                      idx = shapeOf(op.getIndices());
    Dims inD, idxD;
    for (size_t d = 0; d < in.size(); ++d) {
      bool shared = in[d] == idx[d] && d != op.getAxis();
      int64_t f = b.rule.addFactor(idx[d], shared ? FactorKind::Parallel
                                                  : FactorKind::Fixed);
      idxD.push_back({f});
      inD.push_back({shared ? f : b.rule.addFactor(in[d], FactorKind::Fixed)});
    }
    b.operand(inD);
    b.operand(idxD);
    b.result(idxD);
    return b.rule;
  }
};

struct ScatterAddSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(ScatterAddOp op, std::string &) {
    return scatterAddRule(op);
  }
  /// Into zeros, linear in the updates: a partial sum of them (a position
  /// embedding's gradient, summed over the batch) is scattered as it is
  /// and summed after, so each rank's part of the gradient stays its own
  /// (what per-rank compression sends).
  static PartialSums partialSums(Operation *op) {
    return isZeroConstant(cast<ScatterAddOp>(op).getDest())
               ? PartialSums::scatterUpdates
               : PartialSums::none;
  }
  /// Into a destination split by rows (the embedding's gradient): each rank
  /// adds the updates whose indices are in its block.
  static bool partition(Operation *op, SplitOpPartitioner &p,
                        const ShardingRule &rule,
                        ArrayRef<DimSharding> factors) {
    auto scatter = cast<ScatterAddOp>(op);
    SplitOpBuilder s(p, op, rule, factors);
    int64_t dim = scatter.getAxis();
    int64_t axis = s.splitAxis(0, dim);
    if (axis == kReplicated)
      return false;
    SmallVector<Value> v = s.operands();
    auto [safe, inside] =
        s.localIndices(v[1], shapeOf(scatter.getDest())[dim], axis);
    Value updates = s.zeroOutside(inside, dim, v[2]);
    s.setResult(ScatterAddOp::create(p.builder(), s.loc, v[0].getType(), v[0],
                                     safe, updates, dim),
                s.reducedAxes());
    return true;
  }
};

struct TriluSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(TriluOp op, std::string &) {
    int64_t r = op.getType().getRank();
    return sameShapeRule(op, {r - 2, r - 1});
  }
};

} // namespace

void mlir::dist::detail::attachShapeSharding(MLIRContext *ctx) {
  attachSharding<TransposeSharding, TransposeOp>(ctx);
  attachSharding<ReshapeSharding, ReshapeOp>(ctx);
  attachSharding<BroadcastSharding, BroadcastOp>(ctx);
  attachSharding<SliceSharding, SliceOp>(ctx);
  attachSharding<InsertSliceSharding, InsertSliceOp>(ctx);
  attachSharding<ConcatSharding, ConcatOp>(ctx);
  attachSharding<SplitSharding, SplitOp>(ctx);
  attachSharding<GatherSharding, GatherOp>(ctx);
  attachSharding<GatherElementsSharding, GatherElementsOp>(ctx);
  attachSharding<ScatterAddSharding, ScatterAddOp>(ctx);
  attachSharding<TriluSharding, TriluOp>(ctx);
}
