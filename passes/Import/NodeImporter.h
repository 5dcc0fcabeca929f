//===- NodeImporter.h - What an ONNX op converter sees ----------*- C++ -*-===//
//
// Each ONNX op type has one converter, `LogicalResult(NodeImporter &)`,
// registered by op family (Convert<Family>.cpp). A converter reads the node's
// inputs and attributes through NodeImporter, builds dist ops at the node's
// location, and binds the node's outputs. Inputs whose values are known at
// import time (Constant nodes, small initializers, results of shape
// sub-graphs) are available as constants, so shape arithmetic folds away.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_NODEIMPORTER_H
#define PASSES_IMPORT_NODEIMPORTER_H

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

namespace mlir::dist::onnx_import {

/// An ONNX tensor during import: an SSA value, a value known at import time,
/// or both (a constant is materialized as `dist.constant` on first use).
struct ImportedValue {
  Value value;
  DenseElementsAttr constant;
};

class NodeImporter;
using ConvertFn = LogicalResult (*)(NodeImporter &);
using ConverterTable = llvm::StringMap<ConvertFn>;

/// Registration, one function per op family.
void addElementwiseConverters(ConverterTable &table);
void addContractionConverters(ConverterTable &table);
void addEinsumConverters(ConverterTable &table);
void addReductionConverters(ConverterTable &table);
void addShapeConverters(ConverterTable &table);
void addConvConverters(ConverterTable &table);
void addActivationConverters(ConverterTable &table);
void addIndexingConverters(ConverterTable &table);
void addScatterConverters(ConverterTable &table);
void addLayoutConverters(ConverterTable &table);
void addResizeConverters(ConverterTable &table);
void addRecurrentConverters(ConverterTable &table);
void addRandomConverters(ConverterTable &table);

/// The element type dist uses for ONNX data type `onnxType`, or null.
Type convertElementType(MLIRContext *context, int onnxType);

class NodeImporter {
public:
  /// The nodes reading each tensor of the graph.
  using ConsumerMap =
      llvm::StringMap<SmallVector<const onnx::NodeProto *, 1>>;

  NodeImporter(const onnx::NodeProto &node, int64_t opset, Location loc,
               OpBuilder &builder, llvm::StringMap<ImportedValue> &values,
               const ConsumerMap &consumers)
      : node(node), opset(opset), loc(loc), builder(builder), values(values),
        consumers(consumers) {}

  const onnx::NodeProto &node;
  /// The default-domain opset the model imports.
  const int64_t opset;
  const Location loc;
  OpBuilder &builder;

  MLIRContext *getContext() { return builder.getContext(); }

  /// Number of inputs, counting trailing optional ones given as "".
  unsigned numInputs() const { return node.input_size(); }
  /// Whether input `i` is present (given and not "").
  bool hasInput(unsigned i) const;
  /// Input `i` as an SSA value (materializing a constant); null after an error.
  Value input(unsigned i);
  /// Input `i` as a value known at import time, or null.
  DenseElementsAttr constantInput(unsigned i);
  /// The type of input `i`.
  RankedTensorType inputType(unsigned i);
  /// Input `i` as integers known at import time (e.g. a shape), or an error
  /// saying that input `what` must be constant.
  FailureOr<SmallVector<int64_t>> constantInts(unsigned i, StringRef what);
  /// Input `i` as a shape known at import time: sizes >= 0 whose product
  /// stays reasonable, or an error.
  FailureOr<SmallVector<int64_t>> constantShape(unsigned i, StringRef what);
  /// Sizes >= 0 whose product stays reasonable, or an error naming `what`.
  LogicalResult checkShape(ArrayRef<int64_t> shape, const Twine &what);

  /// The nodes that read output `i` (none for a graph output only).
  ArrayRef<const onnx::NodeProto *> consumersOf(unsigned i) const {
    auto it = consumers.find(node.output(i));
    if (it == consumers.end())
      return {};
    return it->second;
  }

  /// Whether output `i` is consumed (present and named).
  bool hasOutput(unsigned i) const {
    return static_cast<int>(i) < node.output_size() && !node.output(i).empty();
  }
  void setOutput(unsigned i, Value value);
  void setConstantOutput(unsigned i, DenseElementsAttr constant);

  /// Attribute access.
  const onnx::AttributeProto *attribute(StringRef name) const;
  int64_t intAttr(StringRef name, int64_t defaultValue) const;
  float floatAttr(StringRef name, float defaultValue) const;
  std::string stringAttr(StringRef name, StringRef defaultValue) const;
  /// The ints attribute `name`, or nullopt when absent.
  std::optional<SmallVector<int64_t>> intsAttr(StringRef name) const;

  /// Normalizes `axis` in [-rank, rank) to [0, rank), or reports an error.
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, StringRef what);
  /// The node's `axis` attribute (`defaultAxis` when absent), normalized for
  /// a rank-`rank` tensor.
  FailureOr<int64_t> axisAttr(int64_t defaultAxis, int64_t rank) {
    return normalizeAxis(intAttr("axis", defaultAxis), rank, "axis");
  }

  /// Reports an error at the node and fails.
  InFlightDiagnostic emitError();
  /// "unsupported ONNX op 'X' (opset N) at node 'name'" plus `why`.
  LogicalResult unsupported(const Twine &why);

  /// Converts an ONNX TensorProto held in an attribute to a constant.
  FailureOr<DenseElementsAttr> tensorAttr(const onnx::TensorProto &tensor);

  /// Builds `OpTy` (whose result types are given in `args`) at the node.
  template <typename OpTy, typename... Args> OpTy create(Args &&...args) {
    return OpTy::create(builder, loc, std::forward<Args>(args)...);
  }

  /// Builds `OpTy`, whose result types it infers, at the node. Unlike the
  /// inferring ODS builders, which abort when inference fails, this reports
  /// the op's own diagnostic at the node and fails.
  template <typename OpTy, typename... Args>
  FailureOr<OpTy> build(Args &&...args) {
    Type placeholder = NoneType::get(getContext());
    OpTy op;
    if constexpr (OpTy::template hasTrait<OpTrait::OneResult>())
      op = OpTy::create(builder, loc, placeholder, std::forward<Args>(args)...);
    else
      op = OpTy::create(builder, loc, placeholder, placeholder,
                        std::forward<Args>(args)...);
    if (failed(inferResultTypes(op.getOperation())))
      return failure();
    return op;
  }

  /// A 0-d `dist.constant` of `elementType` holding `value` (for
  /// decompositions: scalars broadcast against any operand).
  Value scalar(Type elementType, double value);
  /// `value` reshaped to `shape` (itself when it has that shape already).
  Value reshape(Value value, ArrayRef<int64_t> shape);

  /// Same as build<OpTy>, returning the single result or null.
  template <typename OpTy, typename... Args> Value buildValue(Args &&...args) {
    FailureOr<OpTy> op = build<OpTy>(std::forward<Args>(args)...);
    return succeeded(op) ? op->getResult() : Value();
  }

private:
  /// Replaces the placeholder result types of `op` by the inferred ones, or
  /// erases `op` and fails.
  LogicalResult inferResultTypes(Operation *op);

  llvm::StringMap<ImportedValue> &values;
  const ConsumerMap &consumers;
};

/// Converts an ONNX tensor (initializer or attribute) to an attribute of the
/// dist element type. `baseDir` resolves external data; `asResource` keeps the
/// data in a resource blob named `blobName` instead of inline.
FailureOr<ElementsAttr>
convertTensor(const onnx::TensorProto &tensor, MLIRContext *context,
              StringRef baseDir, bool asResource, StringRef blobName,
              function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_NODEIMPORTER_H
