//===- BarrierBufferization.h - dist.optimization_barrier's buffer -*- C++ -*-===//
//
// The BufferizableOpInterface model of dist.optimization_barrier: its
// result is its operand's buffer (no copy, no read, no write).
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_RUNTIME_BARRIERBUFFERIZATION_H
#define DIALECTS_DIST_RUNTIME_BARRIERBUFFERIZATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::dist {

/// Attaches dist.optimization_barrier's bufferization model.
void registerBarrierBufferizationModel(DialectRegistry &registry);

} // namespace mlir::dist

#endif // DIALECTS_DIST_RUNTIME_BARRIERBUFFERIZATION_H
