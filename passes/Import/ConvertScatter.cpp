//===- ConvertScatter.cpp - ONNX ScatterND, ScatterElements, GatherND -----===//
//
// Scatters and GatherND have no ops of their own. Each is brought to rows:
// the data flattened to `[R, rest...]` over the indexed dimensions, and one
// row index (i64) per update, computed at run time from the indices:
// negative ones counted from the end, and one out of range replaced by R so
// that the run-time check of `dist.scatter_add` or `dist.gather` stops the
// step with the node's location instead of writing another row.
//
//  - GatherND is a `dist.gather` of those rows.
//  - A scatter with `reduction = add` is a `dist.scatter_add` into the data.
//  - A scatter that replaces (`reduction = none`) keeps the data where no
//    update writes and takes the mean of the updates where some do: the
//    update itself when one writes, as ONNX and PyTorch define, and for
//    repeated indices (undefined in both) the value they agree on when they
//    agree, as a multi-hot `zeros.scatter_(1, labels, 1.0)` with a repeated
//    label has it. PyTorch exports `scatter_add` before opset 16 as such a
//    scatter into zeros followed by an Add; that form adds (see
//    isAccumulateExport).
//  - ScatterND with indices known at import time and no repeats (PyTorch's
//    in-place slice assignment) stays a gather of constant rows of
//    `concat(data, updates)`, which takes any element type.
//
// `dist.scatter_add` adds floats, so the run-time scatters take float data.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/ConstantEval.h"
#include "passes/Import/Decompose.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;


/// A constant i64 tensor of `shape`.
static Value i64Constant(NodeImporter &n, ArrayRef<int64_t> shape,
                         ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, n.builder.getI64Type());
  return n.create<ConstantOp>(DenseElementsAttr::get(type, values));
}

/// A constant of `type` with every element `value`.
static Value splat(NodeImporter &n, RankedTensorType type, double value) {
  auto element = cast<FloatType>(type.getElementType());
  return n.create<ConstantOp>(
      DenseElementsAttr::get(type, FloatAttr::get(element, value)));
}

/// `index` (i64) counted from the end where negative, and whether it then
/// lies in [0, size); `size` broadcasts against it.
static std::pair<Value, Value> normalizeIndex(NodeImporter &n, Decomposer &d,
                                              Value index, Value size) {
  Value zero = d.c(0);
  Value fixed = d.select(d.cmp(ComparePredicate::lt, index, zero),
                         d.add(index, size), index);
  Value low = d.cmp(ComparePredicate::ge, fixed, zero);
  Value high = d.cmp(ComparePredicate::lt, fixed, size);
  Value inRange = low && high ? n.buildValue<AndOp>(low, high) : Value();
  return {fixed, inRange};
}

