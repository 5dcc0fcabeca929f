//===- OnnxSchema.h - What the ONNX operator schemas say --------*- C++ -*-===//
//
// The ONNX library's schema headers need C++ exceptions; only OnnxSchema.cpp
// is compiled with them, and this header exposes plain answers.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_ONNXSCHEMA_H
#define PASSES_IMPORT_ONNXSCHEMA_H

#include <optional>
#include <string>

namespace mlir::dist::onnx_import {

/// How many inputs and outputs a node of some op type may have.
struct OnnxArity {
  int minInputs, maxInputs, minOutputs, maxOutputs;
};

/// The arity of default-domain op `opType` at `opset`, or nullopt when ONNX
/// defines no such op.
std::optional<OnnxArity> getOnnxArity(const std::string &opType, int opset);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_ONNXSCHEMA_H
