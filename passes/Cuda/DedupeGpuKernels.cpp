//===- DedupeGpuKernels.cpp - One copy of each identical kernel -----------===//
//
// The layers of a model repeat their kernels: gpt2-xl's step has about
// 8000 launches but only a few hundred distinct kernels. Each copy costs
// NVPTX code generation and ptxas time and fatbin bytes; this pass keeps
// the first kernel of each set of identical ones (same generic-form text
// under a fixed name) and points the others' launches at it.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/KernelSignature.h"
#include "passes/Cuda/Passes.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "dist-dedupe-gpu-kernels"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDEDUPEGPUKERNELS
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct DistDedupeGpuKernelsPass
    : dist::impl::DistDedupeGpuKernelsBase<DistDedupeGpuKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Per gpu.module: a duplicate kernel's name -> the kept one's.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> replaced;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      llvm::StringMap<StringAttr> kept;
      SmallVector<gpu::GPUFuncOp> duplicates;
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        // Device functions that kernels call keep their names.
        if (!kernel.isKernel())
          continue;
        auto [it, inserted] = kept.try_emplace(dist::kernelSignature(kernel),
                                               kernel.getNameAttr());
        if (inserted)
          continue;
        replaced[std::make_pair(gpuModule.getNameAttr(),
                                kernel.getNameAttr())] = it->second;
        duplicates.push_back(kernel);
      }
      for (gpu::GPUFuncOp kernel : duplicates)
        kernel.erase();
    }
    if (replaced.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto it =
          replaced.find({kernel.getRootReference(), kernel.getLeafReference()});
      if (it != replaced.end())
        launch.setKernelAttr(SymbolRefAttr::get(
            kernel.getRootReference(), {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};

} // namespace
