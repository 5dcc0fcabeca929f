//===- Pipelines.h - Named pass pipelines of dist-opt -----------*- C++ -*-===//
//
// Each pipeline is a function of an options struct, composed of phases a
// user can run and bisect one by one with dist-opt:
//
//   dist-lower-to-linalg   dist -> linalg on tensors (fused elementwise)
//   dist-linalg-to-llvm    bufferize, gemm calls, loops, LLVM dialect, entry
//   dist-lower-to-llvm     both
//
// and for one CUDA GPU (LowerToCuda.cpp):
//
//   dist-linalg-to-cuda    bufferize, cuBLASLt calls, one gpu.launch per op,
//                          kernels outlined into a gpu.module
//   dist-cuda-to-llvm      kernels to NVVM and a fatbin, host to the LLVM
//                          dialect with the executable's entry point
//   dist-lower-to-cuda     dist-lower-to-linalg, then both
//   dist-lower-to-cuda-emulator  the same kernels as host loops in a CPU
//                          executable (tests without a GPU)
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_PIPELINES_PIPELINES_H
#define PASSES_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::dist {

struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("The function the executable runs"),
                            llvm::cl::init("forward")};
  Option<bool> gemmRuntime{
      *this, "gemm-runtime",
      llvm::cl::desc("Call the runtime's gemm (BLAS) for f32/f64 matrix "
                     "products instead of generating loops"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Inline polynomial approximations of f32 exp, log, tanh "
                     "and erf instead of calling libm (vectorizable)"),
      llvm::cl::init(true)};
  Option<bool> explainMemory{
      *this, "explain-memory",
      llvm::cl::desc("Print the predicted peak of host tensor memory and "
                     "its parts (dist-estimate-memory)"),
      llvm::cl::init(false)};
  Option<bool> recomputeNarrow{
      *this, "recompute-narrow",
      llvm::cl::desc("dist-fuse-elementwise's recompute-narrow: copy an "
                     "elementwise op into its readers when that moves fewer "
                     "bytes (the CUDA pipelines set it)"),
      llvm::cl::init(false)};
};

/// dist -> linalg on tensors, elementwise chains fused.
LogicalResult buildLowerToLinalgPipeline(OpPassManager &pm,
                                         const LowerToLLVMOptions &options);
/// linalg on tensors -> LLVM dialect with the executable's entry point.
LogicalResult buildLinalgToLLVMPipeline(OpPassManager &pm,
                                        const LowerToLLVMOptions &options);
/// Both phases.
LogicalResult buildLowerToLLVMPipeline(OpPassManager &pm,
                                       const LowerToLLVMOptions &options);

struct LowerToCudaOptions : public PassPipelineOptions<LowerToCudaOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("The function the executable runs"),
                            llvm::cl::init("forward")};
  Option<std::string> gpuArch{
      *this, "gpu-arch",
      llvm::cl::desc("The GPU the kernels are compiled for: sm_80, sm_89, "
                     "sm_90 or sm_100 (SASS for it, plus PTX)"),
      llvm::cl::init("sm_90")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit whose ptxas and fatbinary build the "
                     "kernels, and whose libdevice they link (empty: "
                     "$CUDA_HOME, $CUDA_ROOT or $CUDA_PATH)"),
      llvm::cl::init("")};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the generated kernels"),
      llvm::cl::init(256)};
  Option<bool> explainMemory{
      *this, "explain-memory",
      llvm::cl::desc("Print the predicted peak of device memory and its "
                     "parts (dist-estimate-memory{device=cuda})"),
      llvm::cl::init(false)};
};

/// The PTX feature (ISA version) LLVM needs for `arch`, or "" when the
/// architecture is not one dist-compile supports.
std::string ptxFeaturesForArch(llvm::StringRef arch);

/// linalg on tensors -> host functions on device buffers that launch
/// outlined kernels and call cuBLASLt.
LogicalResult buildLinalgToCudaPipeline(OpPassManager &pm,
                                        const LowerToCudaOptions &options);
/// The output of dist-linalg-to-cuda -> LLVM dialect, kernels embedded as a
/// fatbin, with the executable's entry point.
LogicalResult buildCudaToLLVMPipeline(OpPassManager &pm,
                                      const LowerToCudaOptions &options);
/// dist -> linalg -> the CUDA lowering's kernels as host loops -> LLVM: a
/// CPU executable that runs the generated kernels serially.
LogicalResult buildCudaEmulatorPipeline(OpPassManager &pm,
                                        const LowerToCudaOptions &options);
/// dist -> linalg -> CUDA -> LLVM.
LogicalResult buildLowerToCudaPipeline(OpPassManager &pm,
                                       const LowerToCudaOptions &options);

void registerDistPipelines();

} // namespace mlir::dist

#endif // PASSES_PIPELINES_PIPELINES_H
