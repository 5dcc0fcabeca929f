//===- ReductionToLinalg.cpp - Reductions, softmax, layer norm to linalg --===//
//
// Reductions become a reduction linalg.generic into a tensor without the
// reduced dimensions (re-expanded for keep_dims). Sums, means and products of
// f16/bf16 accumulate in f32. Softmax, log-softmax and layer norm are a max
// (or mean) pass, a sum pass and one elementwise pass that reads the
// statistics through broadcasting maps.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"
#include "passes/Conversion/DistToLinalg/Statistics.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

enum class ReduceKind { Sum, Mean, Max, Min, Prod };

template <typename OpTy, ReduceKind Kind>
struct ReducePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type orig =
        cast<RankedTensorType>(op.getInput().getType()).getElementType();
    Type type = toSignless(orig);
    bool isFloat = isa<FloatType>(type);
    bool isUnsigned = isUnsignedElement(orig);
    bool accumulates = Kind == ReduceKind::Sum || Kind == ReduceKind::Mean ||
                       Kind == ReduceKind::Prod;
    Type acc =
        accumulates && computesInF32(type) ? rewriter.getF32Type() : type;
    Value init;
    switch (Kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      init = scalarConstant(rewriter, loc, acc, 0);
      break;
    case ReduceKind::Prod:
      init = scalarConstant(rewriter, loc, acc, 1);
      break;
    case ReduceKind::Max:
      init = extremeConstant(rewriter, loc, acc, false, isUnsigned);
      break;
    case ReduceKind::Min:
      init = extremeConstant(rewriter, loc, acc, true, isUnsigned);
      break;
    }
    ArrayRef<int64_t> axes = op.getAxes();
    Value r = buildReduction(
        rewriter, loc, adaptor.getInput(), axes, init,
        [&](OpBuilder &b, Location l, Value x, Value a) -> Value {
          x = extendTo(b, l, x, acc);
          switch (Kind) {
          case ReduceKind::Sum:
          case ReduceKind::Mean:
            return isFloat ? accumulateF(b, l, x, a)
                           : Value(arith::AddIOp::create(b, l, x, a));
          case ReduceKind::Prod:
            return isFloat ? Value(arith::MulFOp::create(b, l, x, a))
                           : Value(arith::MulIOp::create(b, l, x, a));
          case ReduceKind::Max:
            if (isFloat)
              return arith::MaximumFOp::create(b, l, x, a);
            return isUnsigned ? Value(arith::MaxUIOp::create(b, l, x, a))
                              : Value(arith::MaxSIOp::create(b, l, x, a));
          case ReduceKind::Min:
            if (isFloat)
              return arith::MinimumFOp::create(b, l, x, a);
            return isUnsigned ? Value(arith::MinUIOp::create(b, l, x, a))
                              : Value(arith::MinSIOp::create(b, l, x, a));
          }
          return a;
        });
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t count = 1;
    for (int64_t axis : axes)
      count *= inputType.getDimSize(axis);
    if (Kind == ReduceKind::Mean || acc != type) {
      auto rt = cast<RankedTensorType>(r.getType());
      r = buildElementwise(rewriter, loc, rt.clone(type), r,
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             Value v = args[0];
                             if (Kind == ReduceKind::Mean)
                               v = arith::DivFOp::create(
                                   b, l, v, scalarConstant(b, l, acc, count));
                             if (acc != type)
                               v = arith::TruncFOp::create(b, l, type, v);
                             return v;
                           });
    }
    r = reshapeTo(rewriter, loc, r,
                  cast<RankedTensorType>(op.getType()).getShape());
    rewriter.replaceOp(op, r);
    return success();
  }
};