/// Row indices of `indices` ([U, k] of any integer type, each row a k-tuple
/// into `sizes`): the tuple's position in the row-major flattening of
/// `sizes`, times `scale`, plus `offsets` (a constant [U], or null); and
/// `outside` where a tuple is out of range.
static Value rowIndices(NodeImporter &n, Value indices,
                        ArrayRef<int64_t> sizes, int64_t scale, Value offsets,
                        int64_t outside) {
  Type i64 = n.builder.getI64Type();
  Decomposer d(n, i64);
  int64_t k = sizes.size();
  SmallVector<int64_t> strides(k, 1);
  for (int64_t j = k - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * sizes[j + 1];
  auto [fixed, inRange] = normalizeIndex(
      n, d, d.cast(indices, i64), i64Constant(n, {k}, sizes));
  if (!fixed || !inRange)
    return {};
  Value rows = n.buildValue<ReduceSumOp>(
      d.mul(fixed, i64Constant(n, {k}, strides)), ArrayRef<int64_t>{1}, false);
  // Every component in range: the minimum over k of 0 or 1.
  Value all = n.buildValue<ReduceMinOp>(d.cast(inRange, i64),
                                        ArrayRef<int64_t>{1}, false);
  if (scale != 1)
    rows = d.mul(rows, d.c(scale));
  if (offsets)
    rows = d.add(rows, offsets);
  return d.select(d.cmp(ComparePredicate::eq, all, d.c(1)), rows,
                  d.c(outside));
}

/// `data` ([R, rest...]) with the rows `rows` ([U] i64) of `updates`
/// ([U, rest...]) added in, or written (the mean where several write).
static Value scatterRows(NodeImporter &n, Value data, Value rows,
                         Value updates, bool add) {
  if (!data || !rows || !updates)
    return {};
  auto type = cast<RankedTensorType>(data.getType());
  if (add)
    return n.create<ScatterAddOp>(type, data, rows, updates, 0);
  int64_t numRows = type.getDimSize(0);
  int64_t numUpdates = cast<RankedTensorType>(rows.getType()).getDimSize(0);
  Decomposer d(n, data);
  Value sums =
      n.create<ScatterAddOp>(type, splat(n, type, 0), rows, updates, 0);
  auto countType = type.clone(ArrayRef<int64_t>{numRows});
  Value counts = n.create<ScatterAddOp>(
      countType, splat(n, countType, 0), rows,
      splat(n, type.clone(ArrayRef<int64_t>{numUpdates}), 1), 0);
  SmallVector<int64_t> perRow(type.getRank(), 1);
  perRow[0] = numRows;
  counts = n.reshape(counts, perRow);
  Value written = d.cmp(ComparePredicate::gt, counts, d.c(0));
  return d.select(written, d.div(sums, d.max(counts, d.c(1))), data);
}

/// Whether the node is PyTorch's export of `scatter_add` or of
/// `index_put_(..., accumulate=True)` before opset 16, which has no
/// reduction: a replacing scatter into zeros whose result only Adds read
/// (`data + scatter(zeros, indices, src)`). PyTorch adds the updates of a
/// repeated index; so does the import then.
static bool isAccumulateExport(NodeImporter &n) {
  DenseElementsAttr data = n.constantInput(0);
  if (!data || !data.isSplat() || !isa<FloatType>(data.getElementType()) ||
      !data.getSplatValue<APFloat>().isZero())
    return false;
  ArrayRef<const onnx::NodeProto *> readers = n.consumersOf(0);
  return !readers.empty() && llvm::all_of(readers, [](const auto *reader) {
    return reader->op_type() == "Add";
  });
}

/// The node's `reduction`: false for none, true for add; an error for the
/// others.
static FailureOr<bool> addsUpdates(NodeImporter &n) {
  std::string reduction = n.stringAttr("reduction", "none");
  if (reduction == "none" || reduction == "add")
    return reduction == "add" || isAccumulateExport(n);
  return n.unsupported("reduction = '" + reduction +
                       "' (none and add are supported)");
}

/// What a scatter node's converter reads first: whether it adds (see
/// addsUpdates), and its data, indices and updates types (static shapes).
struct ScatterNode {
  bool add;
  RankedTensorType data, indices, updates;
};

static FailureOr<ScatterNode> readScatter(NodeImporter &n) {
  FailureOr<bool> add = addsUpdates(n);
  if (failed(add))
    return failure();
  ScatterNode node{*add, n.inputType(0), n.inputType(1), n.inputType(2)};
  if (!node.data.hasStaticShape() || !node.indices.hasStaticShape())
    return n.emitError() << "data and indices need static shapes", failure();
  return node;
}

/// The data of a run-time scatter must be floats (dist.scatter_add's).
static LogicalResult checkFloatData(NodeImporter &n, RankedTensorType type) {
  if (isa<FloatType>(type.getElementType()))
    return success();
  std::string element;
  llvm::raw_string_ostream(element) << type.getElementType();
  return n.unsupported(
      "data of type '" + element +
      "': scatters add floats (integer data is supported only by ScatterND "
      "with indices known at import time, none repeated); scatter in a "
      "float type and cast the result");
}

/// ScatterND with indices known at import time, none repeated: the result
/// is a gather of the rows of concat(data, updates) by a constant row
/// index, row r of the data or R + u where update u writes row r (any
/// element type; differentiable through gather and concat). Fails without
/// a diagnostic (the run-time form takes over) when two updates write the
/// same row.
static FailureOr<Value> scatterNDKnown(NodeImporter &n, const IntTensor &indices,
                                       int64_t k) {
  RankedTensorType dataType = n.inputType(0);
  ArrayRef<int64_t> shape = dataType.getShape();
  int64_t rows = ShapedType::getNumElements(shape.take_front(k)), updates = indices.size() / k;
  SmallVector<int64_t> source(rows);
  for (int64_t r = 0; r < rows; ++r)
    source[r] = r;
  SmallVector<bool> written(rows, false);
  for (int64_t u = 0; u < updates; ++u) {
    int64_t row = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t i = indices.data[u * k + j], size = shape[j];
      if (i < -size || i >= size)
        return n.emitError() << "index " << i << " is out of range for size "
                             << size << " of dimension " << j,
               failure();
      row = row * size + (i < 0 ? i + size : i);
    }
    if (written[row])
      return Value();
    written[row] = true;
    source[row] = rows + u;
  }
  Value data = n.input(0), update = n.input(2);
  if (!data || !update)
    return failure();
  SmallVector<int64_t> dataRows = {rows}, updateRows = {updates};
  llvm::append_range(dataRows, shape.drop_front(k));
  llvm::append_range(updateRows, shape.drop_front(k));
  Value both = n.buildValue<ConcatOp>(
      ValueRange{n.reshape(data, dataRows), n.reshape(update, updateRows)},
      static_cast<uint64_t>(0));
  if (!both)
    return failure();
  Value gathered =
      n.buildValue<GatherOp>(both, i64Constant(n, {rows}, source),
                             static_cast<uint64_t>(0), IntegerAttr());
  if (!gathered)
    return failure();
  return n.reshape(gathered, shape);
}

