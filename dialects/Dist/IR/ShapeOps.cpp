//===- ShapeOps.cpp - Data movement ops: inference, checks, folds ---------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistTypeInference.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dist;

/// A splat constant rebuilt with `type`'s shape, for ops that only move data.
static Attribute reshapeSplat(Attribute input, Type type) {
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(input))
    return SplatElementsAttr::get(cast<ShapedType>(type),
                                  splat.getSplatValue<Attribute>());
  return {};
}

/// Checks that `source` and `result` share their element type.
static LogicalResult verifySameElementType(Operation *op, Type source,
                                           Type result) {
  Type a = cast<ShapedType>(source).getElementType();
  Type b = cast<ShapedType>(result).getElementType();
  if (a != b)
    return op->emitOpError("result element type ")
           << b << " differs from the input's " << a;
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!type)
    return emitOpInferenceError(loc, getOperationName(),
                                "input must be a ranked tensor");
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  SmallVector<bool> seen(type.getRank(), false);
  bool valid = static_cast<int64_t>(perm.size()) == type.getRank();
  for (int64_t p : perm) {
    if (!valid)
      break;
    valid = isValidAxis(p, type.getRank()) && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid)
    return emitOpInferenceError(loc, getOperationName(), "permutation ",
                                formatList(perm),
                                " is not a permutation of the ", type.getRank(),
                                " dimensions of the input");
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  types.push_back(type.clone(shape));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, p), q) is transpose(x, p o q).
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(innerPerm[p]);
    setPermutation(composed);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return reshapeSplat(adaptor.getInput(), getType());
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElementType(*this, getInput().getType(), getType())))
    return failure();
  int64_t in = getInput().getType().getNumElements();
  int64_t out = getType().getNumElements();
  if (in != out)
    return emitOpError("input has ")
           << in << " elements but the result type has " << out;
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (failed(verifySameElementType(*this, getInput().getType(), getType())))
    return failure();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  if (in.size() > out.size())
    return emitOpError("cannot broadcast rank ")
           << in.size() << " to the lower rank " << out.size();
  ArrayRef<int64_t> aligned = out.take_back(in.size());
  for (auto [i, sizes] : llvm::enumerate(llvm::zip(in, aligned))) {
    auto [from, to] = sizes;
    if (from != to && from != 1)
      return emitOpError("input dimension ")
             << i << " of size " << from << " cannot broadcast to size " << to
             << " (input " << formatShape(in) << ", result " << formatShape(out)
             << ")";
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return reshapeSplat(adaptor.getInput(), getType());
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

/// Checks that `window` (a rank-equal shape) taken from `whole` at `starts`
/// with `strides` stays inside `whole`; shared by slice and insert_slice.
static LogicalResult verifyStridedWindow(Operation *op, StringRef wholeName,
                                         ArrayRef<int64_t> whole,
                                         StringRef windowName,
                                         ArrayRef<int64_t> window,
                                         ArrayRef<int64_t> starts,
                                         ArrayRef<int64_t> strides) {
  if (whole.size() != window.size() || starts.size() != whole.size() ||
      strides.size() != whole.size())
    return op->emitOpError() << wholeName << " rank " << whole.size() << ", "
                             << windowName << " rank " << window.size() << ", "
                             << starts.size() << " starts and "
                             << strides.size()
                             << " strides must all be equal";
  for (size_t d = 0; d < whole.size(); ++d) {
    if (strides[d] == 0)
      return op->emitOpError("stride of dimension ") << d << " is zero";
    if (window[d] == 0)
      continue;
    int64_t last = starts[d] + (window[d] - 1) * strides[d];
    if (!isValidAxis(starts[d], whole[d]) || !isValidAxis(last, whole[d]))
      return op->emitOpError("dimension ")
             << d << " takes indices " << starts[d] << " to " << last
             << " (step " << strides[d] << ") outside the " << wholeName
             << "'s size " << whole[d];
  }
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(verifySameElementType(*this, getInput().getType(), getType())))
    return failure();
  return verifyStridedWindow(*this, "input", getInput().getType().getShape(),
                             "result", getType().getShape(), getStarts(),
                             getStrides());
}

