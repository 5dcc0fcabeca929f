//===- ExplainParameterServer.h - --explain of parameter-server mode -*- C++ -*-===//
//
// What `dist-compile --parallel=ps --explain` prints: which server owns
// which parameters, the bytes each worker pushes and pulls per step (and
// per asynchronous update), what the busiest server moves, and with a
// device description the predicted time of those transfers.
//
//===----------------------------------------------------------------------===//

#ifndef TOOLS_DIST_COMPILE_EXPLAINPARAMETERSERVER_H
#define TOOLS_DIST_COMPILE_EXPLAINPARAMETERSERVER_H

#include "passes/CostModel/DeviceSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::dist {

/// Prints the plan of `module` after the training step's pipeline
/// (`worker`, the workers' gradient function, and `servers` updates named
/// by TrainingStepOptions::serverFunction) as text, or as one JSON object
/// with `json`; `compression` is --grad-compression (none, bf16, fp16 or
/// topk:F: the pushes' encoding, runtime/src/main/PushCodec.h); `spec` (may
/// be null) predicts the transfers' time.
void explainParameterServer(ModuleOp module, StringRef worker,
                            int64_t workers, int64_t servers,
                            StringRef compression,
                            const cost::DeviceSpec *spec, bool json,
                            llvm::raw_ostream &os);

/// What `--parallel=dp --sync=async --explain` prints: the model each of
/// the `ranks` holds and the bytes of its delayed all-reduce per step
/// (`update` is TrainingStepOptions::serverFunction(0), the whole model's).
void explainAsyncDataParallel(ModuleOp module, StringRef worker,
                              int64_t ranks, const cost::DeviceSpec *spec,
                              bool json, llvm::raw_ostream &os);

} // namespace mlir::dist

#endif // TOOLS_DIST_COMPILE_EXPLAINPARAMETERSERVER_H
