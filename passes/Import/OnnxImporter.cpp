//===- OnnxImporter.cpp - ONNX models into the dist dialect ---------------===//

#include "passes/Import/OnnxImporter.h"
#include "passes/Import/NodeImporter.h"
#include "passes/Import/OnnxSchema.h"
#include "passes/Import/TrainingExport.h"

#include "dialects/Dist/IR/DistParameters.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// The ONNX opsets the Debian ONNX library (1.12) defines.
static constexpr int64_t kMinOpset = 1, kMaxOpset = 17;

/// Ops whose early versions mean something else than the converters
/// implement, with the first version they do implement: legacy broadcasting
/// (`broadcast`/`axis` attributes before 7), Reshape's shape attribute
/// (before 5), Concat's default axis (before 4), Dropout's `is_test` (before
/// 7), Cast's string `to` (before 6), Split's `split` input (before 2),
/// BatchNormalization's `spatial` and `is_test` (before 7), Pad's
/// `paddings` attribute (before 2).
static int firstSupportedVersion(StringRef opType) {
  return llvm::StringSwitch<int>(opType)
      .Cases({"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less",
              "And", "Or", "Xor", "Gemm", "PRelu", "Dropout",
              "BatchNormalization"},
             7)
      .Case("Cast", 6)
      .Case("Reshape", 5)
      .Case("Concat", 4)
      .Case("Split", 2)
      .Case("Pad", 2)
      .Default(1);
}

/// Constants of at most this many elements stay inline (shape arithmetic,
/// masks of small models); larger ones are resource blobs.
static constexpr int64_t kInlineConstantLimit = 64;

std::optional<std::string>
mlir::dist::parseInputShape(StringRef spec, OnnxImportOptions &options) {
  auto [name, dims] = spec.split('=');
  if (name.empty() || !spec.contains('='))
    return "expected NAME=DIMS (for example idx=8x128), got '" + spec.str() +
           "'";
  SmallVector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d <= 0)
        return "dimension '" + part.str() + "' of '" + spec.str() +
               "' is not a positive integer";
      shape.push_back(d);
    }
  }
  options.inputShapes[name] = shape;
  return std::nullopt;
}

std::optional<std::string>
mlir::dist::parsePaddingIdx(StringRef spec, OnnxImportOptions &options) {
  auto [name, row] = spec.split('=');
  int64_t index;
  if (name.empty() || !spec.contains('=') || row.getAsInteger(10, index))
    return "expected TABLE=ROW (an embedding table's parameter name and "
           "nn.Embedding's padding_idx, for example "
           "embeddings.word_embeddings.weight=1), got '" +
           spec.str() + "'";
  options.paddingIdx[name] = index;
  return std::nullopt;
}

std::optional<std::string>
mlir::dist::parseBoundInput(StringRef spec, OnnxImportOptions &options) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return "expected NAME=FILE.pb (a serialized ONNX TensorProto), got '" +
           spec.str() + "'";
  options.boundInputs[name] = path.str();
  return std::nullopt;
}

bool mlir::dist::looksLikeOnnx(llvm::MemoryBufferRef buffer,
                               StringRef filename) {
  if (llvm::sys::path::extension(filename) == ".onnx")
    return true;
  // A serialized ModelProto starts with field 1 (ir_version, a varint): 0x08.
  // MLIR text starts with printable characters, bytecode with "ML\xefR".
  StringRef data = buffer.getBuffer();
  return !data.empty() && data[0] == 0x08;
}

namespace {

/// Imports one model; owns the state shared by all nodes.
class ModelImporter {
public:
  ModelImporter(MLIRContext *context, StringRef filename,
                const OnnxImportOptions &options)
      : context(context), filename(filename), options(options),
        builder(context),
        fileLoc(FileLineColLoc::get(context, filename, 0, 0)) {}

