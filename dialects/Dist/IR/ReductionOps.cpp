//===- ReductionOps.cpp - Reductions, normalizations, losses --------------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistTypeInference.h"

using namespace mlir;
using namespace mlir::dist;

LogicalResult mlir::dist::inferReductionResultType(
    std::optional<Location> loc, StringRef opName, Type input,
    ArrayRef<int64_t> axes, bool keepDims, SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(input);
  if (!type)
    return emitOpInferenceError(loc, opName,
                                "input must be a ranked tensor, got ", input);
  if (axes.empty())
    return emitOpInferenceError(loc, opName,
                                "axes must name at least one dimension");
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (!isValidAxis(axis, type.getRank()))
      return emitOpInferenceError(loc, opName, "axis ", axis,
                                  " is out of range for rank ", type.getRank());
    if (i > 0 && axes[i - 1] >= axis)
      return emitOpInferenceError(loc, opName, "axes ", formatList(axes),
                                  " must be sorted and distinct");
  }
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(dim)))
      shape.push_back(size);
    else if (keepDims)
      shape.push_back(1);
  }
  types.push_back(type.clone(shape));
  return success();
}

LogicalResult mlir::dist::inferLossResultType(std::optional<Location> loc,
                                              StringRef opName, Type input,
                                              Type labels, Type weight,
                                              LossReduction reduction,
                                              SmallVectorImpl<Type> &types) {
  auto inputType = dyn_cast<RankedTensorType>(input);
  auto labelType = dyn_cast<RankedTensorType>(labels);
  if (!inputType || !labelType)
    return emitOpInferenceError(loc, opName, "operands must be ranked tensors");
  if (inputType.getRank() < 2)
    return emitOpInferenceError(
        loc, opName, "input must be N x C or N x C x d1 x ..., got rank ",
        inputType.getRank());
  // labels are the input's shape without the class dimension (1).
  SmallVector<int64_t> expected(inputType.getShape());
  expected.erase(expected.begin() + 1);
  if (labelType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpInferenceError(
        loc, opName, "labels of shape ", formatShape(labelType.getShape()),
        " do not match input of shape ", formatShape(inputType.getShape()),
        ": expected labels of shape ", formatShape(expected));
  if (weight) {
    auto weightType = dyn_cast<RankedTensorType>(weight);
    if (!weightType ||
        weightType.getShape() != ArrayRef<int64_t>(inputType.getDimSize(1)) ||
        weightType.getElementType() != inputType.getElementType())
      return emitOpInferenceError(
          loc, opName, "weight must be a vector of one ",
          inputType.getElementType(), " per class (", inputType.getDimSize(1),
          "), got ", weight);
  }
  if (reduction == LossReduction::none)
    types.push_back(
        RankedTensorType::get(expected, inputType.getElementType()));
  else
    types.push_back(RankedTensorType::get({}, inputType.getElementType()));
  return success();
}

LogicalResult mlir::dist::inferArgReductionResultType(
    std::optional<Location> loc, StringRef opName, Type input, int64_t axis,
    bool keepDims, SmallVectorImpl<Type> &types) {
  auto inputType = dyn_cast<RankedTensorType>(input);
  if (!inputType)
    return emitOpInferenceError(loc, opName, "input must be a ranked tensor");
  if (!isValidAxis(axis, inputType.getRank()))
    return emitOpInferenceError(loc, opName, "axis ", axis,
                                " is out of range for rank ",
                                inputType.getRank());
  SmallVector<int64_t> shape(inputType.getShape());
  if (keepDims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  types.push_back(
      RankedTensorType::get(shape, IntegerType::get(input.getContext(), 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// CumSumOp
//===----------------------------------------------------------------------===//

LogicalResult CumSumOp::verify() {
  int64_t rank = getType().getRank();
  int64_t axis = getAxis(); // I64Attr reads back as uint64_t.
  if (!isValidAxis(axis, rank))
    return emitOpError("axis ") << axis << " is out of range for rank " << rank
                                << " (expected 0 <= axis < rank)";
  return success();
}

//===----------------------------------------------------------------------===//
// SparsifyTopKOp
//===----------------------------------------------------------------------===//

LogicalResult SparsifyTopKOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() < 1)
    return emitOpError("input must have a dimension to select along");
  int64_t n = input.getShape().back();
  int64_t k = getK(); // I64Attr reads back as uint64_t.
  if (k < 1 || k > n)
    return emitOpError("k = ") << k << " must be in [1, " << n
                               << "] (the last dimension)";
  SmallVector<int64_t> selected(input.getShape());
  selected.back() = k;
  if (cast<RankedTensorType>(getValues().getType()).getShape() !=
          ArrayRef(selected) ||
      cast<RankedTensorType>(getIndices().getType()).getShape() !=
          ArrayRef(selected))
    return emitOpError("values and indices must be shaped like the input "
                       "with k as the last dimension");
  if (getRest().getType() != input)
    return emitOpError("rest must have the input's type");
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitOpInferenceError(loc, name, "input must be a ranked tensor");
  int64_t axis = adaptor.getAxis();
  if (!isValidAxis(axis, input.getRank()))
    return emitOpInferenceError(loc, name, "axis ", axis,
                                " is out of range for rank ", input.getRank());
  if (adaptor.getEpsilon().convertToDouble() < 0.0)
    return emitOpInferenceError(loc, name, "epsilon must not be negative");
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  for (auto [what, value] : {std::make_pair("scale", adaptor.getScale()),
                             std::make_pair("bias", adaptor.getBias())}) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getShape() != normalized ||
        type.getElementType() != input.getElementType())
      return emitOpInferenceError(loc, name, what, " of type ", value.getType(),
                                  " must have the normalized shape ",
                                  formatShape(normalized), " and element type ",
                                  input.getElementType());
  }
  types.push_back(input);
  return success();
}
