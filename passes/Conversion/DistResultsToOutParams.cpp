//===- DistResultsToOutParams.cpp - Results as out-parameters -------------===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTRESULTSTOOUTPARAMS
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using mlir::dist::DistDialect;

namespace {

struct DistResultsToOutParamsPass
    : dist::impl::DistResultsToOutParamsBase<DistResultsToOutParamsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bufferization::BufferResultsToOutParamsOpts options;
    options.modifyPublicFunctions = true;
    // A training step's out-parameters are its arguments' buffers.
    options.hoistStaticAllocs =
        !module->hasAttr(DistDialect::kModelUpdatesAttrName);
    if (failed(bufferization::promoteBufferResultsToOutParams(module, options)))
      return signalPassFailure();
  }
};

} // namespace
