//===- RankParts.cpp - The ranks' parts of a sum, in the global view ------===//

#include "passes/Transforms/RankParts.h"

#include "dialects/Dist/IR/DistDialect.h"

using namespace mlir;
using namespace mlir::dist;

Value mlir::dist::rankParts(DistBuilder &g, Value gradient, int64_t ranks) {
  OpBuilder &b = g.getBuilder();
  auto type = cast<RankedTensorType>(gradient.getType());
  SmallVector<int64_t> stacked = {ranks};
  llvm::append_range(stacked, type.getShape());
  Value parts =
      BroadcastOp::create(b, g.getLoc(), type.clone(stacked), gradient);
  parts.getDefiningOp()->setAttr(DistDialect::kRankPartsAttrName,
                                 b.getUnitAttr());
  return parts;
}

Value mlir::dist::rankSum(DistBuilder &g, Value stacked,
                          int64_t gradientBytes) {
  Value sum = g.reduceSum(stacked, {0}, /*keepDims=*/false);
  sum.getDefiningOp()->setAttr(
      DistDialect::kRankSumAttrName,
      g.getBuilder().getI64IntegerAttr(gradientBytes));
  return sum;
}