template <typename OpTy, bool IsMax>
struct ArgReducePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type orig =
        cast<RankedTensorType>(op.getInput().getType()).getElementType();
    Type type = toSignless(orig);
    bool isFloat = isa<FloatType>(type), isUnsigned = isUnsignedElement(orig);
    bool last = op.getSelectLastIndex();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t rank = inputType.getRank(), axis = op.getAxis();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type indexType = resultType.getElementType();
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        kept.push_back(inputType.getDimSize(d));
    Value outs[] = {
        filledTensor(rewriter, loc, kept,
                     extremeConstant(rewriter, loc, type, !IsMax, isUnsigned)),
        filledTensor(rewriter, loc, kept,
                     scalarConstant(rewriter, loc, indexType, 0))};
    AffineMap out = keptMap(ctx, rank, {axis});
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank), out,
                                   out};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[axis] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outs[0].getType(), outs[1].getType()},
        adaptor.getInput(), outs, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value better;
          if (isFloat) {
            arith::CmpFPredicate p = IsMax ? (last ? arith::CmpFPredicate::OGE
                                                   : arith::CmpFPredicate::OGT)
                                           : (last ? arith::CmpFPredicate::OLE
                                                   : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, p, x, best);
          } else {
            arith::CmpIPredicate p;
            if (IsMax)
              p = last ? (isUnsigned ? arith::CmpIPredicate::uge
                                     : arith::CmpIPredicate::sge)
                       : (isUnsigned ? arith::CmpIPredicate::ugt
                                     : arith::CmpIPredicate::sgt);
            else
              p = last ? (isUnsigned ? arith::CmpIPredicate::ule
                                     : arith::CmpIPredicate::sle)
                       : (isUnsigned ? arith::CmpIPredicate::ult
                                     : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(b, l, p, x, best);
          }
          Value idx = arith::IndexCastOp::create(
              b, l, indexType, linalg::IndexOp::create(b, l, axis));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, idx, bestIdx)});
        });
    Value r =
        reshapeTo(rewriter, loc, generic.getResult(1), resultType.getShape());
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Running sums as a reduction over a second copy of the axis, masked to the
/// elements each position sums: O(n^2) along the axis, which is fine for the
/// position ids and masks CumSum computes in exported models.
struct CumSumPattern : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Type et = type.getElementType();
    bool isFloat = isa<FloatType>(et);
    int64_t rank = type.getRank(), axis = op.getAxis();
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    SmallVector<AffineExpr> in;
    for (int64_t d = 0; d < rank; ++d)
      in.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, in, ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank + 1,
                                               utils::IteratorType::parallel);
    iterators[rank] = utils::IteratorType::reduction;
    Value init = filledTensor(rewriter, loc, type.getShape(),
                              scalarConstant(rewriter, loc, et, 0));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, adaptor.getInput(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          arith::CmpIPredicate p =
              reverse ? (exclusive ? arith::CmpIPredicate::sgt
                                   : arith::CmpIPredicate::sge)
                      : (exclusive ? arith::CmpIPredicate::slt
                                   : arith::CmpIPredicate::sle);
          Value take = arith::CmpIOp::create(b, l, p, j, i);
          Value zero = scalarConstant(b, l, et, 0);
          Value x = arith::SelectOp::create(b, l, take, args[0], zero);
          Value sum = isFloat ? Value(arith::AddFOp::create(b, l, args[1], x))
                              : Value(arith::AddIOp::create(b, l, args[1], x));
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

template <typename OpTy, bool IsLog>
struct SoftmaxPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    int64_t rank = type.getRank(), axis = op.getAxis();
    Value x = adaptor.getInput();
    auto [max, sum] = softmaxStatistics(rewriter, loc, x, axis, acc);
    AffineMap kept = keptMap(ctx, rank, {axis});
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, loc, type.getShape(), et);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{x, max, sum}, init,
        SmallVector<AffineMap>{id, kept, kept, id}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value d = arith::SubFOp::create(b, l, extendTo(b, l, args[0], acc),
                                          args[1]);
          Value r = IsLog ? Value(arith::SubFOp::create(
                                b, l, d, math::LogOp::create(b, l, args[2])))
                          : Value(arith::DivFOp::create(
                                b, l, math::ExpOp::create(b, l, d), args[2]));
          if (acc != et)
            r = arith::TruncFOp::create(b, l, et, r);
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct LayerNormPattern : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    int64_t rank = type.getRank(), axis = op.getAxis();
    SmallVector<int64_t> axes;
    for (int64_t d = axis; d < rank; ++d)
      axes.push_back(d);
    Value x = adaptor.getInput();
    auto [mean, var] = meanAndVariance(rewriter, loc, x, axes, acc);
    auto statType = cast<RankedTensorType>(mean.getType());
    AffineMap kept = keptMap(ctx, rank, axes);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    double eps = op.getEpsilon().convertToDouble();
    Value rstd = buildElementwise(
        rewriter, loc, statType, var,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value ve = arith::AddFOp::create(b, l, args[0],
                                           scalarConstant(b, l, acc, eps));
          return arith::DivFOp::create(b, l, scalarConstant(b, l, acc, 1.0),
                                       math::SqrtOp::create(b, l, ve));
        });
    auto shapeOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    Value init = emptyTensor(rewriter, loc, type.getShape(), et);
    auto y = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{x, mean, rstd, adaptor.getScale(), adaptor.getBias()}, init,
        SmallVector<AffineMap>{
            id, kept, kept,
            broadcastMap(ctx, shapeOf(adaptor.getScale()), type.getShape()),
            broadcastMap(ctx, shapeOf(adaptor.getBias()), type.getShape()), id},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value d = arith::SubFOp::create(b, l, extendTo(b, l, args[0], acc),
                                          args[1]);
          Value n = arith::MulFOp::create(b, l, d, args[2]);
          Value r = arith::AddFOp::create(
              b, l,
              arith::MulFOp::create(b, l, n, extendTo(b, l, args[3], acc)),
              extendTo(b, l, args[4], acc));
          if (acc != et)
            r = arith::TruncFOp::create(b, l, et, r);
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, y.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dist::populateReductionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<ReducePattern<ReduceSumOp, ReduceKind::Sum>,
           ReducePattern<ReduceMeanOp, ReduceKind::Mean>,
           ReducePattern<ReduceMaxOp, ReduceKind::Max>,
           ReducePattern<ReduceMinOp, ReduceKind::Min>,
           ReducePattern<ReduceProdOp, ReduceKind::Prod>,
           ArgReducePattern<ArgMaxOp, true>, ArgReducePattern<ArgMinOp, false>,
           CumSumPattern, SoftmaxPattern<SoftmaxOp, false>,
           SoftmaxPattern<LogSoftmaxOp, true>, LayerNormPattern>(converter,
                                                                 ctx);
}
