//===- LowerToCuda.cpp - dist -> linalg -> CUDA kernels + host LLVM ------===//
//
// The order follows ../shared/GPU.md (checked on MLIR 22 and CUDA 13):
// kernels are converted to NVVM inside their gpu.module before any
// module-wide conversion touches their math (libdevice, not LLVM
// intrinsics); the host side then lowers as on the CPU, except that its
// buffers come from the runtime's device allocator
// (finalize-memref-to-llvm{use-generic-functions}) and launches go through
// the mgpu* functions of distrt.
//
//===----------------------------------------------------------------------===//

#include "passes/Pipelines/PipelineSteps.h"
#include "passes/Pipelines/Pipelines.h"

#include "passes/Conversion/Passes.h"
#include "passes/Cuda/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::dist;

std::string mlir::dist::ptxFeaturesForArch(StringRef arch) {
  // The lowest PTX ISA that targets each architecture and that LLVM 22 and
  // CUDA 13's ptxas accept.
  return llvm::StringSwitch<std::string>(arch)
      .Case("sm_80", "+ptx80")
      .Case("sm_89", "+ptx80")
      .Case("sm_90", "+ptx80")
      .Case("sm_100", "+ptx86")
      .Default("");
}

/// Bufferization, matmuls to `gemm`, and every other op as a gpu.launch on
/// the host functions.
static void addKernels(OpPassManager &pm, const LowerToCudaOptions &options,
                       StringRef gemm) {
  addBufferizeStep(pm, options.entry);
  DistMatmulToRuntimeOptions matmul;
  matmul.function = gemm.str();
  matmul.epilogues = true;
  pm.addPass(createDistMatmulToRuntime(matmul));
  pm.addPass(createCanonicalizerPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(createDistFreeBuffersEarly());
  if (options.explainMemory) {
    DistEstimateMemoryOptions estimate;
    estimate.entry = options.entry;
    estimate.explain = true;
    estimate.device = "cuda";
    pm.addPass(createDistEstimateMemory(estimate));
  }
  OpPassManager &fn = pm.nest<func::FuncOp>();
  DistRowKernelsOptions rows;
  rows.blockSize = options.blockSize;
  fn.addPass(createDistRowKernels(rows));
  DistLinalgToGpuOptions linalg;
  linalg.blockSize = options.blockSize;
  fn.addPass(createDistLinalgToGpu(linalg));
  DistLoopsToGpuOptions loops;
  loops.blockSize = options.blockSize;
  fn.addPass(createDistLoopsToGpu(loops));
}

LogicalResult
mlir::dist::buildLinalgToCudaPipeline(OpPassManager &pm,
                                      const LowerToCudaOptions &options) {
  addKernels(pm, options, "distrt_cuda_gemm");
  pm.addPass(createDistHostMemoryToGpu());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createDistMergeGpuModules());
  pm.addPass(createDistDedupeGpuKernels());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return success();
}

LogicalResult
mlir::dist::buildCudaEmulatorPipeline(OpPassManager &pm,
                                      const LowerToCudaOptions &options) {
  LowerToLLVMOptions linalg;
  linalg.entry = options.entry.getValue();
  // Kernels are bound by memory bandwidth: recompute elementwise ops in
  // their readers when that moves fewer bytes.
  linalg.recomputeNarrow = true;
  if (failed(buildLowerToLinalgPipeline(pm, linalg)))
    return failure();
  addKernels(pm, options, "distrt_emulate_cuda_gemm");
  pm.addNestedPass<func::FuncOp>(createDistGpuLaunchToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addHostLoopsToLLVM(pm, options.entry);
  return success();
}

LogicalResult
mlir::dist::buildCudaToLLVMPipeline(OpPassManager &pm,
                                    const LowerToCudaOptions &options) {
  std::string features = ptxFeaturesForArch(options.gpuArch);
  if (features.empty()) {
    llvm::errs() << "error: unsupported GPU architecture '" << options.gpuArch
                 << "' (supported: sm_80, sm_89, sm_90, sm_100)\n";
    return failure();
  }
  GpuNVVMAttachTargetOptions target;
  target.chip = options.gpuArch;
  target.features = features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createDistPreciseGpuMath());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  // Host buffers come from the runtime's device allocator.
  addCoreToLLVM(pm, /*vectors=*/false, /*deviceAllocations=*/true);
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "fatbin";
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  DistEmitModelEntryOptions emit;
  emit.entry = options.entry;
  emit.target = "cuda " + options.gpuArch;
  pm.addPass(createDistEmitModelEntry(emit));
  return success();
}

LogicalResult
mlir::dist::buildLowerToCudaPipeline(OpPassManager &pm,
                                     const LowerToCudaOptions &options) {
  LowerToLLVMOptions linalg;
  linalg.entry = options.entry.getValue();
  // Kernels are bound by memory bandwidth: recompute elementwise ops in
  // their readers when that moves fewer bytes.
  linalg.recomputeNarrow = true;
  if (failed(buildLowerToLinalgPipeline(pm, linalg)) ||
      failed(buildLinalgToCudaPipeline(pm, options)))
    return failure();
  return buildCudaToLLVMPipeline(pm, options);
}

void mlir::dist::registerCudaPipelines() {
  PassPipelineRegistration<LowerToCudaOptions>(
      "dist-linalg-to-cuda",
      "Bufferize, call cuBLASLt for matmuls, make one kernel per linalg op "
      "and outline the kernels",
      [](OpPassManager &pm, const LowerToCudaOptions &options) {
        buildOrReject(pm, options, buildLinalgToCudaPipeline);
      });
  PassPipelineRegistration<LowerToCudaOptions>(
      "dist-cuda-to-llvm",
      "Compile the kernels to NVVM and a fatbin (SASS + PTX), lower the host "
      "code to the LLVM dialect and emit the executable's entry point",
      [](OpPassManager &pm, const LowerToCudaOptions &options) {
        buildOrReject(pm, options, buildCudaToLLVMPipeline);
      });
  PassPipelineRegistration<LowerToCudaOptions>(
      "dist-lower-to-cuda-emulator",
      "The CUDA lowering's kernels run on the host, one thread at a time "
      "(dist-gpu-launch-to-loops), in a CPU executable: checks the kernel "
      "generation without a GPU",
      [](OpPassManager &pm, const LowerToCudaOptions &options) {
        buildOrReject(pm, options, buildCudaEmulatorPipeline);
      });
  PassPipelineRegistration<LowerToCudaOptions>(
      "dist-lower-to-cuda",
      "The whole CUDA lowering: dist-lower-to-linalg, dist-linalg-to-cuda, "
      "dist-cuda-to-llvm",
      [](OpPassManager &pm, const LowerToCudaOptions &options) {
        buildOrReject(pm, options, buildLowerToCudaPipeline);
      });
}