/// ScatterND: `indices` [..., k] names rows of the data's first k
/// dimensions; `updates` is indices.shape[:-1] + data.shape[k:].
static LogicalResult convertScatterND(NodeImporter &n) {
  FailureOr<ScatterNode> node = readScatter(n);
  if (failed(node))
    return failure();
  auto [add, dataType, indexType, updatesType] = *node;
  ArrayRef<int64_t> shape = dataType.getShape();
  int64_t k = indexType.getRank() == 0 ? 0 : indexType.getShape().back();
  if (k < 1 || k > dataType.getRank())
    return n.emitError() << "the indices' last dimension (" << k
                         << ") must be in 1 .. " << dataType.getRank()
                         << ", the data's rank",
           failure();
  SmallVector<int64_t> expected(indexType.getShape().drop_back());
  llvm::append_range(expected, shape.drop_front(k));
  if (updatesType.getShape() != ArrayRef(expected))
    return n.emitError() << "the updates are " << updatesType
                         << " but the indices and data need "
                         << RankedTensorType::get(expected,
                                                  dataType.getElementType()),
           failure();
  if (!add) {
    if (std::optional<IntTensor> known = toIntTensor(n.constantInput(1))) {
      FailureOr<Value> result = scatterNDKnown(n, *known, k);
      if (failed(result))
        return failure();
      if (*result) {
        n.setOutput(0, *result);
        return success();
      }
    }
  }
  if (failed(checkFloatData(n, dataType)))
    return failure();
  Value data = n.input(0), indices = n.input(1), updates = n.input(2);
  if (!data || !indices || !updates)
    return failure();
  int64_t rows = ShapedType::getNumElements(shape.take_front(k));
  int64_t count = ShapedType::getNumElements(indexType.getShape().drop_back());
  SmallVector<int64_t> dataRows = {rows}, updateRows = {count};
  llvm::append_range(dataRows, shape.drop_front(k));
  llvm::append_range(updateRows, shape.drop_front(k));
  Value rowIndex = rowIndices(n, n.reshape(indices, {count, k}),
                              shape.take_front(k), 1, Value(), rows);
  Value result = scatterRows(n, n.reshape(data, dataRows), rowIndex,
                             n.reshape(updates, updateRows), add);
  if (!result)
    return failure();
  n.setOutput(0, n.reshape(result, shape));
  return success();
}

