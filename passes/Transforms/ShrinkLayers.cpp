//===- ShrinkLayers.cpp - Keep the first of a model's repeated layers -----===//

#include "passes/Transforms/Passes.h"
#include "passes/Transforms/RepeatedLayers.h"

#include "dialects/Dist/IR/DistDialect.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTSHRINKLAYERS
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct ShrinkLayersPass
    : dist::impl::DistShrinkLayersBase<ShrinkLayersPass> {
  using DistShrinkLayersBase::DistShrinkLayersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (layers < 1) {
      module.emitError("dist-shrink-layers: layers must be at least 1, got ")
          << layers;
      return signalPassFailure();
    }
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn) {
      module.emitError("dist-shrink-layers: no function '")
          << function << "'";
      return signalPassFailure();
    }
    std::string whyNot;
    FailureOr<RepeatedLayers> found = findRepeatedLayers(fn, whyNot);
    if (failed(found)) {
      fn.emitError("dist-shrink-layers: no repeated layers to keep: ")
          << whyNot;
      return signalPassFailure();
    }
    if (failed(shrinkLayers(module, fn, *found, layers)))
      return signalPassFailure();
  }
};

} // namespace
