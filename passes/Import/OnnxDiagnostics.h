//===- OnnxDiagnostics.h - Diagnostics that point into ONNX models -*- C++
//-*-===//
//
// Imported ops are located at `NameLoc(node name, FileLineColLoc(model))`.
// MLIR's source-manager handler would print that as `model.onnx:0:0`, losing
// the node; this handler prints `model.onnx:node_name: error: ...` instead,
// and `file:line:col` for locations in MLIR text as usual.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_ONNXDIAGNOSTICS_H
#define PASSES_IMPORT_ONNXDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

namespace mlir::dist {

/// `model.onnx:node_name` for an imported op, `file:line:col` for text,
/// `model.onnx` for the model as a whole.
std::string formatLocation(Location loc);

/// Prints `diag` and its notes to stderr with formatLocation; a handler for
/// DiagnosticEngine::registerHandler.
LogicalResult printOnnxDiagnostic(Diagnostic &diag);

/// Prints every diagnostic of `context` to stderr with formatLocation.
class OnnxDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  explicit OnnxDiagnosticHandler(MLIRContext *context);
};

} // namespace mlir::dist

#endif // PASSES_IMPORT_ONNXDIAGNOSTICS_H
