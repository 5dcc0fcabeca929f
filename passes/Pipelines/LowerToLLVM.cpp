//===- LowerToLLVM.cpp - dist -> linalg -> LLVM pipelines -----------------===//
//
// The upstream part is written as pipeline text so that `--dump-pass-pipeline`
// shows exactly what runs and any step can be rerun by hand with dist-opt.
// Order matters (docs/notes/mlir22-cpu-lowering.md): the gemm rewrite needs
// buffers and named matmuls; lower-affine must follow expand-strided-metadata;
// math-to-llvm must precede math-to-libm.
//
//===----------------------------------------------------------------------===//

#include "passes/Pipelines/PipelineText.h"
#include "passes/Pipelines/Pipelines.h"
#include "passes/Pipelines/TrainingStep.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dist;

LogicalResult mlir::dist::addPipelineText(OpPassManager &pm,
                                          const std::string &text) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(text, pm, os))) {
    llvm::errs() << "internal error: bad pipeline text: " << error << "\n";
    return failure();
  }
  return success();
}

namespace {
/// Stands for a pipeline whose options were rejected (the reason is already
/// printed): running it fails.
struct RejectedPipelinePass
    : PassWrapper<RejectedPipelinePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RejectedPipelinePass)
  StringRef getArgument() const override { return "dist-rejected-pipeline"; }
  void runOnOperation() override { signalPassFailure(); }
};
} // namespace

void mlir::dist::rejectPipeline(OpPassManager &pm) {
  pm.clear();
  pm.addPass(std::make_unique<RejectedPipelinePass>());
}

LogicalResult
mlir::dist::buildLowerToLinalgPipeline(OpPassManager &pm,
                                       const LowerToLLVMOptions &options) {
  return addPipelineText(pm, "dist-describe-model{entry=" + options.entry +
                                 "},convert-dist-to-linalg,canonicalize,"
                                 "func.func(dist-fuse-elementwise),cse");
}

std::string mlir::dist::bufferizeStepText(StringRef entry) {
  return "func.func(dist-splats-to-fill,dist-copy-repeated-results),"
         "one-shot-bufferize{bufferize-function-boundaries=1 "
         "function-boundary-type-conversion=identity-layout-map},"
         "dist-results-to-out-params,dist-write-updates-early{entry=" +
         entry.str() + "},func.func(dist-lower-strided-copies),";
}

LogicalResult
mlir::dist::buildLinalgToLLVMPipeline(OpPassManager &pm,
                                      const LowerToLLVMOptions &options) {
  std::string text = bufferizeStepText(options.entry);
  if (options.gemmRuntime)
    text += "dist-matmul-to-runtime,";
  text += "canonicalize,buffer-deallocation-pipeline,"
          "convert-bufferization-to-memref,func.func(dist-free-buffers-early),"
          "dist-outline-kernels,";
  if (options.approximateMath)
    text += "func.func(dist-approximate-math),";
  text += "func.func(convert-linalg-to-loops)," +
          hostLoopsToLLVMText(options.entry);
  return addPipelineText(pm, text);
}

std::string mlir::dist::hostLoopsToLLVMText(StringRef entry) {
  return "dist-lower-asserts,convert-scf-to-cf,"
         "canonicalize,cse,expand-strided-metadata,lower-affine,"
         "convert-math-to-llvm,convert-math-to-libm,arith-expand{include-bf16="
         "1},"
         "convert-vector-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,"
         "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
         "convert-ub-to-llvm,reconcile-unrealized-casts,"
         "dist-emit-model-entry{entry=" +
         entry.str() + "}";
}

LogicalResult
mlir::dist::buildLowerToLLVMPipeline(OpPassManager &pm,
                                     const LowerToLLVMOptions &options) {
  if (failed(buildLowerToLinalgPipeline(pm, options)))
    return failure();
  return buildLinalgToLLVMPipeline(pm, options);
}

void mlir::dist::registerDistPipelines() {
  PassPipelineRegistration<LowerToLLVMOptions>(
      "dist-lower-to-linalg",
      "Lower the dist dialect to linalg on tensors with fused elementwise "
      "chains",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        buildOrReject(pm, options, buildLowerToLinalgPipeline);
      });
  PassPipelineRegistration<LowerToLLVMOptions>(
      "dist-linalg-to-llvm",
      "Bufferize, call the runtime's gemm, generate loops, lower to the LLVM "
      "dialect and emit the executable's entry point",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        buildOrReject(pm, options, buildLinalgToLLVMPipeline);
      });
  PassPipelineRegistration<LowerToLLVMOptions>(
      "dist-lower-to-llvm",
      "The whole CPU lowering: dist-lower-to-linalg then dist-linalg-to-llvm",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        buildOrReject(pm, options, buildLowerToLLVMPipeline);
      });
  registerCudaPipelines();
  registerTrainingPipelines();
}
