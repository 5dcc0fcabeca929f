//===- DistBuilder.h - Building gradients out of dist ops ---*- C++ -*-===//
//
// The small vocabulary the gradient implementations share: constants, the
// elementwise arithmetic they are written in, and undoing broadcasts.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_DISTBUILDER_H
#define DIALECTS_DIST_IR_DISTBUILDER_H

#include "dialects/Dist/IR/DistOps.h"

namespace mlir::dist {

class DistBuilder {
public:
  DistBuilder(OpBuilder &builder, Location loc) : builder(builder), loc(loc) {}

  OpBuilder &getBuilder() { return builder; }
  Location getLoc() { return loc; }

  /// A rank-0 constant of `elementType` (which broadcasts against anything).
  Value scalar(double value, Type elementType);
  /// A rank-0 constant of `like`'s element type.
  Value scalarLike(double value, Value like);
  Value zeros(Type tensorType);
  /// 0, 1, ..., n-1 of `elementType`, shaped `1 x .. x n x .. x 1` (rank
  /// `rank`, n at `axis`).
  Value iota(int64_t n, Type elementType, int64_t rank, int64_t axis);

  Value add(Value a, Value b) { return AddOp::create(builder, loc, a, b); }
  Value sub(Value a, Value b) { return SubOp::create(builder, loc, a, b); }
  Value mul(Value a, Value b) { return MulOp::create(builder, loc, a, b); }
  Value div(Value a, Value b) { return DivOp::create(builder, loc, a, b); }
  Value neg(Value a) { return NegOp::create(builder, loc, a); }
  Value mul(Value a, double c) { return mul(a, scalarLike(c, a)); }
  Value compare(ComparePredicate predicate, Value a, Value b) {
    return CompareOp::create(builder, loc, predicate, a, b);
  }
  Value select(Value condition, Value a, Value b) {
    return SelectOp::create(builder, loc, condition, a, b);
  }
  Value cast(Value value, Type elementType);
  Value reshape(Value value, ArrayRef<int64_t> shape);
  Value broadcastTo(Value value, ArrayRef<int64_t> shape);
  Value reduceSum(Value value, ArrayRef<int64_t> axes, bool keepDims);
  Value reduceMean(Value value, ArrayRef<int64_t> axes, bool keepDims);
  Value transpose(Value value, ArrayRef<int64_t> permutation);
  Value slice(Value value, ArrayRef<int64_t> starts, ArrayRef<int64_t> strides,
              ArrayRef<int64_t> shape);
  Value matmul(Value a, Value b, bool transposeA, bool transposeB);

  /// The gradient of an operand of type `target` that broadcasting
  /// stretched to `gradient`'s shape: sums over the stretched dimensions.
  Value sumToShape(Value gradient, Type target);

private:
  OpBuilder &builder;
  Location loc;
};

/// The shape of a ranked tensor value.
inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}
inline Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTBUILDER_H
