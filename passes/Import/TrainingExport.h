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

/// Turns every Identity node (or chain of them) whose input is a float
/// initializer into an initializer of its own, named as the Identity's
/// output and holding a copy of the data, and drops the node. Returns the
/// names made so, as "<new> (from <source>)". A tie the model really has
/// (one tensor used twice) has no Identity and stays.
llvm::SmallVector<std::string> untieMergedInitializers(onnx::GraphProto &graph);

/// Ties weights back that constant folding untied: a 2-D float initializer
/// named `onnx::...` whose data is exactly the transpose of another
/// initializer (GPT-2's head `onnx::MatMul_546`, a folded `wte` transposed)
/// is replaced by a Transpose node of that initializer, so both uses train
/// one tensor again. Only a copy with exactly one such parameter, that is
/// not its own transpose nor of one repeated value, and that is not also a
/// graph input. Returns them as "<copy> (wte transposed)".
llvm::SmallVector<std::string> retieFoldedTransposes(onnx::GraphProto &graph);

/// What suggests the file is not a training export, one sentence each:
/// `untied` (from untieMergedInitializers), `retied` (from
/// retieFoldedTransposes), the other float initializers named
/// `onnx::...` (copies the exporter folded from weights), batch norms in
/// inference mode.
llvm::SmallVector<std::string>
evalExportSigns(const onnx::GraphProto &graph,
                llvm::ArrayRef<std::string> untied,
                llvm::ArrayRef<std::string> retied);

/// The `dist.trainable` metadata entry: a JSON list of the names of the
/// trained initializers. None when absent; an error message when malformed.
struct TrainableList {
  std::optional<llvm::StringSet<>> names;
  std::string error;
};
TrainableList readTrainableList(const onnx::ModelProto &model);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_TRAININGEXPORT_H
