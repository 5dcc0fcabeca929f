//===- PipelineSteps.h - Shared pieces of the lowering pipelines -*- C++
//-*-===//

#ifndef PASSES_PIPELINES_PIPELINESTEPS_H
#define PASSES_PIPELINES_PIPELINESTEPS_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::dist {

/// Bufferization of the step `entry` as both backends do it: results as
/// out-parameters (computed in place unless the step updates its
/// arguments), updates written early, strided copies as linalg.copy.
void addBufferizeStep(OpPassManager &pm, StringRef entry);

/// Host code on buffers and loops (no linalg left) -> LLVM dialect with the
/// executable's entry point, as the CPU backend does it.
void addHostLoopsToLLVM(OpPassManager &pm, StringRef entry);

/// arith (bf16 expanded), [vector,] memref, index, cf, func and ub to the
/// LLVM dialect, as both backends end; with `deviceAllocations` memref
/// allocations call the runtime's generic allocator (device memory).
void addCoreToLLVM(OpPassManager &pm, bool vectors, bool deviceAllocations);

/// Replaces `pm`'s passes by one that fails.
void rejectPipeline(OpPassManager &pm);

/// Runs `build(pm, options)`; when it fails (it printed why), `pm` becomes
/// a pass that fails, so that dist-opt exits non-zero instead of running a
/// partial pipeline.
template <typename Options, typename Build>
void buildOrReject(OpPassManager &pm, const Options &options, Build build) {
  if (failed(build(pm, options)))
    rejectPipeline(pm);
}

/// Registers dist-linalg-to-cuda, dist-cuda-to-llvm, dist-lower-to-cuda and
/// dist-lower-to-cuda-emulator.
void registerCudaPipelines();

} // namespace mlir::dist

#endif // PASSES_PIPELINES_PIPELINESTEPS_H
