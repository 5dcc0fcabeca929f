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

#include "passes/Pipelines/PipelineText.h"
#include "passes/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

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
/// the host functions (ending with a comma).
static std::string kernelsText(const LowerToCudaOptions &options,
                               StringRef gemm) {
  std::string block = std::to_string(options.blockSize);
  return bufferizeStepText(options.entry) +
         "dist-matmul-to-runtime{function=" + gemm.str() +
         " epilogues=1},canonicalize,buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref,func.func(dist-free-buffers-early),"
         "func.func(dist-linalg-to-gpu{block-size=" +
         block + "},dist-loops-to-gpu{block-size=" + block + "}),";
}

LogicalResult
mlir::dist::buildLinalgToCudaPipeline(OpPassManager &pm,
                                      const LowerToCudaOptions &options) {
  std::string text = kernelsText(options, "distrt_cuda_gemm") +
                     "dist-host-memory-to-gpu,gpu-kernel-outlining,"
                     "dist-merge-gpu-modules,lower-affine,canonicalize,cse";
  return addPipelineText(pm, text);
}

LogicalResult
mlir::dist::buildCudaEmulatorPipeline(OpPassManager &pm,
                                      const LowerToCudaOptions &options) {
  LowerToLLVMOptions linalg;
  linalg.entry = options.entry.getValue();
  if (failed(buildLowerToLinalgPipeline(pm, linalg)))
    return failure();
  std::string text = kernelsText(options, "distrt_emulate_cuda_gemm") +
                     "func.func(dist-gpu-launch-to-loops),canonicalize,cse," +
                     hostLoopsToLLVMText(options.entry);
  return addPipelineText(pm, text);
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
  std::string toolkit =
      options.toolkit.empty() ? "" : " toolkit=" + options.toolkit;
  std::string text =
      "nvvm-attach-target{chip=" + options.gpuArch + " features=" + features +
      " O=3},convert-scf-to-cf,expand-strided-metadata,lower-affine,"
      "gpu.module(convert-gpu-to-nvvm,canonicalize,cse,"
      "reconcile-unrealized-casts),"
      "convert-nvvm-to-llvm,arith-expand{include-bf16=1},"
      "finalize-memref-to-llvm{use-generic-functions=1},"
      "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
      "convert-func-to-llvm,convert-ub-to-llvm,gpu-to-llvm,"
      "reconcile-unrealized-casts,"
      "gpu-module-to-binary{format=fatbin" +
      toolkit +
      "},canonicalize,cse,dist-emit-model-entry{entry=" + options.entry +
      " target='cuda " + options.gpuArch + "'}";
  return addPipelineText(pm, text);
}

LogicalResult
mlir::dist::buildLowerToCudaPipeline(OpPassManager &pm,
                                     const LowerToCudaOptions &options) {
  LowerToLLVMOptions linalg;
  linalg.entry = options.entry.getValue();
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
