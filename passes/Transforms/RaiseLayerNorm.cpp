//===- RaiseLayerNorm.cpp - Decomposed layer norm to dist.layer_norm ------===//
//
// Matches (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps), optionally
// followed by `* gamma` and `+ beta`, where the means run over trailing
// dimensions: PyTorch's ONNX export of nn.LayerNorm.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/ConstantMatchers.h"
#include "passes/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

struct NormalizationCore {
  Value input;
  int64_t axis;
  double epsilon;
};

/// The first axis when `axes` are exactly the trailing dimensions of a
/// rank-`rank` tensor.
static std::optional<int64_t> trailingAxis(ArrayRef<int64_t> axes,
                                           int64_t rank) {
  if (axes.empty() || axes.back() != rank - 1)
    return std::nullopt;
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1)
      return std::nullopt;
  return axes.front();
}

/// The other operand of a commutative binary op whose one operand is `v`.
template <typename OpTy> static Value otherOperand(OpTy op, Value v) {
  if (op.getLhs() == v)
    return op.getRhs();
  if (op.getRhs() == v)
    return op.getLhs();
  return {};
}

/// Matches the normalization `div` computes, without the affine part.
static std::optional<NormalizationCore> matchCore(DivOp div) {
  auto centered = div.getLhs().getDefiningOp<SubOp>();
  auto stddev = div.getRhs().getDefiningOp<SqrtOp>();
  if (!centered || !stddev)
    return std::nullopt;
  Value x = centered.getLhs();
  auto type = cast<RankedTensorType>(x.getType());
  auto mean = centered.getRhs().getDefiningOp<ReduceMeanOp>();
  if (!mean || mean.getInput() != x || !mean.getKeepDims() ||
      centered.getType() != type || div.getType() != type)
    return std::nullopt;
  std::optional<int64_t> axis = trailingAxis(mean.getAxes(), type.getRank());
  if (!axis)
    return std::nullopt;
  auto plusEps = stddev.getInput().getDefiningOp<AddOp>();
  if (!plusEps)
    return std::nullopt;
  std::optional<double> epsilon = getSplatFloat(plusEps.getRhs());
  Value variance = plusEps.getLhs();
  if (!epsilon) {
    epsilon = getSplatFloat(plusEps.getLhs());
    variance = plusEps.getRhs();
  }
  auto varMean = variance.getDefiningOp<ReduceMeanOp>();
  if (!epsilon || *epsilon < 0.0 || !varMean || !varMean.getKeepDims() ||
      varMean.getAxes() != mean.getAxes())
    return std::nullopt;
  // The square: pow(d, 2) or d * d.
  Value squared = varMean.getInput();
  if (auto pow = squared.getDefiningOp<PowOp>()) {
    if (pow.getLhs() != centered.getResult() || !isSplatNear(pow.getRhs(), 2.0))
      return std::nullopt;
  } else if (auto mul = squared.getDefiningOp<MulOp>()) {
    if (mul.getLhs() != centered.getResult() ||
        mul.getRhs() != centered.getResult())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  return NormalizationCore{x, *axis, *epsilon};
}

struct RaiseLayerNorm : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DivOp div,
                                PatternRewriter &rewriter) const override {
    std::optional<NormalizationCore> core = matchCore(div);
    if (!core)
      return rewriter.notifyMatchFailure(div, "not a decomposed layer norm");
    auto type = cast<RankedTensorType>(core->input.getType());
    auto paramType = RankedTensorType::get(
        type.getShape().drop_front(core->axis), type.getElementType());
    // The affine part, when `* gamma + beta` follows with per-feature values.
    Operation *root = div;
    Value scale, bias;
    if (div->hasOneUse())
      if (auto mul = dyn_cast<MulOp>(*div->user_begin()))
        if (Value gamma = otherOperand(mul, div.getResult());
            gamma && gamma.getType() == paramType && mul.getType() == type) {
          scale = gamma;
          root = mul;
          if (mul->hasOneUse())
            if (auto add = dyn_cast<AddOp>(*mul->user_begin()))
              if (Value beta = otherOperand(add, mul.getResult());
                  beta && beta.getType() == paramType &&
                  add.getType() == type) {
                bias = beta;
                root = add;
              }
        }
    rewriter.setInsertionPoint(root);
    auto constant = [&](double v) -> Value {
      return ConstantOp::create(
          rewriter, root->getLoc(),
          DenseElementsAttr::get(
              paramType, rewriter.getFloatAttr(type.getElementType(), v)));
    };
    if (!scale)
      scale = constant(1.0);
    if (!bias)
      bias = constant(0.0);
    auto norm =
        LayerNormOp::create(rewriter, root->getLoc(), type, core->input, scale,
                            bias, core->axis, APFloat(core->epsilon));
    rewriter.replaceOp(root, norm.getResult());
    return success();
  }
};

} // namespace

void mlir::dist::populateRaiseLayerNormPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseLayerNorm>(patterns.getContext());
}
