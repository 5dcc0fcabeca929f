//===- PipelineText.h - Shared pieces of the lowering pipelines -*- C++ -*-===//

#ifndef PASSES_PIPELINES_PIPELINETEXT_H
#define PASSES_PIPELINES_PIPELINETEXT_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::dist {

/// Parses `text` onto `pm`; an error (a bug of ours) is printed.
LogicalResult addPipelineText(OpPassManager &pm, const std::string &text);

/// Bufferization of the step `entry` as both backends do it, ending with a
/// comma: results as out-parameters, updates written early, strided copies
/// as linalg.copy.
std::string bufferizeStepText(StringRef entry, bool hoistResultAllocs);

/// Host code on buffers and loops (no linalg left) -> LLVM dialect with the
/// executable's entry point, as the CPU backend does it.
std::string hostLoopsToLLVMText(StringRef entry);

/// Registers dist-linalg-to-cuda, dist-cuda-to-llvm, dist-lower-to-cuda and
/// dist-lower-to-cuda-emulator.
void registerCudaPipelines();

} // namespace mlir::dist

#endif // PASSES_PIPELINES_PIPELINETEXT_H
