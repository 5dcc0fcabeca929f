//===- OnnxSchema.cpp - What the ONNX operator schemas say ----------------===//

#include "passes/Import/OnnxSchema.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

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

std::optional<std::string>
mlir::dist::onnx_import::inferOnnxShapes(onnx::ModelProto &model) {
  try {
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(),
        onnx::ShapeInferenceOptions(/*check_type_val=*/false,
                                    /*strict_mode_val=*/0,
                                    /*data_prop_val=*/true));
    return std::nullopt;
  } catch (const std::exception &e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown error");
  }
}
