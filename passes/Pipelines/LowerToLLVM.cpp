//===- LowerToLLVM.cpp - dist -> linalg -> LLVM pipelines -----------------===//
//
// Built with addPass from the options; `dist-compile --print-pipeline` (or
// `dist-opt --dump-pass-pipeline`) shows exactly what runs, and any step
// can be rerun by hand with dist-opt. Order matters
// (docs/notes/mlir22-cpu-lowering.md): the gemm rewrite needs buffers and
// named matmuls; lower-affine must follow expand-strided-metadata;
// math-to-llvm must precede math-to-libm.
//
//===----------------------------------------------------------------------===//

#include "passes/Pipelines/PipelineSteps.h"
#include "passes/Pipelines/Pipelines.h"
#include "passes/Pipelines/TrainingStep.h"

#include "passes/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::dist;

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
  DistDescribeModelOptions describe;
  describe.entry = options.entry;
  pm.addPass(createDistDescribeModel(describe));
  pm.addPass(createConvertDistToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createDistFoldTransposeIntoMatmul());
  DistFuseElementwiseOptions fuse;
  fuse.recomputeNarrow = options.recomputeNarrow;
  pm.addNestedPass<func::FuncOp>(createDistFuseElementwise(fuse));
  pm.addPass(createCSEPass());
  return success();
}

void mlir::dist::addBufferizeStep(OpPassManager &pm, StringRef entry) {
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createDistSplatsToFill());
  fn.addPass(createDistCopyRepeatedResults());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createDistResultsToOutParams());
  DistWriteUpdatesEarlyOptions updates;
  updates.entry = entry.str();
  pm.addPass(createDistWriteUpdatesEarly(updates));
  pm.addNestedPass<func::FuncOp>(createDistLowerStridedCopies());
}

LogicalResult
mlir::dist::buildLinalgToLLVMPipeline(OpPassManager &pm,
                                      const LowerToLLVMOptions &options) {
  addBufferizeStep(pm, options.entry);
  if (options.gemmRuntime)
    pm.addPass(createDistMatmulToRuntime());
  pm.addPass(createCanonicalizerPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(createDistFreeBuffersEarly());
  if (options.explainMemory) {
    DistEstimateMemoryOptions estimate;
    estimate.entry = options.entry;
    estimate.explain = true;
    pm.addPass(createDistEstimateMemory(estimate));
  }
  pm.addPass(createDistOutlineKernels());
  pm.addPass(createDistTraceKernels());
  if (options.approximateMath)
    pm.addNestedPass<func::FuncOp>(createDistApproximateMath());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  addHostLoopsToLLVM(pm, options.entry);
  return success();
}

void mlir::dist::addHostLoopsToLLVM(OpPassManager &pm, StringRef entry) {
  pm.addPass(createDistLowerAsserts());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  addCoreToLLVM(pm, /*vectors=*/true, /*deviceAllocations=*/false);
  pm.addPass(createReconcileUnrealizedCastsPass());
  DistEmitModelEntryOptions emit;
  emit.entry = entry.str();
  pm.addPass(createDistEmitModelEntry(emit));
}

void mlir::dist::addCoreToLLVM(OpPassManager &pm, bool vectors,
                               bool deviceAllocations) {
  // bf16 arithmetic in f32 (extf, op, truncf), then extf / truncf of bf16
  // as integer operations: the x86 backend would otherwise call
  // __truncsfbf2, which libgcc 12 lacks.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  if (vectors)
    pm.addPass(createConvertVectorToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memref;
  memref.useGenericFunctions = deviceAllocations;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memref));
  if (!deviceAllocations)
    pm.addPass(createDistCountHostAllocations());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
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
