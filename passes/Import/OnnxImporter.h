//===- OnnxImporter.h - ONNX models into the dist dialect -------*- C++ -*-===//
//
// Imports an ONNX model (as torch.onnx.export writes it) into a module of
// `dist.parameter` symbols and one `@forward` function whose arguments are the
// model inputs followed by the parameters, and whose results are the model
// outputs. Shapes are static: shape sub-graphs are evaluated at import time,
// and inputs exported with dynamic axes take their sizes from the options.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_ONNXIMPORTER_H
#define PASSES_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <string>

namespace mlir::dist {

struct OnnxImportOptions {
  /// Full static shapes for inputs exported with dynamic axes, by input name.
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// Inputs fixed to a value known at import time, by input name: the path
  /// of a serialized ONNX TensorProto (`.pb`). Such an input is not a
  /// function argument; shape operands passed as inputs fold away.
  llvm::StringMap<std::string> boundInputs;
  /// The model is imported to be trained (or differentiated): warn when the
  /// file shows the signs of an eval-mode export, and when its
  /// `dist.trainable` list names tensors it does not have.
  bool forTraining = false;
  /// What the exporter's merges of equal folded weight copies are
  /// (MergedInitializers::ambiguous): one weight used several times
  /// (Shared: kept one tensor) or separate weights (Separate: untied). In
  /// training, Unknown refuses such a file.
  enum class FoldedCopies { Unknown, Shared, Separate };
  FoldedCopies foldedCopies = FoldedCopies::Unknown;
  /// nn.Embedding's padding_idx by embedding table (parameter) name, on top
  /// of the file's `dist.padding_idx` metadata: lookups of that row give it
  /// no gradient (dist.gather's padding_idx). Negative counts from the end.
  llvm::StringMap<int64_t> paddingIdx;
};

/// Parses one `--padding-idx` value, `NAME=ROW`, into `options`. On failure
/// returns a message saying what is wrong.
std::optional<std::string> parsePaddingIdx(llvm::StringRef spec,
                                           OnnxImportOptions &options);

/// Parses one `--input-shape` value, `NAME=8x128` (a 0-d input is `NAME=`),
/// into `options`. On failure returns a message saying what is wrong.
std::optional<std::string> parseInputShape(llvm::StringRef spec,
                                           OnnxImportOptions &options);

/// Parses one `--bind-input` value, `NAME=PATH.pb`, into `options`. On failure
/// returns a message saying what is wrong.
std::optional<std::string> parseBoundInput(llvm::StringRef spec,
                                           OnnxImportOptions &options);

/// Whether the file looks like an ONNX model: a `.onnx` extension, or content
/// that starts like a serialized ModelProto and is not MLIR text or bytecode.
bool looksLikeOnnx(llvm::MemoryBufferRef buffer, llvm::StringRef filename);

/// What a model file given to dist-opt or dist-compile is.
enum class ModelFileKind { Onnx, MlirText, MlirBytecode };
ModelFileKind classifyModelFile(llvm::MemoryBufferRef buffer,
                                llvm::StringRef filename);

/// The tools' shared reading of their input flags: parses the
/// `--input-shape` and `--bind-input` values into `options` for an ONNX
/// model, and refuses them on MLIR input and MLIR bytecode altogether (the
/// bytecode reader can crash on a damaged file). Returns the message for
/// the user, which names the file or the flag.
std::optional<std::string>
readModelInputFlags(ModelFileKind kind, llvm::StringRef filename,
                    llvm::ArrayRef<std::string> inputShapes,
                    llvm::ArrayRef<std::string> boundInputs,
                    OnnxImportOptions &options);

/// Imports the model in `buffer`, read from `filename` (whose folder holds
/// any external data files). Errors go to `context`'s diagnostic handler at a
/// location naming the file and the ONNX node; returns null after an error.
OwningOpRef<ModuleOp>
importOnnxModel(std::unique_ptr<llvm::MemoryBuffer> buffer,
                llvm::StringRef filename, MLIRContext *context,
                const OnnxImportOptions &options);

} // namespace mlir::dist

#endif // PASSES_IMPORT_ONNXIMPORTER_H
