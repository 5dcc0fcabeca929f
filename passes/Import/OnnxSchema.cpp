//===- OnnxSchema.cpp - What the ONNX operator schemas say ----------------===//

#include "passes/Import/OnnxSchema.h"

#include <onnx/defs/schema.h>

std::optional<mlir::dist::onnx_import::OnnxSchemaInfo>
mlir::dist::onnx_import::getOnnxSchemaInfo(const std::string &opType,
                                           int opset) {
  try {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(opType, opset, "");
    if (!schema)
      return std::nullopt;
    return OnnxSchemaInfo{schema->min_input(), schema->max_input(),
                          schema->min_output(), schema->max_output(),
                          schema->SinceVersion()};
  } catch (...) {
    return std::nullopt;
  }
}
