//===- TrainingExport.cpp - What an export did to a model's weights -------===//

#include "passes/Import/TrainingExport.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstring>

using namespace mlir::dist::onnx_import;

static bool isFloatType(int onnxType) {
  return onnxType == onnx::TensorProto_DataType_FLOAT ||
         onnxType == onnx::TensorProto_DataType_FLOAT16 ||
         onnxType == onnx::TensorProto_DataType_BFLOAT16 ||
         onnxType == onnx::TensorProto_DataType_DOUBLE;
}

/// Removes the entries at `indices` (increasing) from `field`, keeping the
/// others in order.
template <typename T>
static void removeEntries(google::protobuf::RepeatedPtrField<T> &field,
                          llvm::ArrayRef<int> indices) {
  if (indices.empty())
    return;
  google::protobuf::RepeatedPtrField<T> kept;
  size_t next = 0;
  for (auto [i, entry] : llvm::enumerate(field)) {
    if (next < indices.size() && indices[next] == static_cast<int>(i)) {
      ++next;
      continue;
    }
    *kept.Add() = std::move(entry);
  }
  field.Swap(&kept);
}

MergedInitializers
mlir::dist::onnx_import::untieMergedInitializers(onnx::GraphProto &graph,
                                                 bool tieFoldedCopies) {
  // Names any tensor of the graph already has: an Identity output that is
  // also a graph input or another initializer is left alone, and so is one
  // that is a graph output (the exporter returns an initializer that way).
  llvm::StringMap<int> floatInitializers;
  llvm::StringSet<> taken;
  for (const onnx::ValueInfoProto &output : graph.output())
    taken.insert(output.name());
  for (auto [i, init] : llvm::enumerate(graph.initializer())) {
    taken.insert(init.name());
    if (isFloatType(init.data_type()))
      floatInitializers[init.name()] = static_cast<int>(i);
  }
  for (const onnx::ValueInfoProto &input : graph.input())
    taken.insert(input.name());
  MergedInitializers merged;
  merged.foldedCopiesTied = tieFoldedCopies;
  llvm::SmallVector<int> dropped;
  auto isFoldedCopy = [](llvm::StringRef name) {
    return name.starts_with("onnx::");
  };
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    if (node.op_type() != "Identity" ||
        (!node.domain().empty() && node.domain() != "ai.onnx") ||
        node.input_size() != 1 || node.output_size() != 1 ||
        node.output(0).empty() || taken.contains(node.output(0)))
      continue;
    auto source = floatInitializers.find(node.input(0));
    if (source == floatInitializers.end())
      continue;
    std::string merge = node.output(0) + " (from " + node.input(0) + ")";
    if (isFoldedCopy(node.output(0)) && isFoldedCopy(node.input(0))) {
      merged.ambiguous.push_back(merge);
      if (tieFoldedCopies)
        continue;
    }
    // Nodes are in topological order, so a chain resolves link by link.
    onnx::TensorProto copy = graph.initializer(source->second);
    copy.set_name(node.output(0));
    *graph.add_initializer() = std::move(copy);
    floatInitializers[node.output(0)] = graph.initializer_size() - 1;
    taken.insert(node.output(0));
    merged.untied.push_back(merge);
    dropped.push_back(static_cast<int>(i));
  }
  removeEntries(*graph.mutable_node(), dropped);
  return merged;
}

/// The bytes of a float initializer held in the file itself, or null
/// (external data, or a typed field this does not read).
static llvm::StringRef tensorBytes(const onnx::TensorProto &t) {
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    return {};
  if (!t.raw_data().empty())
    return t.raw_data();
  if (t.data_type() == onnx::TensorProto_DataType_FLOAT && t.float_data_size())
    return {reinterpret_cast<const char *>(t.float_data().data()),
            t.float_data_size() * sizeof(float)};
  if (t.data_type() == onnx::TensorProto_DataType_DOUBLE &&
      t.double_data_size())
    return {reinterpret_cast<const char *>(t.double_data().data()),
            t.double_data_size() * sizeof(double)};
  return {};
}

static size_t elementBytes(int onnxType) {
  return onnxType == onnx::TensorProto_DataType_DOUBLE  ? 8
         : onnxType == onnx::TensorProto_DataType_FLOAT ? 4
                                                        : 2;
}

