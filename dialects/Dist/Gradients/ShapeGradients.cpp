//===- ShapeGradients.cpp - Gradients of data-movement ops ----------------===//
//
// Each op moves elements; its gradient moves them back: the inverse
// permutation, the inverse reshape, a slice's gradient inserted into zeros,
// a gather's scattered and added.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Gradients/Gradients.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

using P = ComparePredicate;

struct TransposeGradient {
  static LogicalResult build(TransposeOp op, DistBuilder &g,
                             GradientRequest &r) {
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = i;
    r.set(0, g.transpose(r.dy(), inverse));
    return success();
  }
};

struct ReshapeGradient {
  static LogicalResult build(ReshapeOp op, DistBuilder &g, GradientRequest &r) {
    r.set(0, g.reshape(r.dy(), shapeOf(op.getInput())));
    return success();
  }
};

struct BroadcastGradient {
  static LogicalResult build(BroadcastOp op, DistBuilder &g,
                             GradientRequest &r) {
    r.set(0, g.sumToShape(r.dy(), op.getInput().getType()));
    return success();
  }
};

struct SliceGradient {
  static LogicalResult build(SliceOp op, DistBuilder &g, GradientRequest &r) {
    Value zeros = g.zeros(op.getInput().getType());
    r.set(0, InsertSliceOp::create(g.getBuilder(), g.getLoc(), r.dy(), zeros,
                                   op.getStarts(), op.getStrides()));
    return success();
  }
};

/// The source's gradient is what was written: the same slice of dy; the
/// destination's is dy with those positions zeroed (they were overwritten).
struct InsertSliceGradient {
  static LogicalResult build(InsertSliceOp op, DistBuilder &g,
                             GradientRequest &r) {
    if (r.wants(0))
      r.set(0, g.slice(r.dy(), op.getStarts(), op.getStrides(),
                       shapeOf(op.getSource())));
    if (r.wants(1))
      r.set(1, InsertSliceOp::create(g.getBuilder(), g.getLoc(),
                                     g.zeros(op.getSource().getType()), r.dy(),
                                     op.getStarts(), op.getStrides()));
    return success();
  }
};

struct ConcatGradient {
  static LogicalResult build(ConcatOp op, DistBuilder &g, GradientRequest &r) {
    int64_t axis = op.getAxis(), offset = 0;
    int64_t rank = shapeOf(r.dy()).size();
    for (auto [i, input] : llvm::enumerate(op.getInputs())) {
      ArrayRef<int64_t> shape = shapeOf(input);
      if (r.wants(i)) {
        SmallVector<int64_t> starts(rank, 0), strides(rank, 1);
        starts[axis] = offset;
        r.set(i, g.slice(r.dy(), starts, strides, shape));
      }
      offset += shape[axis];
    }
    return success();
  }
};

struct SplitGradient {
  static LogicalResult build(SplitOp op, DistBuilder &g, GradientRequest &r) {
    SmallVector<Value> pieces;
    for (auto [result, dy] : llvm::zip(op.getResults(), r.resultGradients))
      pieces.push_back(dy ? dy : g.zeros(result.getType()));
    r.set(0,
          ConcatOp::create(g.getBuilder(), g.getLoc(), pieces, op.getAxis()));
    return success();
  }
};

struct GatherGradient {
  static LogicalResult build(GatherOp op, DistBuilder &g, GradientRequest &r) {
    Value zeros = g.zeros(op.getInput().getType());
    Value dy = r.dy();
    if (std::optional<uint64_t> padding = op.getPaddingIdx()) {
      // nn.Embedding's padding_idx: its lookups (an index of that row,
      // counted from either end) add nothing to the table's gradient.
      Value indices = op.getIndices();
      ArrayRef<int64_t> iShape = shapeOf(indices);
      int64_t rows = shapeOf(op.getInput())[0];
      Type indexType = elementTypeOf(indices);
      auto row = static_cast<int64_t>(*padding);
      Value padded = OrOp::create(
          g.getBuilder(), g.getLoc(),
          g.compare(P::eq, indices, g.scalar(row, indexType)),
          g.compare(P::eq, indices, g.scalar(row - rows, indexType)));
      SmallVector<int64_t> expanded(iShape);
      expanded.append(shapeOf(dy).size() - iShape.size(), 1);
      dy = g.select(g.reshape(padded, expanded), g.scalarLike(0, dy), dy);
    }
    r.set(0, ScatterAddOp::create(g.getBuilder(), g.getLoc(), zeros.getType(),
                                  zeros, op.getIndices(), dy, op.getAxis()));
    return success();
  }
};

