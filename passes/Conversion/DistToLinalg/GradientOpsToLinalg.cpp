//===- GradientOpsToLinalg.cpp - The ops autodiff introduces --------------===//
//
// insert_slice becomes tensor.insert_slice (a reversed slice first flips the
// source with a linalg.generic). scatter_add and the pooling gradients
// write to data-dependent or overlapping places, which linalg's parallel
// iterators cannot express: they become scf.for nests that update the result
// tensor element by element (bufferized in place).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// for (iv = lb; iv < ub; ++iv) with one tensor carried through.
Value forLoop(OpBuilder &b, Location loc, Value lb, Value ub, Value init,
              function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, indexConstant(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, l, body(nb, l, iv, args[0]));
      });
  return loop.getResult(0);
}

Value forLoop(OpBuilder &b, Location loc, int64_t ub, Value init,
              function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  return forLoop(b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, ub),
                 init, body);
}

/// acc[coords] += value.
Value addAt(OpBuilder &b, Location loc, Value acc, ValueRange coords,
            Value value) {
  Value old = tensor::ExtractOp::create(b, loc, acc, coords);
  Value sum = arith::AddFOp::create(b, loc, old, value);
  return tensor::InsertOp::create(b, loc, sum, acc, coords);
}

struct InsertSlicePattern : OpConversionPattern<InsertSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InsertSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = adaptor.getSource();
    auto type = cast<RankedTensorType>(source.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> offsets(op.getStarts()), strides(op.getStrides());
    // A negative stride writes the source reversed along that dimension:
    // flip the source, then write it forwards from the last position.
    SmallVector<AffineExpr> exprs;
    bool flip = false;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = rewriter.getAffineDimExpr(d);
      if (strides[d] < 0) {
        flip = true;
        int64_t n = type.getDimSize(d);
        offsets[d] += (n - 1) * strides[d];
        strides[d] = -strides[d];
        e = rewriter.getAffineConstantExpr(n - 1) - e;
      }
      exprs.push_back(e);
    }
    if (flip) {
      AffineMap in = AffineMap::get(rank, 0, exprs, rewriter.getContext());
      Value init =
          emptyTensor(rewriter, loc, type.getShape(), type.getElementType());
      source =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{type}, source, init,
              ArrayRef<AffineMap>{in, rewriter.getMultiDimIdentityMap(rank)},
              SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(b, l, args[0]);
              })
              .getResult(0);
    }
    SmallVector<int64_t> sizes(type.getShape());
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, source, adaptor.getDest(), ArrayRef<Value>(), ArrayRef<Value>(),
        ArrayRef<Value>(), offsets, sizes, strides);
    return success();
  }
};

struct ScatterAddPattern : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto destType = cast<RankedTensorType>(op.getDest().getType());
    ArrayRef<int64_t> shape = destType.getShape();
    int64_t axis = op.getAxis(), size = shape[axis];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < destType.getRank(); ++d)
      inner *= shape[d];
    int64_t positions = op.getIndices().getType().getNumElements();
    // dest as [outer, size, inner], updates as [outer, positions, inner].
    Value dest =
        reshapeTo(rewriter, loc, adaptor.getDest(), {outer, size, inner});
    Value updates = reshapeTo(rewriter, loc, adaptor.getUpdates(),
                              {outer, positions, inner});
    Value indices = reshapeTo(rewriter, loc, adaptor.getIndices(), {positions});
    Value result = forLoop(
        rewriter, loc, outer, dest,
        [&](OpBuilder &b, Location l, Value o, Value acc) {
          return forLoop(
              b, l, positions, acc,
              [&](OpBuilder &b, Location l, Value p, Value acc) {
                Value raw =
                    tensor::ExtractOp::create(b, l, indices, ValueRange{p});
                Value idx = checkedIndex(b, l, raw, size, "scatter_add");
                return forLoop(
                    b, l, inner, acc,
                    [&](OpBuilder &b, Location l, Value i, Value acc) {
                      Value u = tensor::ExtractOp::create(b, l, updates,
                                                          ValueRange{o, p, i});
                      return addAt(b, l, acc, {o, idx, i}, u);
                    });
              });
        });
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, result, shape));
    return success();
  }
};

/// The clipped window [start, end) of output position `o` along a spatial
/// dimension: o * stride - padBefore + [0, kernel), within [0, size).
std::pair<Value, Value> windowBounds(OpBuilder &b, Location loc, Value o,
                                     int64_t stride, int64_t padBefore,
                                     int64_t kernel, int64_t size) {
  Value start = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, indexConstant(b, loc, stride)),
      indexConstant(b, loc, padBefore));
  Value end =
      arith::AddIOp::create(b, loc, start, indexConstant(b, loc, kernel));
  return {arith::MaxSIOp::create(b, loc, start, indexConstant(b, loc, 0)),
          arith::MinSIOp::create(b, loc, end, indexConstant(b, loc, size))};
}

