//===- ConvertIndexing.cpp - ONNX GatherElements, OneHot, EyeLike --------===//

#include "passes/Import/ConstantEval.h"
#include "passes/Import/Decompose.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

static LogicalResult convertGatherElements(NodeImporter &n) {
  Value x = n.input(0), indices = n.input(1);
  if (!x || !indices)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  FailureOr<int64_t> axis = n.axisAttr(0, type.getRank());
  if (failed(axis))
    return failure();
  // Indices known at import time are checked here, where the node is known.
  if (std::optional<IntTensor> known = toIntTensor(n.constantInput(1))) {
    int64_t size = type.getDimSize(*axis);
    for (int64_t i : known->data)
      if (i < -size || i >= size)
        return n.emitError() << "index " << i << " is out of range for size "
                             << size << " of axis " << *axis,
               failure();
  }
  Value result =
      n.buildValue<GatherElementsOp>(x, indices, static_cast<uint64_t>(*axis));
  n.setOutput(0, result);
  return success(result != nullptr);
}

/// OneHot: `values[1]` where an index equals the position along the new
/// axis, `values[0]` elsewhere; negative indices count from `depth`.
static LogicalResult convertOneHot(NodeImporter &n) {
  Value indices = n.input(0), values = n.input(2);
  if (!indices || !values)
    return failure();
  DenseElementsAttr depthAttr = n.constantInput(1);
  if (!depthAttr || depthAttr.getNumElements() != 1)
    return n.emitError() << "input 'depth' must be a scalar known at import "
                            "time (a constant or a shape computation); dist "
                            "needs static shapes",
           failure();
  double depthValue =
      isa<FloatType>(depthAttr.getElementType())
          ? (*depthAttr.getValues<APFloat>().begin()).convertToDouble()
          : static_cast<double>(
                (*depthAttr.getValues<APInt>().begin()).getSExtValue());
  int64_t depth = static_cast<int64_t>(depthValue);
  if (depth <= 0 || depth > (int64_t(1) << 24))
    return n.emitError() << "depth " << depthValue << " must be in 1 .. 2^24",
           failure();
  auto valuesType = cast<RankedTensorType>(values.getType());
  if (valuesType.getNumElements() != 2)
    return n.emitError() << "values must hold 2 elements (off, on), got "
                         << valuesType,
           failure();
  auto indexType = cast<RankedTensorType>(indices.getType());
  int64_t rank = indexType.getRank() + 1;
  FailureOr<int64_t> axis = n.axisAttr(-1, rank);
  if (failed(axis))
    return failure();

  Type i64 = n.builder.getI64Type();
  Decomposer d(n, i64);
  Value index = d.cast(indices, i64);
  index = d.select(d.cmp(ComparePredicate::lt, index, d.c(0)),
                   d.add(index, d.c(depth)), index);
  SmallVector<int64_t> expanded(indexType.getShape());
  expanded.insert(expanded.begin() + *axis, 1);
  index = index ? n.reshape(index, expanded) : Value();
  Value positions = d.iota(rank, *axis, depth);
  Value flat = n.reshape(values, {2});
  Type element = valuesType.getElementType();
  auto one = RankedTensorType::get({1}, element);
  Value off = n.reshape(
      n.create<SliceOp>(one, flat, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1}),
      {});
  Value on = n.reshape(
      n.create<SliceOp>(one, flat, ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1}),
      {});
  return d.bind(
      d.select(d.cmp(ComparePredicate::eq, index, positions), on, off));
}

/// EyeLike: a constant of the input's shape with ones on diagonal `k`.
static LogicalResult convertEyeLike(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  if (type.getRank() != 2)
    return n.emitError() << "input must be 2-D, got " << type, failure();
  Type element = type.getElementType();
  if (const onnx::AttributeProto *dtype = n.attribute("dtype")) {
    element = convertElementType(n.getContext(), dtype->i());
    if (!element)
      return n.unsupported("dtype " + std::to_string(dtype->i()) +
                           " is not supported");
  }
  int64_t k = n.intAttr("k", 0);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if (rows * cols > (int64_t(1) << 24))
    return n.emitError() << "a " << rows << "x" << cols
                         << " identity is too large to build at import time",
           failure();
  auto resultType = RankedTensorType::get({rows, cols}, element);
  SmallVector<Attribute> elements;
  Builder &b = n.builder;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      bool one = j - i == k;
      elements.push_back(isa<FloatType>(element)
                             ? Attribute(b.getFloatAttr(element, one))
                             : Attribute(b.getIntegerAttr(element, one)));
    }
  n.setConstantOutput(0, DenseElementsAttr::get(resultType, elements));
  return success();
}

void mlir::dist::onnx_import::addIndexingConverters(ConverterTable &table) {
  table["GatherElements"] = convertGatherElements;
  table["OneHot"] = convertOneHot;
  table["EyeLike"] = convertEyeLike;
}