/// Whether `copy` ([r, c]) holds exactly the transpose of `source` ([c, r]).
static bool isTransposeOf(const onnx::TensorProto &copy,
                          const onnx::TensorProto &source) {
  if (copy.data_type() != source.data_type() || copy.dims_size() != 2 ||
      source.dims_size() != 2 || copy.dims(0) != source.dims(1) ||
      copy.dims(1) != source.dims(0))
    return false;
  llvm::StringRef a = tensorBytes(copy), b = tensorBytes(source);
  size_t e = elementBytes(copy.data_type());
  int64_t rows = copy.dims(0), cols = copy.dims(1);
  if (a.empty() || a.size() != b.size() ||
      a.size() != static_cast<size_t>(rows * cols) * e)
    return false;
  // A tensor of one repeated value (zeros) matches any such tensor: no sign
  // of a tie.
  bool uniform = true;
  for (size_t k = e; k < a.size() && uniform; k += e)
    uniform = std::memcmp(a.data(), a.data() + k, e) == 0;
  if (uniform)
    return false;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (std::memcmp(a.data() + (i * cols + j) * e,
                      b.data() + (j * rows + i) * e, e) != 0)
        return false;
  return true;
}

llvm::SmallVector<std::string>
mlir::dist::onnx_import::retieFoldedTransposes(onnx::GraphProto &graph) {
  llvm::SmallVector<std::string> retied;
  llvm::SmallVector<onnx::NodeProto> transposes;
  llvm::SmallVector<int> dropped;
  // A copy also listed as a graph input (keep_initializers_as_inputs)
  // stays: its name is an input's too.
  llvm::StringSet<> inputs;
  for (const onnx::ValueInfoProto &input : graph.input())
    inputs.insert(input.name());
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const onnx::TensorProto &copy = graph.initializer(i);
    if (!isFloatType(copy.data_type()) ||
        !llvm::StringRef(copy.name()).starts_with("onnx::") ||
        copy.dims_size() != 2 || inputs.contains(copy.name()) ||
        isTransposeOf(copy, copy)) // symmetric: no sign of which it is
      continue;
    // Exactly one parameter must match; two (equal weights) are ambiguous.
    int match = -1, matches = 0;
    for (int j = 0; j < graph.initializer_size() && matches < 2; ++j) {
      const onnx::TensorProto &source = graph.initializer(j);
      if (i != j && !llvm::StringRef(source.name()).starts_with("onnx::") &&
          isTransposeOf(copy, source)) {
        match = j;
        ++matches;
      }
    }
    if (matches == 1) {
      const onnx::TensorProto &source = graph.initializer(match);
      onnx::NodeProto node;
      node.set_op_type("Transpose");
      node.set_name(copy.name() + " (tied to " + source.name() + ")");
      node.add_input(source.name());
      node.add_output(copy.name());
      onnx::AttributeProto *perm = node.add_attribute();
      perm->set_name("perm");
      perm->set_type(onnx::AttributeProto_AttributeType_INTS);
      perm->add_ints(1);
      perm->add_ints(0);
      transposes.push_back(std::move(node));
      retied.push_back(copy.name() + " (" + source.name() + " transposed)");
      dropped.push_back(i);
    }
  }
  if (dropped.empty())
    return retied;
  // The copies leave the initializers; their Transpose nodes come first.
  removeEntries(*graph.mutable_initializer(), dropped);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (onnx::NodeProto &node : transposes)
    *nodes.Add() = std::move(node);
  for (onnx::NodeProto &node : *graph.mutable_node())
    *nodes.Add() = std::move(node);
  graph.mutable_node()->Swap(&nodes);
  return retied;
}