  /// Imports `model`, releasing each weight's data from it once converted.
  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);

private:
  LogicalResult readOpset(const onnx::ModelProto &model);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &input);
  LogicalResult bindInput(const onnx::ValueInfoProto &input,
                          RankedTensorType declared, StringRef path);
  LogicalResult checkOptionNames(const onnx::GraphProto &graph);
  void inferShapes(onnx::ModelProto &model,
                   const llvm::StringMap<RankedTensorType> &inputTypes);
  LogicalResult checkInferredTypes(const onnx::NodeProto &node, Location loc);
  LogicalResult reportExport(onnx::ModelProto &model);
  LogicalResult importInitializers(onnx::GraphProto &graph,
                                   SmallVectorImpl<Type> &argTypes,
                                   SmallVectorImpl<ParameterOp> &params);
  LogicalResult importNode(const onnx::NodeProto &node, int index);
  LogicalResult markPaddingRows(const onnx::ModelProto &model);
  Location nodeLoc(const onnx::NodeProto &node, int index);

  MLIRContext *context;
  std::string filename;
  const OnnxImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  int64_t opset = 0;
  ConverterTable converters;
  llvm::StringMap<ImportedValue> values;
  NodeImporter::ConsumerMap consumers;
  /// Static types the model declares for its outputs, and those ONNX shape
  /// inference gives the graph's tensors.
  llvm::StringMap<RankedTensorType> declaredTypes, inferredTypes;
  /// The dynamic dimensions --input-shape sized ("'batch' of 'x' = 8"), for
  /// the hint after a node fails.
  SmallVector<std::string> sizedDynamicDims;
  /// The initializers the file says are trained (`dist.trainable`), if any.
  std::optional<llvm::StringSet<>> trainable;
  ModuleOp module;
};

} // namespace

LogicalResult ModelImporter::readOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      opset = id.version();
  if (opset == 0) {
    InFlightDiagnostic diag = emitError(fileLoc)
                              << "the model imports no default-domain ONNX "
                                 "opset, and only default-domain ops are "
                                 "supported";
    if (model.opset_import_size() == 0)
      diag << "; is this an ONNX model?";
    else
      diag << " (it imports:";
    for (const onnx::OperatorSetIdProto &id : model.opset_import())
      diag << " " << id.domain() << " " << id.version();
    if (model.opset_import_size() != 0)
      diag << ")";
    return diag;
  }
  if (opset < kMinOpset || opset > kMaxOpset)
    return emitError(fileLoc)
           << "ONNX opset " << opset
           << " is not supported (supported: " << kMinOpset << " to "
           << kMaxOpset << "); re-export with opset_version in that range";
  return success();
}

