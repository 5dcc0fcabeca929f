//===- ReductionGradients.cpp - Gradients of reductions and norms ---------===//
//
// A reduction's gradient broadcasts the result's gradient back over the
// reduced dimensions. Normalizations (softmax, layer norm) use the standard
// closed forms, recomputing the statistics from the input rather than
// keeping them from the forward pass.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Gradients/Gradients.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

using P = ComparePredicate;

/// `gradient` (shaped like a reduction's result) reshaped to keep the
/// reduced dimensions as 1, then broadcast to `shape`.
Value unreduce(DistBuilder &g, Value gradient, ArrayRef<int64_t> shape,
               ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept(shape);
  for (int64_t axis : axes)
    kept[axis] = 1;
  return g.broadcastTo(g.reshape(gradient, kept), shape);
}

int64_t countOf(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t axis : axes)
    n *= shape[axis];
  return n;
}

template <typename OpT> struct SumGradient {
  static LogicalResult build(OpT op, DistBuilder &g, GradientRequest &r) {
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    Value dx = unreduce(g, r.dy(), shape, op.getAxes());
    if (std::is_same_v<OpT, ReduceMeanOp>)
      dx = g.mul(dx, 1.0 / static_cast<double>(countOf(shape, op.getAxes())));
    r.set(0, dx);
    return success();
  }
};

/// max/min: the gradient is shared evenly by the elements equal to the
/// extremum (as PyTorch's amax/amin).
template <typename OpT> struct ExtremumReduceGradient {
  static LogicalResult build(OpT op, DistBuilder &g, GradientRequest &r) {
    Value x = op.getInput();
    ArrayRef<int64_t> shape = shapeOf(x);
    Value hit =
        g.compare(P::eq, x, unreduce(g, op.getResult(), shape, op.getAxes()));
    Value hitF = g.cast(hit, elementTypeOf(x));
    Value count = g.reduceSum(hitF, op.getAxes(), /*keepDims=*/true);
    Value share = g.div(unreduce(g, r.dy(), shape, op.getAxes()),
                        g.broadcastTo(count, shape));
    r.set(0, g.mul(share, hitF));
    return success();
  }
};

struct ProdGradient {
  static LogicalResult build(ReduceProdOp op, DistBuilder &g,
                             GradientRequest &r) {
    // prod / x: exact away from zeros (a zero input gives inf or nan, which
    // docs/training.md states).
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    Value dyProd = g.mul(r.dy(), op.getResult());
    r.set(0, g.div(unreduce(g, dyProd, shape, op.getAxes()), op.getInput()));
    return success();
  }
};

struct CumSumGradient {
  static LogicalResult build(CumSumOp op, DistBuilder &g, GradientRequest &r) {
    // Each input element feeds the sums after it (before it, reversed).
    r.set(0, CumSumOp::create(g.getBuilder(), g.getLoc(), r.dy(), op.getAxis(),
                              op.getExclusive(), !op.getReverse()));
    return success();
  }
};

struct SoftmaxGradient {
  static LogicalResult build(SoftmaxOp op, DistBuilder &g, GradientRequest &r) {
    // dx = y * (dy - sum(dy * y)).
    Value y = op.getResult(), dy = r.dy();
    int64_t axis = op.getAxis();
    Value dot = g.reduceSum(g.mul(dy, y), {axis}, /*keepDims=*/true);
    r.set(0, g.mul(y, g.sub(dy, dot)));
    return success();
  }
};

struct LogSoftmaxGradient {
  static LogicalResult build(LogSoftmaxOp op, DistBuilder &g,
                             GradientRequest &r) {
    // dx = dy - softmax(x) * sum(dy).
    Value dy = r.dy();
    int64_t axis = op.getAxis();
    Value p = ExpOp::create(g.getBuilder(), g.getLoc(), op.getResult());
    r.set(0, g.sub(dy, g.mul(p, g.reduceSum(dy, {axis}, /*keepDims=*/true))));
    return success();
  }
};

} // namespace

/// The normalized input and 1/std of a normalization of `x` over `axes`.
std::pair<Value, Value> mlir::dist::detail::normalize(DistBuilder &g, Value x,
                                                      ArrayRef<int64_t> axes,
                                                      double epsilon) {
  Value mean = g.reduceMean(x, axes, /*keepDims=*/true);
  Value centered = g.sub(x, mean);
  Value var = g.reduceMean(g.mul(centered, centered), axes, /*keepDims=*/true);
  Value rstd = RsqrtOp::create(g.getBuilder(), g.getLoc(),
                               g.add(var, g.scalarLike(epsilon, var)));
  return {g.mul(centered, rstd), rstd};
}

Value mlir::dist::detail::normalizeBackward(DistBuilder &g, Value dxhat,
                                            Value xhat, Value rstd,
                                            ArrayRef<int64_t> axes) {
  // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)).
  Value m1 = g.reduceMean(dxhat, axes, /*keepDims=*/true);
  Value m2 = g.reduceMean(g.mul(dxhat, xhat), axes, /*keepDims=*/true);
  return g.mul(rstd, g.sub(g.sub(dxhat, m1), g.mul(xhat, m2)));
}

namespace {

struct LayerNormGradient {
  static LogicalResult build(LayerNormOp op, DistBuilder &g,
                             GradientRequest &r) {
    Value x = op.getInput(), dy = r.dy();
    int64_t rank = shapeOf(x).size(), axis = op.getAxis();
    SmallVector<int64_t> normAxes, batchAxes;
    for (int64_t d = 0; d < rank; ++d)
      (d >= axis ? normAxes : batchAxes).push_back(d);
    auto [xhat, rstd] =
        normalize(g, x, normAxes, op.getEpsilon().convertToDouble());
    if (r.wants(0))
      r.set(0, normalizeBackward(g, g.mul(dy, op.getScale()), xhat, rstd,
                                 normAxes));
    if (r.wants(1))
      r.set(1, g.sumToShape(g.mul(dy, xhat), op.getScale().getType()));
    if (r.wants(2))
      r.set(2, g.sumToShape(dy, op.getBias().getType()));
    return success();
  }
};

} // namespace

void mlir::dist::detail::attachReductionGradients(MLIRContext *ctx) {
  attachGradient<ReduceSumOp, SumGradient<ReduceSumOp>>(ctx);
  attachGradient<ReduceMeanOp, SumGradient<ReduceMeanOp>>(ctx);
  attachGradient<ReduceMaxOp, ExtremumReduceGradient<ReduceMaxOp>>(ctx);
  attachGradient<ReduceMinOp, ExtremumReduceGradient<ReduceMinOp>>(ctx);
  attachGradient<ReduceProdOp, ProdGradient>(ctx);
  attachGradient<CumSumOp, CumSumGradient>(ctx);
  attachGradient<SoftmaxOp, SoftmaxGradient>(ctx);
  attachGradient<LogSoftmaxOp, LogSoftmaxGradient>(ctx);
  attachGradient<LayerNormOp, LayerNormGradient>(ctx);
}
