//===- ConvToLinalg.cpp - Convolution, pooling, batch norm to linalg ------===//
//
// conv2d pads its input (tensor.pad) and becomes one linalg.generic over
// (n, group, filter, oh, ow, c, kh, kw) on the group-split views of input,
// weight and output, accumulating onto the bias. Pooling is a generic over
// (n, c, oh, ow, kh, kw) with a kernel-shaped operand that only gives the
// window its extent; average pooling multiplies by a constant [OH, OW] table
// of reciprocal window sizes, computed here with the exact ONNX/PyTorch rule
// (ceil_mode windows clipped, pads counted only with count_include_pad).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"
#include "passes/Conversion/DistToLinalg/Statistics.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Pads the spatial dims of an N x C x H x W tensor with `value`.
static Value padSpatial(OpBuilder &b, Location loc, Value x,
                        ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                        Value value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lo(4, b.getIndexAttr(0)), hi(4, b.getIndexAttr(0));
  for (int d = 0; d < 2; ++d) {
    shape[2 + d] += low[d] + high[d];
    lo[2 + d] = b.getIndexAttr(low[d]);
    hi[2 + d] = b.getIndexAttr(high[d]);
  }
  return tensor::PadOp::create(b, loc, type.clone(shape), x, lo, hi, value);
}

struct Conv2DPattern : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    ArrayRef<int64_t> pads = op.getPads(), strides = op.getStrides(),
                      dilations = op.getDilations();
    int64_t groups = op.getGroups();
    Value x =
        padSpatial(rewriter, loc, adaptor.getInput(), pads.take_front(2),
                   pads.drop_front(2), scalarConstant(rewriter, loc, et, 0.0));
    auto xt = cast<RankedTensorType>(x.getType());
    auto wt = cast<RankedTensorType>(adaptor.getWeight().getType());
    int64_t n = xt.getDimSize(0), c = xt.getDimSize(1) / groups;
    int64_t f = wt.getDimSize(0) / groups;
    int64_t oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
    Value xg = reshapeTo(rewriter, loc, x,
                         {n, groups, c, xt.getDimSize(2), xt.getDimSize(3)});
    Value wg = reshapeTo(rewriter, loc, adaptor.getWeight(),
                         {groups, f, c, wt.getDimSize(2), wt.getDimSize(3)});
    SmallVector<int64_t> outShape = {n, groups, f, oh, ow};
    Value init;
    if (Value bias = adaptor.getBias()) {
      Value bg = reshapeTo(rewriter, loc, bias, {groups, f});
      AffineMap biasMap = AffineMap::get(
          5, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
      Value empty = emptyTensor(rewriter, loc, outShape, acc);
      init = linalg::GenericOp::create(
                 rewriter, loc, TypeRange{empty.getType()}, bg, empty,
                 SmallVector<AffineMap>{biasMap,
                                        rewriter.getMultiDimIdentityMap(5)},
                 SmallVector<utils::IteratorType>(
                     5, utils::IteratorType::parallel),
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, extendTo(b, l, args[0], acc));
                 })
                 .getResult(0);
    } else {
      init = filledTensor(rewriter, loc, outShape,
                          scalarConstant(rewriter, loc, acc, 0.0));
    }
    // Iteration space: n g f oh ow | c kh kw.
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineMap inMap = AffineMap::get(8, 0,
                                     {d(0), d(1), d(5),
                                      d(3) * strides[0] + d(6) * dilations[0],
                                      d(4) * strides[1] + d(7) * dilations[1]},
                                     ctx);
    AffineMap wMap = AffineMap::get(8, 0, {d(1), d(2), d(5), d(6), d(7)}, ctx);
    AffineMap outMap =
        AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx);
    SmallVector<utils::IteratorType> iterators(5,
                                               utils::IteratorType::parallel);
    iterators.append(3, utils::IteratorType::reduction);
    auto conv = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{xg, wg}, init,
        SmallVector<AffineMap>{inMap, wMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value p = arith::MulFOp::create(b, l, extendTo(b, l, args[0], acc),
                                          extendTo(b, l, args[1], acc));
          linalg::YieldOp::create(b, l, accumulateF(b, l, p, args[2]));
        });
    Value r =
        reshapeTo(rewriter, loc, conv.getResult(0), {n, groups * f, oh, ow});
    rewriter.replaceOp(op, truncateTo(rewriter, loc, r, et));
    return success();
  }
};

