//===- ShapeToLinalg.cpp - Shape ops and constants to tensor/linalg -------===//
//
// transpose -> linalg.transpose; reshape -> tensor.collapse/expand_shape;
// broadcast -> a linalg.generic reading through a broadcasting map; slices
// with positive strides -> tensor.extract_slice, reversed ones -> a
// linalg.generic with an affine input map; concat -> tensor.insert_slice into
// a tensor.empty; split -> tensor.extract_slice; trilu -> a linalg.generic on
// the element indices; constant -> arith.constant.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

struct ConstantPattern : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto signless = toSignless(type);
    TypedAttr value = cast<TypedAttr>(op.getValue());
    // LLVM translation cannot read i1 resource blobs: expand them (one byte
    // per element) into dense booleans.
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue());
        resource && type.getElementType().isInteger(1)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob ||
          blob->getData().size() != static_cast<size_t>(type.getNumElements()))
        return rewriter.notifyMatchFailure(op, "unreadable i1 resource");
      SmallVector<bool> bits;
      for (char c : blob->getData())
        bits.push_back(c != 0);
      value = DenseElementsAttr::get(type, ArrayRef<bool>(bits));
    }
    if (signless != type) {
      auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
      if (!dense)
        return rewriter.notifyMatchFailure(
            op, "unsigned constants must be dense elements");
      value = dense.bitcast(signless.getElementType());
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, signless, value);
    return success();
  }
};

struct TransposePattern : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value init = emptyTensor(rewriter, op.getLoc(), type.getShape(),
                             type.getElementType());
    auto t = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

struct ReshapePattern : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), adaptor.getInput(),
                                     type.getShape()));
    return success();
  }
};

struct BroadcastPattern : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SlicePattern : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    ArrayRef<int64_t> starts = op.getStarts(), strides = op.getStrides();
    if (type.getNumElements() == 0) {
      // An empty slice may start anywhere, even past the end.
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, type.getShape(),
                                         type.getElementType()));
      return success();
    }
    if (llvm::all_of(strides, [](int64_t s) { return s > 0; })) {
      SmallVector<OpFoldResult> offsets, sizes, steps;
      for (auto [i, start] : llvm::enumerate(starts)) {
        offsets.push_back(rewriter.getIndexAttr(start));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
        steps.push_back(rewriter.getIndexAttr(strides[i]));
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, adaptor.getInput(), offsets, sizes, steps);
      return success();
    }
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx) * strides[d] + starts[d]);
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    Value init =
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, adaptor.getInput(), init, maps,
        iterators, [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The offsets, sizes and unit strides of a block of `shape` that starts at
/// `offset` along `axis` (and at 0 elsewhere): a concat operand or a split
/// result.
struct AxisSlice {
  AxisSlice(OpBuilder &b, ArrayRef<int64_t> shape, int64_t axis,
            int64_t offset) {
    for (auto [d, size] : llvm::enumerate(shape)) {
      offsets.push_back(
          b.getIndexAttr(static_cast<int64_t>(d) == axis ? offset : 0));
      sizes.push_back(b.getIndexAttr(size));
      strides.push_back(b.getIndexAttr(1));
    }
  }
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

struct ConcatPattern : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    int64_t axis = op.getAxis();
    Value result =
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType());
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto it = cast<RankedTensorType>(input.getType());
      if (it.getDimSize(axis) == 0)
        continue;
      AxisSlice slice(rewriter, it.getShape(), axis, offset);
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             slice.offsets, slice.sizes,
                                             slice.strides);
      offset += it.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitPattern : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t axis = op.getAxis(), offset = 0;
    SmallVector<Value> results;
    for (Value r : op.getResults()) {
      auto type = toSignless(cast<RankedTensorType>(r.getType()));
      if (type.getNumElements() == 0) {
        // An empty piece may start at the end, where no slice may.
        results.push_back(emptyTensor(rewriter, op.getLoc(), type.getShape(),
                                      type.getElementType()));
        continue;
      }
      AxisSlice slice(rewriter, type.getShape(), axis, offset);
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, op.getLoc(), type, adaptor.getInput(), slice.offsets,
          slice.sizes, slice.strides));
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct TriluPattern : OpConversionPattern<TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    int64_t rank = type.getRank(), k = op.getDiagonal();
    bool upper = op.getUpper();
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Type i64 = b.getI64Type();
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank - 2));
          Value j = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank - 1));
          Value diff = arith::SubIOp::create(b, l, j, i);
          Value kc = scalarConstant(b, l, i64, k);
          Value keep = arith::CmpIOp::create(b, l,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             diff, kc);
          return arith::SelectOp::create(
              b, l, keep, args[0], scalarConstant(b, l, args[0].getType(), 0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::dist::populateShapeToLinalgPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns
      .add<ConstantPattern, TransposePattern, ReshapePattern, BroadcastPattern,
           SlicePattern, ConcatPattern, SplitPattern, TriluPattern>(
          converter, patterns.getContext());
}
