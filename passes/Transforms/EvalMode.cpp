//===- EvalMode.cpp - Eval-mode semantics for a training-mode model -------===//

#include "passes/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

#define DEBUG_TYPE "dist-eval-mode"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTEVALMODE
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct EvalModePass : dist::impl::DistEvalModeBase<EvalModePass> {
  using DistEvalModeBase::DistEvalModeBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    for (DropoutOp op : llvm::make_early_inc_range(fn.getOps<DropoutOp>())) {
      OpBuilder b(op);
      auto keep = ConstantOp::create(
          b, op.getLoc(), DenseElementsAttr::get(op.getMask().getType(), true));
      op.getMask().replaceAllUsesWith(keep);
      op.getResult().replaceAllUsesWith(op.getInput());
      op.erase();
    }
    fn.walk([](BatchNormOp op) { op.setTraining(false); });
    // Random sampling other than dropout has no eval form the graph shows
    // (PyTorch's drop path skips it with a Python `if`, which the trace
    // does not record): it stays, unkeyed (the same samples every call).
    fn.walk([](Operation *op) {
      if (isa<RandomUniformOp, RandomNormalOp>(op))
        op->emitWarning("random sampling (e.g. drop path, torch.rand/randn) "
                        "has no eval form: the eval executable samples here, "
                        "the same values at every call (no step keys it "
                        "by); for inference, export the model in eval mode");
    });
  }
};

} // namespace