/// "a, b, c and 4 more".
static std::string someOf(llvm::ArrayRef<std::string> names) {
  std::string text;
  size_t shown = std::min<size_t>(names.size(), 3);
  for (size_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") + names[i];
  if (names.size() > shown)
    text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

std::string mlir::dist::onnx_import::ambiguousMergesError(
    llvm::ArrayRef<std::string> ambiguous) {
  return "the exporter merged " + std::to_string(ambiguous.size()) +
         " weight copies it folded with others of equal value (" +
         someOf(ambiguous) +
         "): each is either one weight the model uses more than once (a "
         "layer applied twice, ALBERT's shared layers: each use folds its "
         "own copy) or a copy of a separate weight that happens to be equal "
         "(layers cloned with copy.deepcopy, as nn.TransformerEncoder "
         "does). The file cannot say which, and training one as the other "
         "is not what PyTorch trains. Export for training with "
         "torch.onnx.export(..., training=torch.onnx.TrainingMode.TRAINING, "
         "do_constant_folding=False) (python/dist_export.py), or say which "
         "with --folded-copies=shared or --folded-copies=separate";
}

llvm::SmallVector<std::string>
mlir::dist::onnx_import::evalExportSigns(const onnx::GraphProto &graph,
                                         const MergedInitializers &merged,
                                         llvm::ArrayRef<std::string> retied) {
  llvm::SmallVector<std::string> signs;
  if (!merged.untied.empty())
    signs.push_back(
        std::to_string(merged.untied.size()) +
        " parameters were merged by the exporter with others of equal value "
        "(Identity nodes; untied again on import: " +
        someOf(merged.untied) + ")");
  if (merged.foldedCopiesTied && !merged.ambiguous.empty())
    signs.push_back(std::to_string(merged.ambiguous.size()) +
                    " folded copies merged by the exporter are kept as one "
                    "tensor (--folded-copies=shared: " +
                    someOf(merged.ambiguous) + ")");
  if (!retied.empty())
    signs.push_back(std::to_string(retied.size()) +
                    " tied parameters were folded apart by the exporter into "
                    "transposed copies (tied again on import: " +
                    someOf(retied) + ")");
  std::vector<std::string> folded;
  bool foldedIntoConv = false;
  for (const onnx::TensorProto &init : graph.initializer())
    if (isFloatType(init.data_type()) &&
        llvm::StringRef(init.name()).starts_with("onnx::")) {
      folded.push_back(init.name());
      foldedIntoConv |= llvm::StringRef(init.name()).starts_with("onnx::Conv");
    }
  if (!folded.empty())
    signs.push_back(std::to_string(folded.size()) +
                    " float initializers are copies the exporter folded "
                    "from parameters (" +
                    someOf(folded) + "); they are trained under those names" +
                    (foldedIntoConv ? ", and batch norm folded into "
                                      "convolution weights is not trained as "
                                      "batch norm"
                                    : ""));
  std::vector<std::string> inference;
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "BatchNormalization")
      continue;
    bool training = node.output_size() > 1;
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == "training_mode")
        training = attr.i() != 0;
    if (!training)
      inference.push_back(node.name());
  }
  if (!inference.empty())
    signs.push_back(std::to_string(inference.size()) +
                    " BatchNormalization nodes use their running statistics "
                    "(eval mode: " +
                    someOf(inference) + ")");
  return signs;
}

TrainableList
mlir::dist::onnx_import::readTrainableList(const onnx::ModelProto &model) {
  TrainableList result;
  for (const onnx::StringStringEntryProto &entry : model.metadata_props()) {
    if (entry.key() != "dist.trainable")
      continue;
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(entry.value());
    const llvm::json::Array *list = value ? value->getAsArray() : nullptr;
    if (!value)
      llvm::consumeError(value.takeError());
    if (!list) {
      result.error = "its metadata 'dist.trainable' is not a JSON list of "
                     "parameter names";
      return result;
    }
    llvm::StringSet<> names;
    for (const llvm::json::Value &name : *list) {
      std::optional<llvm::StringRef> text = name.getAsString();
      if (!text) {
        result.error = "its metadata 'dist.trainable' holds a non-string";
        return result;
      }
      names.insert(*text);
    }
    result.names = std::move(names);
  }
  return result;
}

std::optional<std::string>
mlir::dist::onnx_import::readPaddingIdx(const onnx::ModelProto &model,
                                        llvm::StringMap<int64_t> &rows) {
  for (const onnx::StringStringEntryProto &entry : model.metadata_props()) {
    if (entry.key() != "dist.padding_idx")
      continue;
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(entry.value());
    if (!value) {
      llvm::consumeError(value.takeError());
      return std::string("its metadata 'dist.padding_idx' is not JSON");
    }
    const llvm::json::Object *table = value->getAsObject();
    if (!table)
      return std::string("its metadata 'dist.padding_idx' is not a JSON "
                         "object of table names and row numbers");
    for (const auto &[name, row] : *table) {
      std::optional<int64_t> index = row.getAsInteger();
      if (!index)
        return "its metadata 'dist.padding_idx' gives '" + name.str() +
               "' a row that is not an integer";
      rows[name.str()] = *index;
    }
  }
  return std::nullopt;
}
