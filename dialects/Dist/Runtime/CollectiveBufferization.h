//===- CollectiveBufferization.h - Collectives become distrt calls -*- C++ -*-===//
//
// The BufferizableOpInterface models of the dist collectives: one-shot
// bufferization turns dist.all_reduce, all_gather, reduce_scatter,
// shard_slice, all_reduce_start and wait into calls of distrt's C API
// (runtime/include/distrt/distrt.h, "Mesh and collectives").
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_RUNTIME_COLLECTIVEBUFFERIZATION_H
#define DIALECTS_DIST_RUNTIME_COLLECTIVEBUFFERIZATION_H

namespace mlir {
class DialectRegistry;
class ModuleOp;
class Operation;
} // namespace mlir

namespace mlir::dist {

/// Attaches the collectives' bufferization models.
void registerCollectiveBufferizationModels(DialectRegistry &registry);

/// Declares the distrt functions the collectives of `module` call.
void declareRuntimeCollectives(ModuleOp module);

} // namespace mlir::dist

#endif // DIALECTS_DIST_RUNTIME_COLLECTIVEBUFFERIZATION_H