FailureOr<RankedTensorType>
ModelImporter::inputType(const onnx::ValueInfoProto &input) {
  auto fail = [&]() {
    return emitError(fileLoc) << "model input '" << input.name() << "' ";
  };
  if (!input.type().has_tensor_type())
    return fail() << "is not a tensor", failure();
  const onnx::TypeProto_Tensor &tensor = input.type().tensor_type();
  Type elementType = convertElementType(context, tensor.elem_type());
  if (!elementType)
    return fail() << "has an unsupported element type (ONNX type "
                  << tensor.elem_type() << ")",
           failure();
  SmallVector<int64_t> declared;
  for (const onnx::TensorShapeProto_Dimension &dim : tensor.shape().dim())
    declared.push_back(dim.has_dim_value() && dim.dim_value() > 0
                           ? dim.dim_value()
                           : ShapedType::kDynamic);
  // A bound input takes its shape from its value.
  if (options.boundInputs.count(input.name()))
    return RankedTensorType::get(declared, elementType);
  auto given = options.inputShapes.find(input.name());
  SmallVector<int64_t> shape;
  for (auto [axis, dim] : llvm::enumerate(tensor.shape().dim())) {
    if (dim.has_dim_value() && dim.dim_value() > 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    if (given == options.inputShapes.end()) {
      InFlightDiagnostic diag = fail() << "has dynamic dimension ";
      if (dim.has_dim_param())
        diag << "'" << dim.dim_param() << "' ";
      diag << "(axis " << axis << "); give its size with --input-shape "
           << input.name() << "=<d0>x<d1>x...";
      return failure();
    }
    shape.push_back(ShapedType::kDynamic);
  }
  if (given != options.inputShapes.end()) {
    ArrayRef<int64_t> sizes = given->second;
    if (sizes.size() != shape.size())
      return fail() << "has rank " << shape.size()
                    << " but --input-shape gives " << sizes.size()
                    << " dimensions",
             failure();
    for (auto [axis, dims] : llvm::enumerate(llvm::zip(shape, sizes))) {
      auto [declared, wanted] = dims;
      if (declared != ShapedType::kDynamic && declared != wanted)
        return fail() << "has size " << declared << " on axis " << axis
                      << " but --input-shape gives " << wanted,
               failure();
      if (declared == ShapedType::kDynamic) {
        const onnx::TensorShapeProto_Dimension &dim =
            tensor.shape().dim(static_cast<int>(axis));
        std::string name = dim.has_dim_param()
                               ? "'" + dim.dim_param() + "'"
                               : "axis " + std::to_string(axis);
        sizedDynamicDims.push_back(name + " of '" + input.name() +
                                   "' = " + std::to_string(wanted));
      }
    }
    shape.assign(sizes.begin(), sizes.end());
  }
  return RankedTensorType::get(shape, elementType);
}

LogicalResult ModelImporter::bindInput(const onnx::ValueInfoProto &input,
                                       RankedTensorType declared,
                                       StringRef path) {
  auto fail = [&]() {
    return emitError(fileLoc)
           << "--bind-input " << input.name() << "=" << path << ": ";
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file)
    return fail() << file.getError().message();
  onnx::TensorProto tensor;
  if ((*file)->getBufferSize() > static_cast<size_t>(INT32_MAX) ||
      !tensor.ParseFromArray((*file)->getBufferStart(),
                             static_cast<int>((*file)->getBufferSize())))
    return fail() << "not a serialized ONNX TensorProto";
  FailureOr<ElementsAttr> data =
      convertTensor(tensor, context, llvm::sys::path::parent_path(path),
                    /*asResource=*/false, input.name(), fail);
  if (failed(data))
    return failure();
  auto type = cast<RankedTensorType>(data->getType());
  bool hasShape = input.type().tensor_type().has_shape();
  bool compatible = type.getElementType() == declared.getElementType() &&
                    (!hasShape || type.getRank() == declared.getRank());
  for (auto [have, want] : llvm::zip(type.getShape(), declared.getShape()))
    compatible &= want == ShapedType::kDynamic || have == want;
  if (!compatible)
    return fail() << "the tensor is " << type << " but the model declares "
                  << declared << " ('?' for a dynamic axis)";
  values[input.name()] = {{}, cast<DenseElementsAttr>(*data)};
  return success();
}

LogicalResult ModelImporter::checkOptionNames(const onnx::GraphProto &graph) {
  llvm::StringSet<> inputs;
  for (const onnx::ValueInfoProto &input : graph.input())
    inputs.insert(input.name());
  auto check = [&](StringRef flag, StringRef name) -> LogicalResult {
    if (inputs.contains(name))
      return success();
    InFlightDiagnostic diag = emitError(fileLoc)
                              << flag << " names '" << name
                              << "', which is not a model input; inputs:";
    for (const onnx::ValueInfoProto &input : graph.input())
      diag << " '" << input.name() << "'";
    return diag;
  };
  for (const auto &entry : options.inputShapes)
    if (failed(check("--input-shape", entry.getKey())))
      return failure();
  for (const auto &entry : options.boundInputs)
    if (failed(check("--bind-input", entry.getKey())))
      return failure();
  return success();
}

void ModelImporter::inferShapes(
    onnx::ModelProto &model,
    const llvm::StringMap<RankedTensorType> &inputTypes) {
  // Inference starts from the inputs' final static shapes.
  for (onnx::ValueInfoProto &input : *model.mutable_graph()->mutable_input()) {
    auto type = inputTypes.find(input.name());
    if (type == inputTypes.end() || !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    onnx::TensorShapeProto *shape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : type->second.getShape())
      shape->add_dim()->set_dim_value(d);
  }
  auto record = [&](const onnx::ValueInfoProto &info,
                    llvm::StringMap<RankedTensorType> &into) {
    if (!info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape())
      return;
    const onnx::TypeProto_Tensor &tensor = info.type().tensor_type();
    Type elementType = convertElementType(context, tensor.elem_type());
    SmallVector<int64_t> shape;
    for (const onnx::TensorShapeProto_Dimension &dim : tensor.shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0)
        return;
      shape.push_back(dim.dim_value());
    }
    if (elementType)
      into[info.name()] = RankedTensorType::get(shape, elementType);
  };
  for (const onnx::ValueInfoProto &info : model.graph().output())
    record(info, declaredTypes);
  // A model ONNX cannot infer is not wrong for that: there is just less to
  // cross-check.
  (void)inferOnnxShapes(model);
  for (const onnx::ValueInfoProto &info : model.graph().value_info())
    record(info, inferredTypes);
}

