//===- DistFuseElementwise.cpp - Fuse elementwise linalg.generic chains ---===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "dist-fuse-elementwise"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFUSEELEMENTWISE
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

constexpr size_t kMaxFusedOps = 256;

struct DistFuseElementwisePass
    : dist::impl::DistFuseElementwiseBase<DistFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // Fuse only single-use producers: a producer with several consumers
    // would be recomputed in each of them. Transparent optimization
    // barriers (dist-remat's reads for a recomputation) do not count: the
    // forward fuses as it did without them. A fused body is at most
    // kMaxFusedOps ops: each fusion copies the producer's body into the
    // consumer's, so an unbounded chain of n ops would cost n^2 (a 1000-op
    // backward chain took 40 s), and a loop body that large gains nothing.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          if (!producer)
            return false;
          int uses = 0;
          for (Operation *user : producer->getUsers()) {
            auto barrier = dyn_cast<dist::OptimizationBarrierOp>(user);
            uses += !(barrier && barrier.getTransparent());
          }
          if (uses != 1)
            return false;
          auto bodySize = [](Operation *op) {
            size_t count = 0;
            for (Region &region : op->getRegions())
              for (Block &block : region)
                count += block.getOperations().size();
            return count;
          };
          return bodySize(producer) + bodySize(operand->getOwner()) <=
                 kMaxFusedOps;
        });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
