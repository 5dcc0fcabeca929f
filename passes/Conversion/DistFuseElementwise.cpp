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

/// The most bytes of memref descriptors a fused op may take: on CUDA each
/// operand becomes a kernel parameter of (3 + 2 * rank) * 8 bytes, and a
/// kernel's parameters are at most 4352 bytes (PTX ISA before 8.1);
/// gpt2-xl's gradient norm summed 255 scalars in one fused op (6120 bytes:
/// ptxas refused it). The rest is left for the launch's other values.
constexpr int64_t kMaxOperandBytes = 4000;

int64_t descriptorBytes(Value value) {
  auto shaped = dyn_cast<ShapedType>(value.getType());
  return 8 * (3 + 2 * (shaped && shaped.hasRank() ? shaped.getRank() : 0));
}

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
    // backward chain took 40 s), and a loop body that large gains nothing;
    // and its operands fit a CUDA kernel's parameters (kMaxOperandBytes).
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
          if (bodySize(producer) + bodySize(operand->getOwner()) >
              kMaxFusedOps)
            return false;
          // The fused op's operands: the consumer's but the fused one, and
          // the producer's (an upper bound: repeated values are merged).
          int64_t bytes = -descriptorBytes(operand->get());
          for (Value v : operand->getOwner()->getOperands())
            bytes += descriptorBytes(v);
          for (Value v : producer->getOperands())
            bytes += descriptorBytes(v);
          return bytes <= kMaxOperandBytes;
        });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