LogicalResult ModelImporter::checkInferredTypes(const onnx::NodeProto &node,
                                                Location loc) {
  for (const std::string &out : node.output()) {
    auto value = values.find(out);
    if (out.empty() || value == values.end())
      continue;
    Type built = value->second.value ? value->second.value.getType()
                                     : value->second.constant.getType();
    auto declared = declaredTypes.find(out);
    if (declared != declaredTypes.end() && built != declared->second)
      return emitError(loc) << "the model declares output '" << out << "' as "
                            << declared->second << ", but node '" << node.name()
                            << "' computes " << built;
    auto inferred = inferredTypes.find(out);
    if (inferred != inferredTypes.end() && built != inferred->second)
      return emitError(loc)
             << "internal error: the importer built " << built
             << " for output '" << out << "' of node '" << node.name()
             << "', but ONNX shape inference gives " << inferred->second
             << "; please report this model";
  }
  return success();
}

/// Undoes the exporter's merges of equal initializers, reads the trainable
/// list, and for training warns about what an eval-mode export changed.
LogicalResult ModelImporter::reportExport(onnx::ModelProto &model) {
  onnx::GraphProto &graph = *model.mutable_graph();
  TrainableList list = readTrainableList(model);
  if (!list.error.empty())
    return emitError(fileLoc) << list.error;
  // A file with a trainable list is a training export, which never merges
  // or folds weights by value: its Identity nodes and copies are the
  // model's own.
  MergedInitializers merged;
  SmallVector<std::string> retied;
  if (!list.names) {
    merged = untieMergedInitializers(
        graph, options.foldedCopies == OnnxImportOptions::FoldedCopies::Shared);
    retied = retieFoldedTransposes(graph);
  }
  trainable = std::move(list.names);
  if (!options.forTraining)
    return success();
  if (!merged.ambiguous.empty() &&
      options.foldedCopies == OnnxImportOptions::FoldedCopies::Unknown)
    return emitError(fileLoc) << ambiguousMergesError(merged.ambiguous);
  SmallVector<std::string> signs = evalExportSigns(graph, merged, retied);
  if (!signs.empty()) {
    InFlightDiagnostic diag =
        emitWarning(fileLoc)
        << "this looks like an eval-mode export (PyTorch's default), which "
           "is not the model PyTorch trains: ";
    llvm::interleave(signs, diag, "; ");
    diag << ". For training, export with torch.onnx.export(..., "
            "training=torch.onnx.TrainingMode.TRAINING, "
            "do_constant_folding=False), e.g. with python/dist_export.py";
  }
  if (!trainable && signs.empty())
    emitRemark(fileLoc)
        << "no 'dist.trainable' list (python/dist_export.py writes one): "
           "every float initializer but batch-norm statistics is trained, "
           "including any the module does not train (parameters with "
           "requires_grad=False, float buffers); keep those frozen with "
           "--frozen=NAME,... or export with the helper";
  if (trainable) {
    llvm::StringSet<> initializers;
    for (const onnx::TensorProto &init : graph.initializer())
      initializers.insert(init.name());
    SmallVector<std::string> missing;
    for (const auto &name : *trainable)
      if (!initializers.contains(name.getKey()))
        missing.push_back(name.getKey().str());
    llvm::sort(missing);
    if (!missing.empty()) {
      InFlightDiagnostic diag =
          emitWarning(fileLoc)
          << "its 'dist.trainable' list names " << missing.size()
          << " parameters the file has no initializer for (the exporter "
             "renamed, folded or tied them):";
      for (const std::string &name : missing)
        diag << " '" << name << "'";
    }
  }
  return success();
}

/// Initializers used only as batch-norm statistics are buffers, not weights.
static llvm::StringSet<> findFrozen(const onnx::GraphProto &graph) {
  llvm::StringSet<> statistics, other;
  for (const onnx::NodeProto &node : graph.node())
    for (auto [i, name] : llvm::enumerate(node.input())) {
      bool isStatistic =
          node.op_type() == "BatchNormalization" && (i == 3 || i == 4);
      (isStatistic ? statistics : other).insert(name);
    }
  llvm::StringSet<> frozen;
  for (const auto &entry : statistics)
    if (!other.contains(entry.getKey()))
      frozen.insert(entry.getKey());
  return frozen;
}

