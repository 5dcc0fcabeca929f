//===- FreezeParameters.cpp - Keep parameters out of training -------------===//

#include "passes/Transforms/Passes.h"

#include "llvm/Support/GlobPattern.h"

#define DEBUG_TYPE "dist-freeze-parameters"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFREEZEPARAMETERS
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct FreezeParametersPass
    : dist::impl::DistFreezeParametersBase<FreezeParametersPass> {
  using DistFreezeParametersBase::DistFreezeParametersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<llvm::GlobPattern> globs;
    for (const std::string &pattern : patterns) {
      llvm::Expected<llvm::GlobPattern> glob =
          llvm::GlobPattern::create(pattern);
      if (!glob) {
        module.emitError("frozen pattern '")
            << pattern << "': " << llvm::toString(glob.takeError());
        return signalPassFailure();
      }
      globs.push_back(std::move(*glob));
    }
    SmallVector<bool> used(globs.size(), false);
    for (ParameterOp param : module.getOps<ParameterOp>()) {
      bool match = false;
      for (auto [i, glob] : llvm::enumerate(globs))
        if (glob.match(param.getSymName())) {
          used[i] = true;
          match = true;
        }
      if (match)
        param.setFrozen(true);
    }
    for (auto [i, pattern] : llvm::enumerate(patterns))
      if (!used[i]) {
        module.emitError("frozen pattern '")
            << pattern
            << "' matches no parameter (names are the model's initializer "
               "names, e.g. 'h.0.attn.bias' or 'h.*.attn.bias')";
        return signalPassFailure();
      }
  }
};

} // namespace
