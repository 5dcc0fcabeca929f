//===- RaiseCoarseOps.cpp - Fold decomposed layer norm and GELU -----------===//

#include "passes/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "dist-raise-coarse-ops"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTRAISECOARSEOPS
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct RaiseCoarseOpsPass
    : public dist::impl::DistRaiseCoarseOpsBase<RaiseCoarseOpsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateRaiseLayerNormPatterns(patterns);
    populateRaiseGeluPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