LogicalResult
ModelImporter::importInitializers(onnx::GraphProto &graph,
                                  SmallVectorImpl<Type> &argTypes,
                                  SmallVectorImpl<ParameterOp> &params) {
  StringRef baseDir = llvm::sys::path::parent_path(filename);
  llvm::StringSet<> frozen = findFrozen(graph);
  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    if (init.name().empty())
      return emitError(fileLoc)
             << "the model has an initializer without a name";
    if (values.count(init.name()))
      continue; // ONNX lets an initializer also be listed as an input.
    Type elementType = convertElementType(context, init.data_type());
    bool isWeight = elementType && isa<FloatType>(elementType);
    int64_t numElements = 1;
    for (int64_t d : init.dims())
      numElements *= std::max<int64_t>(d, 0);
    FailureOr<ElementsAttr> data = convertTensor(
        init, context, baseDir,
        /*asResource=*/isWeight || numElements > kInlineConstantLimit,
        init.name(), [&] { return emitError(fileLoc); });
    if (failed(data))
      return failure();
    // The attribute holds its own copy now: free the proto's.
    std::string().swap(*init.mutable_raw_data());
    if (!isWeight) {
      if (auto dense = dyn_cast<DenseElementsAttr>(*data))
        values[init.name()] = {{}, dense};
      else
        values[init.name()] = {
            ConstantOp::create(builder, fileLoc, *data).getResult(), {}};
      continue;
    }
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(module.getBody(), module.getBody()->end());
    auto param = ParameterOp::create(
        builder, NameLoc::get(builder.getStringAttr(init.name()), fileLoc),
        init.name(), cast<RankedTensorType>(data->getType()), *data,
        frozen.contains(init.name()) ||
            (trainable && !trainable->contains(init.name())));
    params.push_back(param);
    argTypes.push_back(data->getType());
  }
  return success();
}

Location ModelImporter::nodeLoc(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "#" + std::to_string(index)
                         : node.name();
  return NameLoc::get(builder.getStringAttr(name), fileLoc);
}

LogicalResult ModelImporter::importNode(const onnx::NodeProto &node,
                                        int index) {
  Location loc = nodeLoc(node, index);
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return emitError(loc) << "unsupported ONNX op '" << node.domain()
                          << "::" << node.op_type() << "' at node '"
                          << node.name()
                          << "': only the default domain is supported";
  for (const std::string &in : node.input())
    if (!in.empty() && !values.count(in))
      return emitError(loc)
             << "node '" << node.name() << "' reads '" << in
             << "', which no earlier node, input or initializer "
                "defines (the graph is not topologically sorted, "
                "has a cycle, or misses a tensor)";
  auto converter = converters.find(node.op_type());
  if (converter == converters.end())
    return emitError(loc) << "unsupported ONNX op '" << node.op_type()
                          << "' (opset " << opset << ") at node '"
                          << node.name() << "'";
  // Arity as the ONNX schema of this opset defines it, so converters can
  // rely on their required inputs and outputs being there.
  std::optional<OnnxSchemaInfo> arity =
      getOnnxSchemaInfo(node.op_type(), opset);
  if (arity && arity->sinceVersion < firstSupportedVersion(node.op_type()))
    return emitError(loc) << "unsupported ONNX op '" << node.op_type()
                          << "' (opset " << opset << ") at node '"
                          << node.name() << "': its version "
                          << arity->sinceVersion
                          << " is not supported; re-export with opset >= "
                          << firstSupportedVersion(node.op_type());
  if (arity) {
    auto wrongCount = [&](StringRef what, int count, int min, int max) {
      return emitError(loc) << "node '" << node.name() << "' has " << count
                            << " " << what << ", but ONNX " << node.op_type()
                            << " (opset " << opset << ") takes " << min
                            << (max == min ? "" : " to " + std::to_string(max));
    };
    if (node.input_size() < arity->minInputs ||
        node.input_size() > arity->maxInputs)
      return wrongCount("inputs", node.input_size(), arity->minInputs,
                        arity->maxInputs);
    if (node.output_size() < arity->minOutputs ||
        node.output_size() > arity->maxOutputs)
      return wrongCount("outputs", node.output_size(), arity->minOutputs,
                        arity->maxOutputs);
    // Required inputs, and every input of a variadic op, must be named.
    bool variadic = arity->maxInputs == std::numeric_limits<int>::max();
    for (int i = 0; i < (variadic ? node.input_size() : arity->minInputs); ++i)
      if (node.input(i).empty())
        return emitError(loc)
               << "node '" << node.name() << "' leaves its required input #"
               << i << " empty";
  }
  NodeImporter importer(node, opset, loc, builder, values, consumers);
  if (failed(converter->second(importer)))
    return failure();
  for (auto [i, out] : llvm::enumerate(node.output()))
    if (!out.empty() && !values.count(out))
      return emitError(loc)
             << "unsupported ONNX op '" << node.op_type() << "' (opset "
             << opset << ") at node '" << node.name() << "': output #" << i
             << " is not supported";
  return checkInferredTypes(node, loc);
}

