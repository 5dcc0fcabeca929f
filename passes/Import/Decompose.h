//===- Decompose.h - Building ONNX ops out of dist ops ----------*- C++ -*-===//
//
// Many ONNX ops (activations, norms of vectors, Mod, Hardmax) are a few dist
// ops. `Decomposer` builds such expressions at the node: each method returns
// null once an operand is null or an op's inference fails (having reported
// the op's own diagnostic), so a whole expression is checked once at the end.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_DECOMPOSE_H
#define PASSES_IMPORT_DECOMPOSE_H

#include "passes/Import/NodeImporter.h"

#include "mlir/IR/TypeUtilities.h"

namespace mlir::dist::onnx_import {

class Decomposer {
public:
  /// Scalars get `elementType`.
  Decomposer(NodeImporter &n, Type elementType)
      : n(n), elementType(elementType) {}
  Decomposer(NodeImporter &n, Value like)
      : n(n),
        elementType(like ? getElementTypeOrSelf(like.getType()) : Type()) {}

  /// A 0-d constant that broadcasts against any operand.
  Value c(double value) {
    return elementType ? n.scalar(elementType, value) : Value();
  }

  template <typename OpTy> Value unary(Value x) {
    return x ? n.create<OpTy>(x).getResult() : Value();
  }
  template <typename OpTy> Value binary(Value a, Value b) {
    return a && b ? n.buildValue<OpTy>(a, b) : Value();
  }
  Value add(Value a, Value b) { return binary<AddOp>(a, b); }
  Value sub(Value a, Value b) { return binary<SubOp>(a, b); }
  Value mul(Value a, Value b) { return binary<MulOp>(a, b); }
  Value div(Value a, Value b) { return binary<DivOp>(a, b); }
  Value max(Value a, Value b) { return binary<MaxOp>(a, b); }
  Value min(Value a, Value b) { return binary<MinOp>(a, b); }
  Value exp(Value x) { return unary<ExpOp>(x); }
  Value log(Value x) { return unary<LogOp>(x); }
  Value abs(Value x) { return unary<AbsOp>(x); }
  Value cmp(ComparePredicate predicate, Value a, Value b) {
    return a && b ? n.buildValue<CompareOp>(predicate, a, b) : Value();
  }
  Value select(Value condition, Value onTrue, Value onFalse) {
    return condition && onTrue && onFalse
               ? n.buildValue<SelectOp>(condition, onTrue, onFalse)
               : Value();
  }
  /// `x` converted to `elementType` (itself when it has it).
  Value cast(Value x, Type to) {
    if (!x)
      return {};
    auto type = llvm::cast<RankedTensorType>(x.getType());
    if (type.getElementType() == to)
      return x;
    return n.create<CastOp>(type.clone(to), x);
  }

  /// Positions 0..size-1 (i64) along dimension `axis` of a rank-`rank`
  /// tensor whose other dimensions are 1, to compare indices against.
  Value iota(int64_t rank, int64_t axis, int64_t size) {
    SmallVector<int64_t> shape(rank, 1);
    shape[axis] = size;
    SmallVector<int64_t> positions =
        llvm::to_vector(llvm::seq<int64_t>(0, size));
    return n.create<ConstantOp>(DenseElementsAttr::get(
        RankedTensorType::get(shape, n.builder.getI64Type()),
        ArrayRef<int64_t>(positions)));
  }

  /// Binds `result` to output `i`; fails when the expression failed.
  LogicalResult bind(Value result, unsigned i = 0) {
    if (!result)
      return failure();
    n.setOutput(i, result);
    return success();
  }

private:
  NodeImporter &n;
  Type elementType;
};

/// Converter for a node whose output is `fn(node, decomposer, input 0)`, the
/// decomposer's scalars taking the input's element type. `fn` returns null
/// after reporting an error.
template <Value (*fn)(NodeImporter &, Decomposer &, Value)>
LogicalResult convertExpression(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Decomposer d(n, x);
  return d.bind(fn(n, d, x));
}

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_DECOMPOSE_H
