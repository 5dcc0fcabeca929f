//===- RaiseGelu.cpp - Decomposed GELU to dist.gelu -----------------------===//
//
// Matches x * 0.5 * (1 + erf(x / sqrt(2))) and
// x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) in any order of
// the products: PyTorch's ONNX exports of nn.GELU() and GELU(approximate=
// 'tanh') / GPT-2's new_gelu.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/ConstantMatchers.h"
#include "passes/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The factors of a product tree of dist.mul, `depth` levels deep.
static void collectFactors(Value value, int depth,
                           SmallVectorImpl<Value> &out) {
  if (depth > 0)
    if (auto mul = value.getDefiningOp<MulOp>()) {
      collectFactors(mul.getLhs(), depth - 1, out);
      collectFactors(mul.getRhs(), depth - 1, out);
      return;
    }
  out.push_back(value);
}

/// Splits `factors` into the product of the float constants and the rest.
static double splitConstants(ArrayRef<Value> factors,
                             SmallVectorImpl<Value> &rest) {
  double product = 1.0;
  for (Value f : factors) {
    if (std::optional<double> c = getSplatFloat(f))
      product *= *c;
    else
      rest.push_back(f);
  }
  return product;
}

static bool near(double a, double b) {
  return std::abs(a - b) <= 1e-4 * std::abs(b);
}

/// Whether `arg` is x / sqrt(2) or x * (1 / sqrt(2)).
static bool isErfArgument(Value arg, Value x) {
  if (auto div = arg.getDefiningOp<DivOp>())
    return div.getLhs() == x && isSplatNear(div.getRhs(), std::sqrt(2.0));
  SmallVector<Value> factors, rest;
  collectFactors(arg, 2, factors);
  return near(splitConstants(factors, rest), 1.0 / std::sqrt(2.0)) &&
         rest.size() == 1 && rest[0] == x;
}

/// Whether `cube` is x^3 (pow(x, 3) or x * x * x).
static bool isCube(Value cube, Value x) {
  if (auto pow = cube.getDefiningOp<PowOp>())
    return pow.getLhs() == x && isSplatNear(pow.getRhs(), 3.0);
  SmallVector<Value> factors;
  collectFactors(cube, 2, factors);
  return factors.size() == 3 &&
         llvm::all_of(factors, [&](Value f) { return f == x; });
}

/// Whether `arg` is sqrt(2 / pi) * (x + 0.044715 * x^3).
static bool isTanhArgument(Value arg, Value x) {
  SmallVector<Value> factors, rest;
  collectFactors(arg, 2, factors);
  if (!near(splitConstants(factors, rest), std::sqrt(2.0 / M_PI)) ||
      rest.size() != 1)
    return false;
  auto sum = rest[0].getDefiningOp<AddOp>();
  if (!sum)
    return false;
  Value cubic = sum.getLhs() == x
                    ? sum.getRhs()
                    : (sum.getRhs() == x ? sum.getLhs() : Value());
  if (!cubic)
    return false;
  // 0.044715 * x^3 with the constant anywhere in the product, and x^3 as a
  // pow or as products of x (PyTorch 1.13 exports c * (x * (x * x))).
  SmallVector<Value> cubicFactors, cubicRest;
  collectFactors(cubic, 3, cubicFactors);
  if (!near(splitConstants(cubicFactors, cubicRest), 0.044715))
    return false;
  if (cubicRest.size() == 1)
    return isCube(cubicRest[0], x);
  return cubicRest.size() == 3 &&
         llvm::all_of(cubicRest, [&](Value f) { return f == x; });
}

struct RaiseGelu : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp root,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> factors, rest;
    collectFactors(root.getResult(), 3, factors);
    if (!near(splitConstants(factors, rest), 0.5) || rest.size() != 2)
      return rewriter.notifyMatchFailure(root, "not 0.5 * x * (1 + f(x))");
    for (int i = 0; i < 2; ++i) {
      Value x = rest[i], onePlus = rest[1 - i];
      auto add = onePlus.getDefiningOp<AddOp>();
      if (!add || x.getType() != root.getType())
        continue;
      Value inner = isSplatNear(add.getRhs(), 1.0)   ? add.getLhs()
                    : isSplatNear(add.getLhs(), 1.0) ? add.getRhs()
                                                     : Value();
      if (!inner)
        continue;
      bool tanh = false;
      if (auto erf = inner.getDefiningOp<ErfOp>()) {
        if (!isErfArgument(erf.getInput(), x))
          continue;
      } else if (auto th = inner.getDefiningOp<TanhOp>()) {
        if (!isTanhArgument(th.getInput(), x))
          continue;
        tanh = true;
      } else {
        continue;
      }
      rewriter.replaceOpWithNewOp<GeluOp>(root, x, tanh);
      return success();
    }
    return rewriter.notifyMatchFailure(root, "no erf or tanh GELU factor");
  }
};

} // namespace

void mlir::dist::populateRaiseGeluPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseGelu>(patterns.getContext());
}
