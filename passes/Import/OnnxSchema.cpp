//===- OnnxSchema.cpp - What the ONNX operator schemas say ----------------===//

#include "passes/Import/OnnxSchema.h"

#include <onnx/defs/schema.h>

std::optional<mlir::dist::onnx_import::OnnxArity>
mlir::dist::onnx_import::getOnnxArity(const std::string &opType, int opset) {
  try {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(opType, opset, "");
    if (!schema)
      return std::nullopt;
    return OnnxArity{schema->min_input(), schema->max_input(),
                     schema->min_output(), schema->max_output()};
  } catch (...) {
    return std::nullopt;
  }
}