/// Sets padding_idx on the embedding lookups of the tables the file's
/// metadata and --padding-idx name (nn.Embedding's, which ONNX drops).
LogicalResult ModelImporter::markPaddingRows(const onnx::ModelProto &model) {
  llvm::StringMap<int64_t> rows;
  if (std::optional<std::string> error = readPaddingIdx(model, rows))
    return emitError(fileLoc) << *error;
  for (const auto &entry : options.paddingIdx)
    rows[entry.getKey()] = entry.getValue();
  for (const auto &entry : rows) {
    // The helper lists every nn.Embedding; one the model never looks up
    // (unused, or its table read only otherwise) has no lookup to mask. A
    // name given on the command line must exist and be looked up.
    bool given = options.paddingIdx.contains(entry.getKey());
    StringRef name = entry.getKey();
    auto it = values.find(name);
    auto table = it == values.end()
                     ? BlockArgument()
                     : dyn_cast_or_null<BlockArgument>(it->second.value);
    SmallVector<GatherOp> lookups;
    if (table)
      for (Operation *user : table.getUsers())
        if (auto gather = dyn_cast<GatherOp>(user);
            gather && gather.getAxis() == 0 && gather.getInput() == table)
          lookups.push_back(gather);
    if (lookups.empty() && !given)
      continue;
    if (lookups.empty())
      return emitError(fileLoc)
             << "padding_idx for '" << name << "': "
             << (table ? "no embedding lookup (a Gather on axis 0) reads it"
                       : "the model has no parameter of that name");
    int64_t size = cast<RankedTensorType>(table.getType()).getDimSize(0);
    int64_t row = entry.getValue() < 0 ? entry.getValue() + size
                                       : entry.getValue();
    if (row < 0 || row >= size)
      return emitError(fileLoc)
             << "padding_idx " << entry.getValue() << " for '" << name
             << "' is not a row of its " << size << "-row table";
    for (GatherOp gather : lookups)
      gather.setPaddingIdx(static_cast<uint64_t>(row));
  }
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run(onnx::ModelProto &model) {
  if (failed(readOpset(model)))
    return {};
  onnx::GraphProto &graph = *model.mutable_graph();
  if (failed(reportExport(model)))
    return {};
  if (graph.node_size() == 0 || graph.output_size() == 0) {
    emitError(fileLoc) << "the model's graph is empty (no nodes or no outputs)";
    return {};
  }
  addElementwiseConverters(converters);
  addContractionConverters(converters);
  addEinsumConverters(converters);
  addReductionConverters(converters);
  addShapeConverters(converters);
  addConvConverters(converters);
  addActivationConverters(converters);
  addIndexingConverters(converters);
  addScatterConverters(converters);
  addLayoutConverters(converters);
  addResizeConverters(converters);
  addRecurrentConverters(converters);
  addRandomConverters(converters);

  OwningOpRef<ModuleOp> owned = ModuleOp::create(fileLoc);
  module = *owned;
  auto fn =
      func::FuncOp::create(fileLoc, "forward", builder.getFunctionType({}, {}));
  module.push_back(fn);
  Block *body = fn.addEntryBlock();
  builder.setInsertionPointToStart(body);

  // Arguments: the model inputs that are not initializers, then the weights.
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &init : graph.initializer())
    initializerNames.insert(init.name());
  SmallVector<Type> argTypes;
  SmallVector<std::string> inputNames;
  if (failed(checkOptionNames(graph)))
    return {};
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue;
    FailureOr<RankedTensorType> type = inputType(input);
    if (failed(type))
      return {};
    auto bound = options.boundInputs.find(input.name());
    if (bound != options.boundInputs.end()) {
      if (failed(bindInput(input, *type, bound->second)))
        return {};
      continue;
    }
    values[input.name()] = {body->addArgument(*type, fileLoc), {}};
    argTypes.push_back(*type);
    inputNames.push_back(input.name());
  }
  unsigned numInputs = argTypes.size();
  llvm::StringMap<RankedTensorType> inputTypes;
  for (auto [name, type] : llvm::zip(inputNames, argTypes))
    inputTypes[name] = cast<RankedTensorType>(type);
  inferShapes(model, inputTypes);
  SmallVector<ParameterOp> params;
  if (failed(importInitializers(graph, argTypes, params)))
    return {};
  for (auto [i, param] : llvm::enumerate(params))
    values[param.getSymName()] = {
        body->addArgument(argTypes[numInputs + i], param.getLoc()), {}};

  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      if (!input.empty())
        consumers[input].push_back(&node);
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, index))) {
      // A size the exporter traced into a constant (CLIP's contrastive
      // labels are torch.arange(batch)) does not follow --input-shape.
      if (!sizedDynamicDims.empty()) {
        InFlightDiagnostic hint =
            emitRemark(nodeLoc(node, static_cast<int>(index)))
            << "--input-shape sized the dynamic dimensions ";
        llvm::interleaveComma(sizedDynamicDims, hint);
        hint << "; sizes the exporter traced into constants (e.g. "
                "torch.arange(batch) as contrastive labels) keep the "
                "export's values: if the error above is such a mismatch, "
                "export the model at the sizes you train with";
      }
      return {};
    }

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    auto it = values.find(output.name());
    if (it == values.end()) {
      emitError(fileLoc) << "model output '" << output.name()
                         << "' is not computed by any node";
      return {};
    }
    if (!it->second.value)
      it->second.value =
          ConstantOp::create(builder, fileLoc, it->second.constant);
    results.push_back(it->second.value);
  }
  func::ReturnOp::create(builder, fileLoc, results);
  fn.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(inputNames))
    fn.setArgAttr(i, DistDialect::kInputNameAttrName,
                  builder.getStringAttr(name));
  for (auto [i, param] : llvm::enumerate(params))
    bindParameter(fn, numInputs + i, param);
  for (auto [i, output] : llvm::enumerate(graph.output()))
    fn.setResultAttr(i, DistDialect::kOutputNameAttrName,
                     builder.getStringAttr(output.name()));
  if (failed(markPaddingRows(model)))
    return {};
  // Parameters first, then the function, as a reader expects.
  fn->moveAfter(&module.getBody()->back());
  if (failed(verify(module)))
    return {};
  // Later passes reason about coarse ops: fold PyTorch's decompositions of
  // layer norm and GELU back (and drop what the shape sub-graphs left dead).
  RewritePatternSet patterns(context);
  populateRaiseLayerNormPatterns(patterns);
  populateRaiseGeluPatterns(patterns);
  if (failed(applyPatternsGreedily(fn, std::move(patterns))))
    return {};
  return owned;
}

OwningOpRef<ModuleOp>
mlir::dist::importOnnxModel(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            StringRef filename, MLIRContext *context,
                            const OnnxImportOptions &options) {
  context->loadDialect<DistDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, filename, 0, 0);
  onnx::ModelProto model;
  if (buffer->getBufferSize() > static_cast<size_t>(INT32_MAX) ||
      !model.ParseFromArray(buffer->getBufferStart(),
                            static_cast<int>(buffer->getBufferSize()))) {
    emitError(fileLoc)
        << "not a valid ONNX model: the file is not a "
           "serialized ModelProto, or it is truncated or corrupt";
    return {};
  }
  buffer.reset(); // The parsed model holds its own copy of the data.
  return ModelImporter(context, filename, options).run(model);
}
