//===- WeightsFile.h - The executable's parameter file ----------*- C++ -*-===//

#ifndef TOOLS_DIST_COMPILE_WEIGHTSFILE_H
#define TOOLS_DIST_COMPILE_WEIGHTSFILE_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::dist {

/// Writes the initial value of every `dist.parameter` in `module` to the
/// safetensors file `path`, keyed by parameter name (atomically: temporary
/// file + rename). Reports a parameter without an initial value, or of a
/// rank the runtime cannot hold, at its location.
LogicalResult writeWeightsFile(ModuleOp module, StringRef path);

} // namespace mlir::dist

#endif // TOOLS_DIST_COMPILE_WEIGHTSFILE_H
