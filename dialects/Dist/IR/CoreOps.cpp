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
// MeshOp
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  if (getShape().empty())
    return emitOpError("needs at least one axis");
  for (auto [axis, size] : llvm::enumerate(getShape()))
    if (size < 1)
      return emitOpError("axis ") << axis << " has size " << size
                                  << "; every axis needs at least 1 device";
  for (MeshOp other : (*this)->getParentOfType<ModuleOp>().getOps<MeshOp>())
    if (other != *this) {
      if (other->isBeforeInBlock(*this))
        return emitOpError("is a second mesh; a module has at most one");
      break;
    }
  return success();
}

/// Nothing refers to the mesh by name yet (shardings and collectives use
/// the module's one mesh), so symbol-dce must not take it for dead.
bool MeshOp::canDiscardOnUseEmpty() { return false; }

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
