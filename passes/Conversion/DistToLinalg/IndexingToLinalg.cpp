//===- IndexingToLinalg.cpp - gather and gather_elements to linalg --------===//
//
// Both become a parallel linalg.generic over the result that reads the index
// through an indexing map and the data with tensor.extract. Negative indices
// count from the end; an index outside [-size, size) stops the program with
// a message naming the op's location (cf.assert) instead of reading memory it
// does not own.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

struct GatherPattern : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t axis = op.getAxis();
    int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
    int64_t rank = type.getRank(), size = inputType.getDimSize(axis);
    SmallVector<AffineExpr> idxExprs;
    for (int64_t d = 0; d < q; ++d)
      idxExprs.push_back(getAffineDimExpr(axis + d, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idxExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    Value init =
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value idx = checkedIndex(b, l, args[0], size, "gather");
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords.push_back(idx);
          for (int64_t d = axis + 1; d < inputType.getRank(); ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d + q - 1));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, input, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct GatherElementsPattern : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value input = adaptor.getInput();
    int64_t axis = op.getAxis(), rank = type.getRank();
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    Value r = buildElementwise(
        rewriter, loc, type, adaptor.getIndices(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value idx = checkedIndex(b, l, args[0], size, "gather_elements");
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(
                d == axis ? idx : Value(linalg::IndexOp::create(b, l, d)));
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::dist::populateIndexingToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GatherPattern, GatherElementsPattern>(converter,
                                                     patterns.getContext());
}
