//===- ConvGradients.cpp - Gradients of convolution, pooling, batch norm --===//
//
// The gradients of a convolution are convolutions themselves:
// - weight: correlate the input with the output gradient, the batch playing
//   the role of the channels (stride and dilation trade places);
// - input: the transposed convolution of the output gradient
//   (TransposedConv.h).
// A grouped convolution's gradients are grouped convolutions too, with the
// operands regrouped (swapGrouped). Pooling gradients are their own
// ops (dist.max_pool2d_grad, dist.avg_pool2d_grad).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Gradients/Gradients.h"
#include "dialects/Dist/IR/TransposedConv.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

struct ConvAttrs {
  ArrayRef<int64_t> strides, pads, dilations;
  int64_t groups;
};

Value conv(DistBuilder &g, Value input, Value weight, ArrayRef<int64_t> strides,
           ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
           int64_t groups) {
  return Conv2DOp::create(g.getBuilder(), g.getLoc(), input, weight, Value(),
                          strides, pads, dilations, groups);
}

/// d loss / d weight: [G*F, C, KH, KW]. One grouped convolution: for
/// group i, R[c, i*F + f, kh, kw] = sum_{n, oh, ow} x[n, i*C + c, kh*d +
/// oh*s, ...] dy[n, i*F + f, oh, ow], the batch playing the channels
/// (the input regrouped to [C, G*N, H, W], dy transposed to [G*F, N, OH,
/// OW]) and stride and dilation trading places.
Value weightGradient(DistBuilder &g, Value x, Value dy,
                     ArrayRef<int64_t> weightShape, const ConvAttrs &a) {
  Value r =
      conv(g, swapGrouped(g, x, a.groups), g.transpose(dy, {1, 0, 2, 3}),
           /*strides=*/a.dilations, a.pads, /*dilations=*/a.strides, a.groups);
  int64_t f = weightShape[0], c = weightShape[1];
  Value cropped = g.slice(r, {0, 0, 0, 0}, {1, 1, 1, 1},
                          {c, f, weightShape[2], weightShape[3]});
  return g.transpose(cropped, {1, 0, 2, 3});
}

struct Conv2DGradient {
  static LogicalResult build(Conv2DOp op, DistBuilder &g, GradientRequest &r) {
    Value x = op.getInput(), w = op.getWeight(), dy = r.dy();
    ConvAttrs a{op.getStrides(), op.getPads(), op.getDilations(),
                static_cast<int64_t>(op.getGroups())};
    if (r.wants(0))
      r.set(0, buildTransposedConv2D(g, dy, w, shapeOf(x), a.strides, a.pads,
                                     a.dilations, a.groups));
    if (r.wants(1))
      r.set(1, weightGradient(g, x, dy, shapeOf(w), a));
    if (op.getBias() && r.wants(2))
      r.set(2, g.reduceSum(dy, {0, 2, 3}, /*keepDims=*/false));
    return success();
  }
};

struct MaxPoolGradient {
  static LogicalResult build(MaxPool2DOp op, DistBuilder &g,
                             GradientRequest &r) {
    r.set(0, MaxPool2DGradOp::create(g.getBuilder(), g.getLoc(),
                                     op.getInput().getType(), op.getInput(),
                                     r.dy(), op.getKernel(), op.getStrides(),
                                     op.getPads(), op.getCeilMode()));
    return success();
  }
};

struct AvgPoolGradient {
  static LogicalResult build(AvgPool2DOp op, DistBuilder &g,
                             GradientRequest &r) {
    r.set(0, AvgPool2DGradOp::create(
                 g.getBuilder(), g.getLoc(), op.getInput().getType(),
                 op.getInput(), r.dy(), op.getKernel(), op.getStrides(),
                 op.getPads(), op.getCeilMode(), op.getCountIncludePad()));
    return success();
  }
};

struct GlobalAvgPoolGradient {
  static LogicalResult build(GlobalAvgPoolOp op, DistBuilder &g,
                             GradientRequest &r) {
    ArrayRef<int64_t> shape = shapeOf(op.getInput());
    int64_t count = 1;
    for (int64_t d : shape.drop_front(2))
      count *= d;
    r.set(0, g.mul(g.broadcastTo(r.dy(), shape), 1.0 / count));
    return success();
  }
};

struct BatchNormGradient {
  static LogicalResult build(BatchNormOp op, DistBuilder &g,
                             GradientRequest &r) {
    if (r.wants(3) || r.wants(4))
      return op.emitOpError("has no gradient with respect to its running "
                            "mean and variance; make them frozen parameters");
    Value x = op.getInput(), dy = r.dy();
    ArrayRef<int64_t> shape = shapeOf(x);
    SmallVector<int64_t> axes = {0}, channel(shape.size(), 1);
    for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d)
      axes.push_back(d);
    channel[1] = shape[1];
    Value scale = g.reshape(op.getScale(), channel);
    double epsilon = op.getEpsilon().convertToDouble();
    Value xhat, rstd;
    if (op.getTraining()) {
      std::tie(xhat, rstd) = normalize(g, x, axes, epsilon);
      if (r.wants(0))
        r.set(0, normalizeBackward(g, g.mul(dy, scale), xhat, rstd, axes));
    } else {
      Value var = g.reshape(op.getVariance(), channel);
      rstd = RsqrtOp::create(g.getBuilder(), g.getLoc(),
                             g.add(var, g.scalarLike(epsilon, var)));
      xhat = g.mul(g.sub(x, g.reshape(op.getMean(), channel)), rstd);
      if (r.wants(0))
        r.set(0, g.mul(dy, g.mul(scale, rstd)));
    }
    if (r.wants(1))
      r.set(1, g.reduceSum(g.mul(dy, xhat), axes, /*keepDims=*/false));
    if (r.wants(2))
      r.set(2, g.reduceSum(dy, axes, /*keepDims=*/false));
    return success();
  }
};

} // namespace

void mlir::dist::detail::attachConvGradients(MLIRContext *ctx) {
  attachGradient<Conv2DOp, Conv2DGradient>(ctx);
  attachGradient<MaxPool2DOp, MaxPoolGradient>(ctx);
  attachGradient<AvgPool2DOp, AvgPoolGradient>(ctx);
  attachGradient<GlobalAvgPoolOp, GlobalAvgPoolGradient>(ctx);
  attachGradient<BatchNormOp, BatchNormGradient>(ctx);
}