/// Loops over every (n, c, oh, ow) of `gradOutput`, calling `body` with the
/// accumulated result and the output position.
template <typename OpT>
Value forEachOutput(OpBuilder &b, Location loc, OpT op, Value gradOutput,
                    Value init,
                    function_ref<Value(OpBuilder &, Location, Value acc,
                                       ArrayRef<Value> position)>
                        body) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(gradOutput.getType()).getShape();
  return forLoop(
      b, loc, shape[0], init,
      [&](OpBuilder &b, Location l, Value n, Value acc) {
        return forLoop(
            b, l, shape[1], acc,
            [&](OpBuilder &b, Location l, Value c, Value acc) {
              return forLoop(
                  b, l, shape[2], acc,
                  [&](OpBuilder &b, Location l, Value oh, Value acc) {
                    return forLoop(
                        b, l, shape[3], acc,
                        [&](OpBuilder &b, Location l, Value ow, Value acc) {
                          Value position[] = {n, c, oh, ow};
                          return body(b, l, acc, position);
                        });
                  });
            });
      });
}

struct MaxPoolGradPattern : OpConversionPattern<MaxPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Value x = adaptor.getInput(), dy = adaptor.getGradOutput();
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      pads = op.getPads();
    Value zeros = filledTensor(rewriter, loc, type.getShape(),
                               scalarConstant(rewriter, loc, et, 0.0));
    Value result = forEachOutput(
        rewriter, loc, op, dy, zeros,
        [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> pos) {
          auto [h0, h1] = windowBounds(b, l, pos[2], strides[0], pads[0],
                                       kernel[0], type.getDimSize(2));
          auto [w0, w1] = windowBounds(b, l, pos[3], strides[1], pads[1],
                                       kernel[1], type.getDimSize(3));
          // The first maximum in row-major window order (strictly greater
          // replaces), as PyTorch.
          Value best = extremeConstant(b, l, et, /*positive=*/false,
                                       /*isUnsigned=*/false);
          auto rows = scf::ForOp::create(
              b, l, h0, h1, indexConstant(b, l, 1), ValueRange{best, h0, w0},
              [&](OpBuilder &b, Location l, Value h, ValueRange outer) {
                auto cols = scf::ForOp::create(
                    b, l, w0, w1, indexConstant(b, l, 1), outer,
                    [&](OpBuilder &b, Location l, Value w, ValueRange in) {
                      Value v = tensor::ExtractOp::create(
                          b, l, x, ValueRange{pos[0], pos[1], h, w});
                      Value better = arith::CmpFOp::create(
                          b, l, arith::CmpFPredicate::OGT, v, in[0]);
                      scf::YieldOp::create(
                          b, l,
                          ValueRange{
                              arith::SelectOp::create(b, l, better, v, in[0]),
                              arith::SelectOp::create(b, l, better, h, in[1]),
                              arith::SelectOp::create(b, l, better, w, in[2])});
                    });
                scf::YieldOp::create(b, l, cols.getResults());
              });
          Value g = tensor::ExtractOp::create(b, l, dy, pos);
          return addAt(b, l, acc,
                       {pos[0], pos[1], rows.getResult(1), rows.getResult(2)},
                       g);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AvgPoolGradPattern : OpConversionPattern<AvgPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Value dy = adaptor.getGradOutput();
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      pads = op.getPads();
    Value zeros = filledTensor(rewriter, loc, type.getShape(),
                               scalarConstant(rewriter, loc, et, 0.0));
    // Each output's gradient times 1 / its window's count, the forward's
    // divisor (the same table), goes to every element of its window.
    Type accType = computesInF32(et) ? rewriter.getF32Type() : et;
    Value reciprocals = avgPoolReciprocalCounts(
        rewriter, loc, type.getShape(),
        cast<RankedTensorType>(dy.getType()).getShape(), kernel, strides, pads,
        op.getCountIncludePad(), accType);
    Value result = forEachOutput(
        rewriter, loc, op, dy, zeros,
        [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> pos) {
          Value g =
              extendTo(b, l, tensor::ExtractOp::create(b, l, dy, pos), accType);
          Value r = tensor::ExtractOp::create(b, l, reciprocals,
                                              ValueRange{pos[2], pos[3]});
          Value share = arith::MulFOp::create(b, l, g, r);
          if (accType != et)
            share = arith::TruncFOp::create(b, l, et, share);
          auto [h0, h1] = windowBounds(b, l, pos[2], strides[0], pads[0],
                                       kernel[0], type.getDimSize(2));
          auto [w0, w1] = windowBounds(b, l, pos[3], strides[1], pads[1],
                                       kernel[1], type.getDimSize(3));
          return forLoop(
              b, l, h0, h1, acc,
              [&](OpBuilder &b, Location l, Value h, Value acc) {
                return forLoop(
                    b, l, w0, w1, acc,
                    [&](OpBuilder &b, Location l, Value w, Value acc) {
                      return addAt(b, l, acc, {pos[0], pos[1], h, w}, share);
                    });
              });
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dist::populateGradientOpsToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<InsertSlicePattern, ScatterAddPattern, MaxPoolGradPattern,
               AvgPoolGradPattern>(converter, patterns.getContext());
}
