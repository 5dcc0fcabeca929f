//===- OnnxSchema.h - What the ONNX schemas say about an op -----*- C++ -*-===//
//
// Wraps onnx::OpSchemaRegistry, which reports errors by throwing: this is the
// only file of the importer built with exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_ONNXSCHEMA_H
#define PASSES_IMPORT_ONNXSCHEMA_H

#include <optional>
#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace mlir::dist::onnx_import {

/// What the ONNX schema of an op says at one opset.
struct OnnxSchemaInfo {
  int minInputs, maxInputs, minOutputs, maxOutputs;
  /// The opset that introduced this version of the op.
  int sinceVersion;
};

/// The schema of `opType` at `opset` in the default domain, or nullopt when
/// ONNX defines no such op.
std::optional<OnnxSchemaInfo> getOnnxSchemaInfo(const std::string &opType,
                                                int opset);

/// Runs ONNX shape inference (with data propagation) on `model`, recording
/// the inferred types in its graph's value_info. Returns the error message
/// when inference throws; the model keeps what was inferred before.
std::optional<std::string> inferOnnxShapes(onnx::ModelProto &model);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_ONNXSCHEMA_H
