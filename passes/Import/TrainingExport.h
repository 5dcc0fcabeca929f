//===- TrainingExport.h - What an export did to a model's weights -*- C++
//-*-===//
//
// PyTorch's default ONNX export (eval mode, constant folding) changes the
// weights a trainer sees: initializers of equal value are merged into one
// and the others become Identity nodes of it, weights are folded into
// renamed copies (`onnx::MatMul_546`, a transposed `wte`), batch norm is
// folded into convolutions and dropout disappears. The importer undoes the
// merges (each name is its own parameter again) and, for training, reports
// the signs of such an export. A file may also say which initializers are
// trained (`dist.trainable` in its metadata, written by our export helper
// from `named_parameters()`); the others are buffers.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_TRAININGEXPORT_H
#define PASSES_IMPORT_TRAININGEXPORT_H

#include <onnx/onnx_pb.h>

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir::dist::onnx_import {

/// The exporter's merges of initializers of equal value, and what the
/// import made of them.
struct MergedInitializers {
  /// Made initializers of their own again: "<new> (from <source>)".
  llvm::SmallVector<std::string> untied;
  /// Merges of two folded copies (both named `onnx::...`): one weight used
  /// twice (each use folds its own copy) or equal copies of separate
  /// weights (layers cloned by copy.deepcopy); the file cannot say which.
  /// "<copy> (from <source>)"; also in `untied` unless kept tied.
  llvm::SmallVector<std::string> ambiguous;
  bool foldedCopiesTied = false;
};

/// Turns every Identity node (or chain of them) whose input is a float
/// initializer into an initializer of its own, named as the Identity's
/// output and holding a copy of the data, and drops the node; with
/// `tieFoldedCopies`, a merge of two folded copies stays (one tensor).
/// A parameter's name in an Identity is a parameter of its own: PyTorch
/// exports a weight the model shares as one initializer, without Identity.
MergedInitializers untieMergedInitializers(onnx::GraphProto &graph,
                                           bool tieFoldedCopies);

/// Ties weights back that constant folding untied: a 2-D float initializer
/// named `onnx::...` whose data is exactly the transpose of another
/// initializer (GPT-2's head `onnx::MatMul_546`, a folded `wte` transposed)
/// is replaced by a Transpose node of that initializer, so both uses train
/// one tensor again. Only a copy with exactly one such parameter, that is
/// not its own transpose nor of one repeated value, and that is not also a
/// graph input. Returns them as "<copy> (wte transposed)".
llvm::SmallVector<std::string> retieFoldedTransposes(onnx::GraphProto &graph);

/// The error for training a file whose `ambiguous` merges (from
/// untieMergedInitializers) the user has not resolved: what they may be,
/// and the two ways out (a training export, or --folded-copies).
std::string ambiguousMergesError(llvm::ArrayRef<std::string> ambiguous);

/// What suggests the file is not a training export, one sentence each:
/// `merged` (from untieMergedInitializers), `retied` (from
/// retieFoldedTransposes), the other float initializers named
/// `onnx::...` (copies the exporter folded from weights), batch norms in
/// inference mode.
llvm::SmallVector<std::string>
evalExportSigns(const onnx::GraphProto &graph,
                const MergedInitializers &merged,
                llvm::ArrayRef<std::string> retied);

/// The `dist.trainable` metadata entry: a JSON list of the names of the
/// trained initializers. None when absent; an error message when malformed.
struct TrainableList {
  std::optional<llvm::StringSet<>> names;
  std::string error;
};
TrainableList readTrainableList(const onnx::ModelProto &model);

/// The `dist.padding_idx` metadata entry (python/dist_export.py): a JSON
/// object from an embedding table's name to nn.Embedding's padding_idx,
/// added to `rows`. An error message when malformed.
std::optional<std::string>
readPaddingIdx(const onnx::ModelProto &model, llvm::StringMap<int64_t> &rows);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_TRAININGEXPORT_H
