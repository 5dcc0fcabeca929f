//===- ContractionOps.cpp - Matrix products: type inference ---------------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::dist;

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto lhs = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return emitOpInferenceError(loc, name, "operands must be ranked tensors");
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOpInferenceError(
        loc, name,
        "operands must have rank >= 2 (reshape vectors to matrices), "
        "got ranks ",
        lhs.getRank(), " and ", rhs.getRank());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpInferenceError(loc, name, "lhs has element type ",
                                lhs.getElementType(), " but rhs has ",
                                rhs.getElementType());
  ArrayRef<int64_t> ls = lhs.getShape(), rs = rhs.getShape();
  int64_t m = ls[ls.size() - 2], lk = ls.back();
  if (adaptor.getTransposeLhs())
    std::swap(m, lk);
  int64_t rk = rs[rs.size() - 2], n = rs.back();
  if (adaptor.getTransposeRhs())
    std::swap(rk, n);
  if (lk != rk)
    return emitOpInferenceError(loc, name, "contracting sizes differ: lhs ",
                                formatShape(ls), " gives K = ", lk, ", rhs ",
                                formatShape(rs), " gives K = ", rk);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(ls.drop_back(2), rs.drop_back(2),
                                          shape))
    return emitOpInferenceError(loc, name, "batch dimensions of lhs ",
                                formatShape(ls), " and rhs ", formatShape(rs),
                                " do not broadcast");
  shape.push_back(m);
  shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto a = dyn_cast<RankedTensorType>(adaptor.getA().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getB().getType());
  if (!a || !b)
    return emitOpInferenceError(loc, name, "operands must be ranked tensors");
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpInferenceError(loc, name,
                                "a and b must be matrices, got ranks ",
                                a.getRank(), " and ", b.getRank());
  if (a.getElementType() != b.getElementType())
    return emitOpInferenceError(loc, name, "a has element type ",
                                a.getElementType(), " but b has ",
                                b.getElementType());
  int64_t m = a.getDimSize(0), ak = a.getDimSize(1);
  if (adaptor.getTransposeA())
    std::swap(m, ak);
  int64_t bk = b.getDimSize(0), n = b.getDimSize(1);
  if (adaptor.getTransposeB())
    std::swap(bk, n);
  if (ak != bk)
    return emitOpInferenceError(loc, name, "contracting sizes differ: a ",
                                formatShape(a.getShape()), " gives K = ", ak,
                                ", b ", formatShape(b.getShape()),
                                " gives K = ", bk);
  SmallVector<int64_t> shape = {m, n};
  if (Value bias = adaptor.getBias()) {
    auto c = dyn_cast<RankedTensorType>(bias.getType());
    SmallVector<int64_t> broadcast;
    if (!c || c.getElementType() != a.getElementType() ||
        !OpTrait::util::getBroadcastedShape(c.getShape(), shape, broadcast) ||
        ArrayRef<int64_t>(broadcast) != ArrayRef<int64_t>(shape))
      return emitOpInferenceError(
          loc, name, "bias of type ", bias.getType(),
          " does not broadcast to the ", formatShape(shape),
          " result with element type ", a.getElementType());
  }
  types.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

/// 2 * (elements of the result) * k, or 0 when a shape is dynamic.
static int64_t productFlops(Type result, int64_t k) {
  auto type = dyn_cast<RankedTensorType>(result);
  if (!type || !type.hasStaticShape() || ShapedType::isDynamic(k))
    return 0;
  return 2 * type.getNumElements() * k;
}

int64_t MatmulOp::getFlops() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  int64_t rank = lhs.getRank();
  return productFlops(getType(),
                      lhs.getDimSize(getTransposeLhs() ? rank - 2 : rank - 1));
}

int64_t GemmOp::getFlops() {
  auto a = cast<RankedTensorType>(getA().getType());
  return productFlops(getType(), a.getDimSize(getTransposeA() ? 0 : 1));
}