//===----------------------------------------------------------------------===//
// InsertSliceOp
//===----------------------------------------------------------------------===//

LogicalResult InsertSliceOp::verify() {
  if (failed(verifySameElementType(*this, getSource().getType(),
                                   getDest().getType())))
    return failure();
  return verifyStridedWindow(
      *this, "dest", cast<RankedTensorType>(getDest().getType()).getShape(),
      "source", cast<RankedTensorType>(getSource().getType()).getShape(),
      getStarts(), getStrides());
}

/// The elements of `value` one byte per boolean, or its raw row-major data;
/// empty when they cannot be read.
static ArrayRef<char> elementBytes(ElementsAttr value,
                                   std::vector<char> &scratch) {
  auto type = cast<ShapedType>(value.getType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    return blob ? blob->getData() : ArrayRef<char>();
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || dense.isSplat())
    return {};
  if (!type.getElementType().isInteger(1))
    return dense.getRawData();
  for (bool b : dense.getValues<bool>())
    scratch.push_back(b ? 1 : 0);
  return scratch;
}

/// A slice of a constant, computed: a causal mask sliced from a 1024 x 1024
/// buffer to the sequence length becomes the small constant it is.
static Attribute sliceConstant(Attribute input, RankedTensorType resultType,
                               ArrayRef<int64_t> starts,
                               ArrayRef<int64_t> strides) {
  auto value = dyn_cast_or_null<ElementsAttr>(input);
  if (!value)
    return {};
  auto inputType = cast<RankedTensorType>(value.getType());
  Type et = inputType.getElementType();
  if (resultType.getNumElements() >= inputType.getNumElements() ||
      !et.isIntOrFloat())
    return {};
  size_t width = et.isInteger(1) ? 1 : et.getIntOrFloatBitWidth() / 8;
  std::vector<char> scratch;
  ArrayRef<char> bytes = elementBytes(value, scratch);
  if (bytes.size() != inputType.getNumElements() * width)
    return {};
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inputType.getDimSize(d + 1);
  std::vector<char> out;
  out.reserve(resultType.getNumElements() * width);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < resultType.getNumElements(); ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += (starts[d] + index[d] * strides[d]) * inStrides[d];
    out.insert(out.end(), bytes.begin() + offset * width,
               bytes.begin() + (offset + 1) * width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < resultType.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  if (et.isInteger(1)) {
    SmallVector<bool> bits(out.begin(), out.end());
    return DenseElementsAttr::get(resultType, ArrayRef<bool>(bits));
  }
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    return getInput();
  if (OpFoldResult splat = reshapeSplat(adaptor.getInput(), getType()))
    return splat;
  return sliceConstant(adaptor.getInput(), getType(), getStarts(),
                       getStrides());
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOpInferenceError(loc, name, "needs at least one input");
  auto first = dyn_cast<RankedTensorType>(inputs[0].getType());
  if (!first)
    return emitOpInferenceError(loc, name, "inputs must be ranked tensors");
  int64_t axis = adaptor.getAxis();
  if (!isValidAxis(axis, first.getRank()))
    return emitOpInferenceError(loc, name, "axis ", axis,
                                " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    bool ok = type && type.getElementType() == first.getElementType() &&
              type.getRank() == first.getRank();
    for (int64_t d = 0; ok && d < first.getRank(); ++d)
      ok = d == axis || type.getDimSize(d) == first.getDimSize(d);
    if (!ok)
      return emitOpInferenceError(
          loc, name, "input #", i, " of type ", input.getType(),
          " does not match input #0 of type ", inputs[0].getType(),
          " outside the concatenated axis ", axis);
    shape[axis] += type.getDimSize(axis);
  }
  types.push_back(first.clone(shape));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

LogicalResult SplitOp::verify() {
  auto input = getInput().getType();
  if (getNumResults() == 0)
    return emitOpError("needs at least one result");
  int64_t axis = getAxis();
  if (!isValidAxis(axis, input.getRank()))
    return emitOpError("axis ")
           << axis << " is out of range for rank " << input.getRank();
  int64_t total = 0;
  for (auto [i, result] : llvm::enumerate(getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    bool ok = type.getElementType() == input.getElementType() &&
              type.getRank() == input.getRank();
    for (int64_t d = 0; ok && d < input.getRank(); ++d)
      ok = d == axis || type.getDimSize(d) == input.getDimSize(d);
    if (!ok)
      return emitOpError("result #")
             << i << " of type " << type << " does not match the input "
             << input << " outside the split axis " << axis;
    total += type.getDimSize(axis);
  }
  if (total != input.getDimSize(axis))
    return emitOpError("result sizes along axis ")
           << axis << " add up to " << total << ", not the input's "
           << input.getDimSize(axis);
  return success();
}

LogicalResult SplitOp::fold(FoldAdaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  if (getNumResults() != 1 || getResult(0).getType() != getInput().getType())
    return failure();
  results.push_back(getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  if (!input || !indices)
    return emitOpInferenceError(loc, getOperationName(),
                                "operands must be ranked tensors");
  int64_t axis = adaptor.getAxis();
  if (!isValidAxis(axis, input.getRank()))
    return emitOpInferenceError(loc, getOperationName(), "axis ", axis,
                                " is out of range for rank ", input.getRank());
  SmallVector<int64_t> shape(input.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, input.getShape().drop_front(axis + 1));
  types.push_back(input.clone(shape));
  return success();
}

LogicalResult GatherOp::verify() {
  std::optional<uint64_t> padding = getPaddingIdx();
  if (!padding)
    return success();
  int64_t rows = getInput().getType().getDimSize(0);
  int64_t row = static_cast<int64_t>(*padding);
  if (getAxis() != 0)
    return emitOpError("padding_idx needs axis 0 (an embedding lookup)");
  if (row < 0 || row >= rows)
    return emitOpError("padding_idx ")
           << row << " is not a row of the " << rows << "-row table";
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterAddOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterAddOp::verify() {
  RankedTensorType dest = getDest().getType();
  if (failed(verifySameElementType(*this, getUpdates().getType(), dest)))
    return failure();
  int64_t axis = getAxis();
  if (!isValidAxis(axis, dest.getRank()))
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << dest.getRank();
  SmallVector<int64_t> expected(dest.getShape().take_front(axis));
  llvm::append_range(expected, getIndices().getType().getShape());
  llvm::append_range(expected, dest.getShape().drop_front(axis + 1));
  if (ArrayRef<int64_t>(expected) != getUpdates().getType().getShape())
    return emitOpError("updates must have the shape of gathering dest with "
                       "indices along axis ")
           << axis << ", " << formatList(expected) << ", got "
           << getUpdates().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  if (!input || !indices)
    return emitOpInferenceError(loc, getOperationName(),
                                "operands must be ranked tensors");
  int64_t axis = adaptor.getAxis();
  if (!isValidAxis(axis, input.getRank()))
    return emitOpInferenceError(loc, getOperationName(), "axis ", axis,
                                " is out of range for rank ", input.getRank());
  if (indices.getRank() != input.getRank())
    return emitOpInferenceError(
        loc, getOperationName(), "indices of rank ", indices.getRank(),
        " must have the rank of the input (", input.getRank(), ")");
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > input.getDimSize(d))
      return emitOpInferenceError(
          loc, getOperationName(), "indices of shape ",
          formatShape(indices.getShape()), " exceed input of shape ",
          formatShape(input.getShape()), " on dimension ", d);
  types.push_back(input.clone(indices.getShape()));
  return success();
}

//===----------------------------------------------------------------------===//
// TriluOp
//===----------------------------------------------------------------------===//

LogicalResult TriluOp::verify() {
  if (getType().getRank() < 2)
    return emitOpError("input must have rank >= 2 (it masks the last two "
                       "dimensions), got rank ")
           << getType().getRank();
  return success();
}
