//===- DistBuilder.cpp - Building dist op expressions ---------------------===//

#include "dialects/Dist/IR/DistBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::dist;

Value DistBuilder::scalar(double value, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (auto floatType = dyn_cast<FloatType>(elementType))
    element = builder.getFloatAttr(floatType, value);
  else
    element = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  return ConstantOp::create(builder, loc,
                            DenseElementsAttr::get(type, element));
}

Value DistBuilder::scalarLike(double value, Value like) {
  return scalar(value, elementTypeOf(like));
}

Value DistBuilder::zeros(Type tensorType) {
  auto type = mlir::cast<RankedTensorType>(tensorType);
  return ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(type, builder.getZeroAttr(type.getElementType())));
}

Value DistBuilder::iota(int64_t n, Type elementType, int64_t rank,
                        int64_t axis) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  auto type = RankedTensorType::get(shape, elementType);
  SmallVector<Attribute> values;
  values.reserve(n);
  for (int64_t i = 0; i < n; ++i)
    values.push_back(builder.getIntegerAttr(elementType, i));
  return ConstantOp::create(builder, loc, DenseElementsAttr::get(type, values));
}

Value DistBuilder::cast(Value value, Type elementType) {
  auto type = mlir::cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(builder, loc, type.clone(elementType), value);
}

Value DistBuilder::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = mlir::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(builder, loc, type.clone(shape), value);
}

Value DistBuilder::broadcastTo(Value value, ArrayRef<int64_t> shape) {
  auto type = mlir::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return BroadcastOp::create(builder, loc, type.clone(shape), value);
}

Value DistBuilder::reduceSum(Value value, ArrayRef<int64_t> axes,
                             bool keepDims) {
  if (axes.empty())
    return value;
  return ReduceSumOp::create(builder, loc, value, axes, keepDims);
}

Value DistBuilder::reduceMean(Value value, ArrayRef<int64_t> axes,
                              bool keepDims) {
  if (axes.empty())
    return value;
  return ReduceMeanOp::create(builder, loc, value, axes, keepDims);
}

Value DistBuilder::transpose(Value value, ArrayRef<int64_t> permutation) {
  return TransposeOp::create(builder, loc, value, permutation);
}

Value DistBuilder::slice(Value value, ArrayRef<int64_t> starts,
                         ArrayRef<int64_t> strides, ArrayRef<int64_t> shape) {
  auto type = mlir::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape &&
      llvm::all_of(starts, [](int64_t s) { return s == 0; }) &&
      llvm::all_of(strides, [](int64_t s) { return s == 1; }))
    return value;
  return SliceOp::create(builder, loc, type.clone(shape), value, starts,
                         strides);
}

Value DistBuilder::matmul(Value a, Value b, bool transposeA, bool transposeB) {
  return MatmulOp::create(builder, loc, a, b, transposeA, transposeB);
}

Value DistBuilder::sumToShape(Value gradient, Type target) {
  auto targetType = mlir::cast<RankedTensorType>(target);
  ArrayRef<int64_t> from = shapeOf(gradient);
  ArrayRef<int64_t> to = targetType.getShape();
  if (from == to)
    return gradient;
  int64_t lead = static_cast<int64_t>(from.size() - to.size());
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < static_cast<int64_t>(from.size()); ++d)
    if (d < lead || (to[d - lead] == 1 && from[d] != 1))
      axes.push_back(d);
  return reshape(reduceSum(gradient, axes, /*keepDims=*/false), to);
}
