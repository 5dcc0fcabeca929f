//===- ModelInput.cpp - How the tools read a model file and its flags -----===//

#include "passes/Import/OnnxImporter.h"

#include "mlir/Bytecode/BytecodeReader.h"

using namespace mlir;
using namespace mlir::dist;

ModelFileKind mlir::dist::classifyModelFile(llvm::MemoryBufferRef buffer,
                                            llvm::StringRef filename) {
  if (looksLikeOnnx(buffer, filename))
    return ModelFileKind::Onnx;
  if (isBytecode(buffer))
    return ModelFileKind::MlirBytecode;
  return ModelFileKind::MlirText;
}

std::optional<std::string>
mlir::dist::readModelInputFlags(ModelFileKind kind, llvm::StringRef filename,
                                llvm::ArrayRef<std::string> inputShapes,
                                llvm::ArrayRef<std::string> boundInputs,
                                OnnxImportOptions &options) {
  if (kind == ModelFileKind::MlirBytecode)
    return (filename +
            ": MLIR bytecode input is not accepted: the MLIR bytecode "
            "reader can crash on a damaged file. Convert it to text with "
            "`mlir-opt-22 FILE -o FILE.mlir` and pass the text instead.")
        .str();
  if (kind == ModelFileKind::MlirText) {
    if (inputShapes.empty() && boundInputs.empty())
      return std::nullopt;
    return (filename + ": --input-shape and --bind-input apply to ONNX "
                       "models only; this input is MLIR")
        .str();
  }
  for (const std::string &spec : inputShapes)
    if (std::optional<std::string> error = parseInputShape(spec, options))
      return "--input-shape: " + *error;
  for (const std::string &spec : boundInputs)
    if (std::optional<std::string> error = parseBoundInput(spec, options))
      return "--bind-input: " + *error;
  return std::nullopt;
}
