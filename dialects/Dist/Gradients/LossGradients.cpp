//===- LossGradients.cpp - Gradients of the classification losses ---------===//
//
// cross_entropy: dx = (softmax(x) - onehot(labels)) * w / denominator;
// nll_loss: dx = -onehot(labels) * w / denominator; w is the class weight of
// each position (0 where the label is ignore_index), the denominator the sum
// of w for `mean` and 1 otherwise. Classes are on dimension 1.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Gradients/Gradients.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

using P = ComparePredicate;

/// The loss's gradient with respect to each position's (log-)probability of
/// its label: `dy` spread over positions and weighted, shaped
/// `N x 1 x d1 x ...` (or rank 0), and the one-hot mask of the labels.
template <typename OpT>
std::pair<Value, Value> labelGradient(OpT op, DistBuilder &g, Value dy) {
  Value x = op.getInput(), labels = op.getLabels();
  ArrayRef<int64_t> shape = shapeOf(x);
  Type labelType = elementTypeOf(labels), floatType = elementTypeOf(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> columnShape(shape);
  columnShape[1] = 1;

  Value valid;
  if (std::optional<int64_t> ignore = op.getIgnoreIndex())
    valid = g.compare(P::ne, labels, g.scalar(*ignore, labelType));
  Value weight; // per position, shaped like labels; null: 1 everywhere
  if (Value classWeights = op.getWeight()) {
    Value safe =
        valid ? g.select(valid, labels, g.scalar(0, labelType)) : labels;
    weight = GatherOp::create(g.getBuilder(), g.getLoc(), classWeights, safe,
                              /*axis=*/0);
    if (valid)
      weight = g.select(valid, weight, g.scalar(0, floatType));
  } else if (valid) {
    weight = g.cast(valid, floatType);
  }

  Value factor = dy;
  if (op.getReduction() == LossReduction::mean) {
    Value denominator =
        weight ? g.reduceSum(weight,
                             llvm::to_vector(
                                 llvm::seq<int64_t>(0, shapeOf(weight).size())),
                             /*keepDims=*/false)
               : g.scalar(static_cast<double>(
                              ShapedType::getNumElements(shapeOf(labels))),
                          floatType);
    factor = g.div(dy, denominator);
  }
  if (weight)
    factor = g.mul(factor, weight);
  if (!shapeOf(factor).empty())
    factor = g.reshape(factor, columnShape);

  Value onehot = g.compare(P::eq, g.reshape(labels, columnShape),
                           g.iota(shape[1], labelType, rank, 1));
  return {factor, g.cast(onehot, floatType)};
}

template <typename OpT>
LogicalResult rejectWeightGradient(OpT op, GradientRequest &r) {
  if (op.getWeight() && r.wants(2))
    return op.emitOpError("has no gradient with respect to its class "
                          "weights; make them a constant or a frozen "
                          "parameter");
  return success();
}

struct CrossEntropyGradient {
  static LogicalResult build(CrossEntropyOp op, DistBuilder &g,
                             GradientRequest &r) {
    if (failed(rejectWeightGradient(op, r)))
      return failure();
    auto [factor, onehot] = labelGradient(op, g, r.dy());
    Value p = SoftmaxOp::create(g.getBuilder(), g.getLoc(), op.getInput(),
                                /*axis=*/1);
    r.set(0, g.mul(g.sub(p, onehot), factor));
    return success();
  }
};

struct NllLossGradient {
  static LogicalResult build(NllLossOp op, DistBuilder &g, GradientRequest &r) {
    if (failed(rejectWeightGradient(op, r)))
      return failure();
    auto [factor, onehot] = labelGradient(op, g, r.dy());
    r.set(0,
          g.broadcastTo(g.neg(g.mul(onehot, factor)), shapeOf(op.getInput())));
    return success();
  }
};

} // namespace

void mlir::dist::detail::attachLossGradients(MLIRContext *ctx) {
  attachGradient<CrossEntropyOp, CrossEntropyGradient>(ctx);
  attachGradient<NllLossOp, NllLossGradient>(ctx);
}