/// ScatterElements (and Scatter before opset 11): element `p` of `updates`
/// goes to the data's position `p` with `indices[p]` along `axis`.
static LogicalResult convertScatterElements(NodeImporter &n) {
  FailureOr<ScatterNode> node = readScatter(n);
  if (failed(node))
    return failure();
  auto [add, dataType, indexType, updatesType] = *node;
  int64_t rank = dataType.getRank();
  FailureOr<int64_t> axis = n.axisAttr(0, rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> shape = dataType.getShape(), iShape = indexType.getShape();
  if (indexType.getRank() != rank || updatesType.getShape() != iShape)
    return n.emitError() << "indices (" << indexType << ") and updates ("
                         << updatesType
                         << ") must have one shape, of the data's rank "
                         << rank,
           failure();
  for (int64_t dim = 0; dim < rank; ++dim)
    if (dim != *axis && iShape[dim] > shape[dim])
      return n.emitError() << "the indices' dimension " << dim << " ("
                           << iShape[dim] << ") exceeds the data's ("
                           << shape[dim] << ")",
             failure();
  if (failed(checkFloatData(n, dataType)))
    return failure();
  Value data = n.input(0), indices = n.input(1), updates = n.input(2);
  if (!data || !indices || !updates)
    return failure();

  // Each update's row in the flattened data: its own position along the
  // other dimensions (a constant) plus its index times the axis' stride.
  int64_t count = ShapedType::getNumElements(iShape), size = ShapedType::getNumElements(shape);
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t dim = rank - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  SmallVector<int64_t> offsets(count, 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      if (dim != *axis)
        offsets[flat] += (rest % iShape[dim]) * strides[dim];
      rest /= iShape[dim];
    }
  }
  // As a [count, 1] tuple into the axis alone, scaled by its stride.
  Value rowIndex = rowIndices(n, n.reshape(indices, {count, 1}),
                              {shape[*axis]}, strides[*axis],
                              i64Constant(n, {count}, offsets), size);
  Value result = scatterRows(n, n.reshape(data, {size}), rowIndex,
                             n.reshape(updates, {count}), add);
  if (!result)
    return failure();
  n.setOutput(0, n.reshape(result, shape));
  return success();
}

/// GatherND: `indices` [b..., ..., k] names rows of the data's k dimensions
/// after its first `batch_dims`; the result is indices.shape[:-1] +
/// data.shape[batch_dims + k:]. Any element type (a `dist.gather`).
static LogicalResult convertGatherND(NodeImporter &n) {
  RankedTensorType dataType = n.inputType(0), indexType = n.inputType(1);
  if (!dataType.hasStaticShape() || !indexType.hasStaticShape())
    return n.emitError() << "data and indices need static shapes", failure();
  int64_t batchDims = n.intAttr("batch_dims", 0);
  ArrayRef<int64_t> shape = dataType.getShape(), iShape = indexType.getShape();
  int64_t k = iShape.empty() ? 0 : iShape.back();
  if (batchDims < 0 || batchDims >= static_cast<int64_t>(iShape.size()) ||
      batchDims >= dataType.getRank())
    return n.emitError() << "batch_dims " << batchDims
                         << " must be below the ranks of data and indices",
           failure();
  if (shape.take_front(batchDims) != iShape.take_front(batchDims))
    return n.emitError() << "the first " << batchDims
                         << " dimensions of data (" << dataType
                         << ") and indices (" << indexType << ") must agree",
           failure();
  if (k < 1 || batchDims + k > dataType.getRank())
    return n.emitError() << "the indices' last dimension (" << k
                         << ") must be in 1 .. " << dataType.getRank() - batchDims
                         << ", the data's rank after batch_dims",
           failure();
  Value data = n.input(0), indices = n.input(1);
  if (!data || !indices)
    return failure();
  int64_t batches = ShapedType::getNumElements(shape.take_front(batchDims));
  ArrayRef<int64_t> indexed = shape.slice(batchDims, k);
  int64_t rowsPerBatch = ShapedType::getNumElements(indexed), rows = batches * rowsPerBatch;
  int64_t perBatch = ShapedType::getNumElements(iShape.slice(batchDims, iShape.size() - 1 - batchDims));
  int64_t count = batches * perBatch;
  // Batch b's rows start at b * rowsPerBatch.
  SmallVector<int64_t> offsets(count);
  for (int64_t i = 0; i < count; ++i)
    offsets[i] = (i / std::max<int64_t>(perBatch, 1)) * rowsPerBatch;
  Value rowIndex =
      rowIndices(n, n.reshape(indices, {count, k}), indexed, 1,
                 i64Constant(n, {count}, offsets), rows);
  SmallVector<int64_t> dataRows = {rows};
  llvm::append_range(dataRows, shape.drop_front(batchDims + k));
  Value gathered =
      rowIndex ? n.buildValue<GatherOp>(n.reshape(data, dataRows), rowIndex,
                                        static_cast<uint64_t>(0), IntegerAttr())
               : Value();
  if (!gathered)
    return failure();
  SmallVector<int64_t> resultShape(iShape.drop_back());
  llvm::append_range(resultShape, shape.drop_front(batchDims + k));
  n.setOutput(0, n.reshape(gathered, resultShape));
  return success();
}

void mlir::dist::onnx_import::addScatterConverters(ConverterTable &table) {
  table["ScatterND"] = convertScatterND;
  table["ScatterElements"] = convertScatterElements;
  table["Scatter"] = convertScatterElements;
  table["GatherND"] = convertGatherND;
}
