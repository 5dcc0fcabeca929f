//===- InitAll.cpp - The one registration point of dist-opt ---------------===//

#include "passes/InitAll.h"

#include "dialects/Dist/Gradients/Gradients.h"
#include "dialects/Dist/IR/DistDialect.h"
#include "dialects/Dist/Runtime/BarrierBufferization.h"
#include "dialects/Dist/Runtime/CollectiveBufferization.h"
#include "dialects/Dist/Sharding/ShardingRule.h"
#include "passes/Conversion/Passes.h"
#include "passes/Cuda/Passes.h"
#include "passes/Pipelines/Pipelines.h"
#include "passes/Sharding/Passes.h"
#include "passes/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void mlir::dist::registerAllDialects(DialectRegistry &registry) {
  // The upstream dialects with their external models (bufferization,
  // deallocation, conversion to LLVM), then ours; and the translations
  // dist-compile uses to emit LLVM IR.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<dist::DistDialect>();
  registerGradientOpInterfaceModels(registry);
  registerShardingOpInterfaceModels(registry);
  registerCollectiveBufferizationModels(registry);
  registerBarrierBufferizationModel(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // The CUDA target: gpu.module/gpu.binary and NVVM intrinsics.
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

void mlir::dist::registerAllPasses() {
  // Upstream passes, then the project's own, area by area.
  mlir::registerAllPasses();
  registerDistTransformsPasses();
  registerDistShardingPasses();
  registerDistConversionPasses();
  registerDistCudaPasses();
  registerDistPipelines();
}
