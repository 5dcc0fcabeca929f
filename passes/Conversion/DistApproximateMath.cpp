//===- DistApproximateMath.cpp - Vectorizable f32 transcendental math -----===//

#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "dist-approximate-math"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTAPPROXIMATEMATH
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct DistApproximateMathPass
    : dist::impl::DistApproximateMathBase<DistApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The predicate sees operation names ("math.exp").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return name == "exp" || name == "log" || name == "tanh" || name == "erf";
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
