//===- CoreOps.cpp - Constants and parameters -----------------------------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"

using namespace mlir;
using namespace mlir::dist;

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult
ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                             ValueRange, DictionaryAttr attributes,
                             OpaqueProperties properties, RegionRange,
                             SmallVectorImpl<Type> &types) {
  ConstantOp::Adaptor adaptor(ValueRange{}, attributes, properties);
  ElementsAttr value = adaptor.getValueAttr();
  if (!value)
    return emitOpInferenceError(loc, getOperationName(),
                                "needs a 'value' attribute");
  types.push_back(value.getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// ParameterOp
//===----------------------------------------------------------------------===//

LogicalResult ParameterOp::verify() {
  if (std::optional<ElementsAttr> init = getInitialValue();
      init && init->getType() != getType())
    return emitOpError("initial value of type ")
           << init->getType() << " does not match the parameter's type "
           << getType();
  return success();
}
