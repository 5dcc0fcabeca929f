//===- Pipelines.h - Named pass pipelines of dist-opt -----------*- C++ -*-===//
//
// Each pipeline is a function of an options struct, composed of phases a
// user can run and bisect one by one with dist-opt:
//
//   dist-lower-to-linalg   dist -> linalg on tensors (fused elementwise)
//   dist-linalg-to-llvm    bufferize, gemm calls, loops, LLVM dialect, entry
//   dist-lower-to-llvm     both
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
  Option<bool> hoistResultAllocs{
      *this, "hoist-result-allocs",
      llvm::cl::desc("Compute results straight into the caller's buffers. "
                     "Off for a training step, whose results overwrite its "
                     "arguments: a result's buffer may be written before "
                     "the argument's last read, so results are copied out "
                     "at the end instead"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Inline polynomial approximations of f32 exp, log, tanh "
                     "and erf instead of calling libm (vectorizable)"),
      llvm::cl::init(true)};
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

void registerDistPipelines();

} // namespace mlir::dist

#endif // PASSES_PIPELINES_PIPELINES_H
