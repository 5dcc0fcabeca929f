//===- ConvertDistToLinalg.cpp - The convert-dist-to-linalg pass ----------===//
//
// Assembles the per-family patterns of DistToLinalg/ and the function
// signature conversion (signless integer tensors) into one full conversion.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"
#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/Runtime/CollectiveBufferization.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "convert-dist-to-linalg"

namespace mlir::dist {
#define GEN_PASS_DEF_CONVERTDISTTOLINALG
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct ConvertDistToLinalgPass
    : dist::impl::ConvertDistToLinalgBase<ConvertDistToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    DistTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateElementwiseToLinalgPatterns(converter, patterns);
    populateReductionToLinalgPatterns(converter, patterns);
    populateLossToLinalgPatterns(converter, patterns);
    populateShapeToLinalgPatterns(converter, patterns);
    populateIndexingToLinalgPatterns(converter, patterns);
    populateContractionToLinalgPatterns(converter, patterns);
    populateConvToLinalgPatterns(converter, patterns);
    populateGradientOpsToLinalgPatterns(converter, patterns);
    populateAttentionToLoopsPatterns(converter, patterns);
    populateCollectivesToRuntimePatterns(converter, patterns);
    declareRuntimeCollectives(getOperation());
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect,
                           bufferization::BufferizationDialect,
                           memref::MemRefDialect, vector::VectorDialect,
                           LLVM::LLVMDialect>();
    target.addIllegalDialect<DistDialect>();
    target.addLegalOp<ModuleOp, ParameterOp, MeshOp>();
    // Collectives become runtime calls in one-shot bufferization, barriers
    // their operand's buffer.
    target.addDynamicallyLegalOp<AllReduceOp, AllGatherOp, ReduceScatterOp,
                                 ShardSliceOp, AllReduceStartOp, WaitOp,
                                 SendOp, RecvOp, OptimizationBarrierOp,
                                 SparsifyTopKOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(
            applyFullConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
