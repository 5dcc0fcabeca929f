//===- BarrierBufferization.cpp - dist.optimization_barrier's buffer ------===//
//
// dist.optimization_barrier stays on tensors through convert-dist-to-linalg
// (where it keeps CSE from merging recomputed ops with the ones they copy)
// and disappears in one-shot bufferization: its result is its operand's
// buffer, equivalent to it, so the analysis sees the alias and nothing is
// copied.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Runtime/BarrierBufferization.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

struct BarrierModel
    : bufferization::BufferizableOpInterface::ExternalModel<
          BarrierModel, OptimizationBarrierOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const bufferization::AnalysisState &) const {
    return false;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return false;
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *op, OpOperand &,
                    const bufferization::AnalysisState &) const {
    return {{op->getResult(0), bufferization::BufferRelation::Equivalent,
             /*isDefinite=*/true}};
  }
  FailureOr<bufferization::BufferLikeType>
  getBufferType(Operation *op, Value, const bufferization::BufferizationOptions &options,
                const bufferization::BufferizationState &state,
                SmallVector<Value> &invocationStack) const {
    return bufferization::getBufferType(op->getOperand(0), options, state,
                                        invocationStack);
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(buffer))
      return failure();
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

} // namespace

void mlir::dist::registerBarrierBufferizationModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    OptimizationBarrierOp::attachInterface<BarrierModel>(*ctx);
  });
}