/// Pooling over kernel windows: `combine` folds each window element into the
/// accumulator starting from `init`; padded positions read `padValue`.
static Value pool(OpBuilder &b, Location loc, Value x,
                  RankedTensorType resultType, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                  Value padValue, Value init, CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  // ceil_mode windows may run past the end padding: pad further so every
  // window reads inside the tensor (the extra cells never count).
  SmallVector<int64_t> low(pads.take_front(2)), high(pads.drop_front(2));
  for (int d = 0; d < 2; ++d) {
    int64_t needed =
        (resultType.getDimSize(2 + d) - 1) * strides[d] + kernel[d];
    int64_t have = xt.getDimSize(2 + d) + low[d] + high[d];
    high[d] += std::max<int64_t>(0, needed - have);
  }
  Value padded = padSpatial(b, loc, x, low, high, padValue);
  Value window = emptyTensor(b, loc, kernel, padValue.getType());
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap inMap = AffineMap::get(
      6, 0, {d(0), d(1), d(2) * strides[0] + d(4), d(3) * strides[1] + d(5)},
      ctx);
  AffineMap windowMap = AffineMap::get(6, 0, {d(4), d(5)}, ctx);
  AffineMap outMap = AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx);
  Value acc = filledTensor(b, loc, resultType.getShape(), init);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ValueRange{padded, window}, acc,
             SmallVector<AffineMap>{inMap, windowMap, outMap}, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, combine(nb, l, args[0], args[2]));
             })
      .getResult(0);
}

struct MaxPoolPattern : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Value lowest = extremeConstant(rewriter, loc, et, false, false);
    Value r = pool(rewriter, loc, adaptor.getInput(), type, op.getKernel(),
                   op.getStrides(), op.getPads(), lowest, lowest,
                   [](OpBuilder &b, Location l, Value v, Value a) -> Value {
                     return arith::MaximumFOp::create(b, l, v, a);
                   });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct AvgPoolPattern : OpConversionPattern<AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type et = type.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      pads = op.getPads();
    Value zero = scalarConstant(rewriter, loc, acc, 0.0);
    Value sum = pool(rewriter, loc, adaptor.getInput(), type.clone(acc), kernel,
                     strides, pads, scalarConstant(rewriter, loc, et, 0.0),
                     zero, [&](OpBuilder &b, Location l, Value v, Value a) {
                       return accumulateF(b, l, extendTo(b, l, v, acc), a);
                     });
    Value scale = avgPoolReciprocalCounts(rewriter, loc, inType.getShape(),
                                          type.getShape(), kernel, strides,
                                          pads, op.getCountIncludePad(), acc);
    Value r = buildElementwise(
        rewriter, loc, type, ValueRange{sum, scale},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value v = arith::MulFOp::create(b, l, args[0], args[1]);
          if (acc != et)
            v = arith::TruncFOp::create(b, l, et, v);
          return v;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct GlobalAvgPoolPattern : OpConversionPattern<GlobalAvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type et = type.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    SmallVector<int64_t> axes;
    int64_t count = 1;
    for (int64_t d = 2; d < inType.getRank(); ++d) {
      axes.push_back(d);
      count *= inType.getDimSize(d);
    }
    Value sum = buildReduction(
        rewriter, loc, adaptor.getInput(), axes,
        scalarConstant(rewriter, loc, acc, 0.0),
        [&](OpBuilder &b, Location l, Value v, Value a) -> Value {
          return accumulateF(b, l, extendTo(b, l, v, acc), a);
        });
    auto st = cast<RankedTensorType>(sum.getType());
    Value mean = buildElementwise(
        rewriter, loc, st.clone(et), sum,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value v = arith::DivFOp::create(b, l, args[0],
                                          scalarConstant(b, l, acc, count));
          if (acc != et)
            v = arith::TruncFOp::create(b, l, et, v);
          return v;
        });
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, mean, type.getShape()));
    return success();
  }
};

struct BatchNormPattern : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    int64_t rank = type.getRank();
    Value x = adaptor.getInput();
    Value mean = adaptor.getMean(), var = adaptor.getVariance();
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    if (op.getTraining()) {
      // The batch's own statistics: mean and biased variance over all
      // dimensions but the channel.
      SmallVector<int64_t> axes;
      for (int64_t d = 0; d < rank; ++d)
        if (d != 1)
          axes.push_back(d);
      std::tie(mean, var) = meanAndVariance(rewriter, loc, x, axes, acc);
    }
    double eps = op.getEpsilon().convertToDouble();
    Value init = emptyTensor(rewriter, loc, type.getShape(), et);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto y = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{x, adaptor.getScale(), adaptor.getBias(), mean, var}, init,
        SmallVector<AffineMap>{id, channel, channel, channel, channel, id},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          auto e = [&](Value v) { return extendTo(b, l, v, acc); };
          Value dd = arith::SubFOp::create(b, l, e(args[0]), e(args[3]));
          Value ve = arith::AddFOp::create(b, l, e(args[4]),
                                           scalarConstant(b, l, acc, eps));
          Value nrm =
              arith::DivFOp::create(b, l, dd, math::SqrtOp::create(b, l, ve));
          Value r = arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, nrm, e(args[1])), e(args[2]));
          if (acc != et)
            r = arith::TruncFOp::create(b, l, et, r);
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, y.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dist::populateConvToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<Conv2DPattern, MaxPoolPattern, AvgPoolPattern,
               GlobalAvgPoolPattern, BatchNormPattern>(converter,
                                                       patterns.getContext());
}
