//===- MergeGpuModules.cpp - All kernels in one gpu.module ----------------===//
//
// gpu-kernel-outlining makes one gpu.module per kernel, and each module
// becomes its own ptxas and fatbinary run and its own cuModuleLoadData: a
// GPT-2 training step has about 340. One module compiles in one run.
//
//===----------------------------------------------------------------------===//

#include "passes/Cuda/Passes.h"

#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "dist-merge-gpu-modules"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMERGEGPUMODULES
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct DistMergeGpuModulesPass
    : dist::impl::DistMergeGpuModulesBase<DistMergeGpuModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.size() < 2)
      return;
    OpBuilder b(modules.front());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), "dist_kernels");
    SymbolTable mergedSymbols(merged);
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp source : modules) {
      if (source.getTargetsAttr() || source.getOffloadingHandlerAttr()) {
        source.emitError() << "dist-merge-gpu-modules runs before targets "
                              "are attached";
        return signalPassFailure();
      }
      for (Operation &op :
           llvm::make_early_inc_range(source.getBody()->without_terminator())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        StringAttr old = symbol ? symbol.getNameAttr() : StringAttr();
        op.remove();
        // insert() renames on a clash.
        StringAttr now = symbol ? mergedSymbols.insert(&op) : StringAttr();
        if (symbol)
          renamed[{source.getNameAttr(), old}] = now;
        else
          merged.getBody()->push_back(&op);
      }
    }
    WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto it = renamed.find(
          {kernel.getRootReference(), kernel.getLeafReference()});
      if (it == renamed.end()) {
        launch.emitError() << "launches " << kernel
                           << ", which is not an outlined kernel";
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          merged.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (gpu::GPUModuleOp source : modules)
      source.erase();
  }
};

} // namespace
