//===- TypeInference.cpp - Shared result-type rules of dist ops -----------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistTypeInference.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::dist;

LogicalResult mlir::dist::broadcastShapes(std::optional<Location> loc,
                                          StringRef opName, ValueRange operands,
                                          SmallVectorImpl<int64_t> &shape) {
  shape.clear();
  for (auto [index, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      return emitOpInferenceError(loc, opName, "operand #", index,
                                  " must be a ranked tensor, got ",
                                  operand.getType());
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, type.getShape(), next))
      return emitOpInferenceError(
          loc, opName, "operand #", index, " of shape ",
          formatShape(type.getShape()),
          " does not broadcast with the shape of the operands before it (",
          formatShape(shape),
          "): sizes must be equal or 1 when aligned on the right");
    shape = std::move(next);
  }
  return success();
}

LogicalResult
mlir::dist::inferBroadcastResultType(std::optional<Location> loc,
                                     StringRef opName, ValueRange operands,
                                     SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, opName, operands, shape)))
    return failure();
  Type elementType = getElementTypeOrSelf(operands[0].getType());
  for (auto [index, operand] : llvm::enumerate(operands)) {
    Type other = getElementTypeOrSelf(operand.getType());
    if (other != elementType)
      return emitOpInferenceError(
          loc, opName, "operand #", index, " has element type ", other,
          " but operand #0 has ", elementType, ": insert a dist.cast");
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}
