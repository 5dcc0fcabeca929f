//===- TopKCompression.cpp - Top-k gradient compression in dist ops -------===//

#include "passes/Transforms/TopKCompression.h"

#include "dialects/Dist/IR/DistDialect.h"
#include "passes/Transforms/RankParts.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;

std::optional<double> mlir::dist::topKFraction(StringRef spec) {
  double fraction;
  if (!spec.consume_front("topk:") || spec.getAsDouble(fraction) ||
      !(fraction > 0 && fraction <= 1))
    return std::nullopt;
  return fraction;
}

int64_t mlir::dist::topKKept(double fraction, int64_t n) {
  auto k = static_cast<int64_t>(std::ceil(fraction * static_cast<double>(n)));
  return std::min(n, std::max<int64_t>(k, 1));
}

/// `selected` (ranks x k) as the sum over the ranks of each rank's row in
/// place and zeros elsewhere: the whole ranks x k on every rank.
static Value gatherRows(DistBuilder &g, Value selected, int64_t gradientBytes) {
  OpBuilder &b = g.getBuilder();
  auto type = cast<RankedTensorType>(selected.getType());
  int64_t ranks = type.getDimSize(0), k = type.getDimSize(1);
  SmallVector<bool> identity(ranks * ranks, false);
  for (int64_t r = 0; r < ranks; ++r)
    identity[r * ranks + r] = true;
  auto maskType = RankedTensorType::get({ranks, ranks, 1}, b.getI1Type());
  Value own = ConstantOp::create(
      b, g.getLoc(), DenseElementsAttr::get(maskType, ArrayRef(identity)));
  SmallVector<int64_t> placed = {ranks, ranks, k};
  Value rows = g.broadcastTo(g.reshape(selected, {ranks, 1, k}), placed);
  Value spread = g.select(g.broadcastTo(own, placed), rows,
                          g.zeros(type.clone(placed)));
  return rankSum(g, spread, gradientBytes);
}

TopKStep mlir::dist::startTopK(DistBuilder &g, Value gradient, Value error,
                               int64_t ranks, int64_t k) {
  OpBuilder &b = g.getBuilder();
  auto type = cast<RankedTensorType>(gradient.getType());
  int64_t n = type.getNumElements();
  Value inputs =
      g.reshape(g.add(rankParts(g, gradient, ranks), error), {ranks, n});
  auto selected = RankedTensorType::get({ranks, k}, b.getF32Type());
  auto top = SparsifyTopKOp::create(
      b, g.getLoc(),
      TypeRange{selected, selected.clone(b.getI64Type()), inputs.getType()},
      inputs, k);
  return {gatherRows(g, top.getValues(), n * 4),
          gatherRows(g, top.getIndices(), 0),
          g.reshape(top.getRest(), cast<RankedTensorType>(error.getType())
                                       .getShape())};
}

Value mlir::dist::finishTopK(DistBuilder &g, const TopKStep &step, Type type) {
  auto gradientType = cast<RankedTensorType>(type);
  int64_t n = gradientType.getNumElements();
  int64_t sent = cast<RankedTensorType>(step.values.getType()).getNumElements();
  Value sum = ScatterAddOp::create(
      g.getBuilder(), g.getLoc(), gradientType.clone({n}),
      g.zeros(gradientType.clone({n})), g.reshape(step.indices, {sent}),
      g.reshape(step.values, {sent}), 0);
  return g.reshape(sum, gradientType.getShape());
}