/// dist.scatter_add adds the updates into the destination: the destination's
/// gradient passes through, and each update's is the output gradient at the
/// slice it was added to, a gather by the same indices.
struct ScatterAddGradient {
  static LogicalResult build(ScatterAddOp op, DistBuilder &g,
                             GradientRequest &r) {
    if (r.wants(0))
      r.set(0, r.dy());
    if (r.wants(2))
      r.set(2, GatherOp::create(g.getBuilder(), g.getLoc(), r.dy(),
                                op.getIndices(), op.getAxis()));
    return success();
  }
};

struct GatherElementsGradient {
  static LogicalResult build(GatherElementsOp op, DistBuilder &g,
                             GradientRequest &r) {
    // dx[.., c, ..] = sum over k of (indices[.., k, ..] == c) * dy[.., k, ..]
    // over the positions indices covers, zero elsewhere: compare the
    // indices (normalized, then given an extra dimension after `axis`)
    // with 0..C-1 and reduce over k.
    Value x = op.getInput(), indices = op.getIndices(), dy = r.dy();
    ArrayRef<int64_t> xShape = shapeOf(x), iShape = shapeOf(indices);
    int64_t axis = op.getAxis(), rank = xShape.size(), classes = xShape[axis];
    Type indexType = elementTypeOf(indices);
    Value zero = g.scalar(0, indexType);
    Value normalized =
        g.select(g.compare(P::lt, indices, zero),
                 g.add(indices, g.scalar(classes, indexType)), indices);
    SmallVector<int64_t> expanded(iShape);
    expanded.insert(expanded.begin() + axis + 1, 1);
    Value hit = g.compare(P::eq, g.reshape(normalized, expanded),
                          g.iota(classes, indexType, rank + 1, axis + 1));
    Value spread = g.select(hit, g.reshape(dy, expanded), g.scalarLike(0, dy));
    Value covered = g.reduceSum(spread, {axis}, /*keepDims=*/false);
    if (shapeOf(covered) == xShape) {
      r.set(0, covered);
      return success();
    }
    SmallVector<int64_t> starts(rank, 0), strides(rank, 1);
    r.set(0, InsertSliceOp::create(g.getBuilder(), g.getLoc(), covered,
                                   g.zeros(x.getType()), starts, strides));
    return success();
  }
};

struct TriluGradient {
  static LogicalResult build(TriluOp op, DistBuilder &g, GradientRequest &r) {
    r.set(0, TriluOp::create(g.getBuilder(), g.getLoc(), r.dy(),
                             op.getDiagonal(), op.getUpper()));
    return success();
  }
};

} // namespace

void mlir::dist::detail::attachShapeGradients(MLIRContext *ctx) {
  attachGradient<TransposeOp, TransposeGradient>(ctx);
  attachGradient<ReshapeOp, ReshapeGradient>(ctx);
  attachGradient<BroadcastOp, BroadcastGradient>(ctx);
  attachGradient<SliceOp, SliceGradient>(ctx);
  attachGradient<InsertSliceOp, InsertSliceGradient>(ctx);
  attachGradient<ConcatOp, ConcatGradient>(ctx);
  attachGradient<SplitOp, SplitGradient>(ctx);
  attachGradient<GatherOp, GatherGradient>(ctx);
  attachGradient<GatherElementsOp, GatherElementsGradient>(ctx);
  attachGradient<ScatterAddOp, ScatterAddGradient>(ctx);
  attachGradient<TriluOp, TriluGradient>(ctx);
}
