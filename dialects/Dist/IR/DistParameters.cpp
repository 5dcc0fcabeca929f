//===- DistParameters.cpp - Finding the parameters of a function ----------===//

#include "dialects/Dist/IR/DistParameters.h"

using namespace mlir;
using namespace mlir::dist;

FlatSymbolRefAttr mlir::dist::getParameterRef(FunctionOpInterface fn,
                                              unsigned argIndex) {
  return fn.getArgAttrOfType<FlatSymbolRefAttr>(
      argIndex, DistDialect::kParameterAttrName);
}

ParameterOp mlir::dist::lookupParameter(FunctionOpInterface fn,
                                        unsigned argIndex,
                                        SymbolTableCollection &symbols) {
  FlatSymbolRefAttr ref = getParameterRef(fn, argIndex);
  if (!ref)
    return {};
  return symbols.lookupNearestSymbolFrom<ParameterOp>(fn, ref);
}

void mlir::dist::bindParameter(FunctionOpInterface fn, unsigned argIndex,
                               ParameterOp param) {
  fn.setArgAttr(argIndex, DistDialect::kParameterAttrName,
                FlatSymbolRefAttr::get(param.getSymNameAttr()));
}

SmallVector<ParameterArgument>
mlir::dist::getParameterArguments(FunctionOpInterface fn,
                                  SymbolTableCollection &symbols,
                                  bool trainableOnly) {
  SmallVector<ParameterArgument> result;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    ParameterOp param = lookupParameter(fn, i, symbols);
    if (param && (!trainableOnly || param.isTrainable()))
      result.push_back({i, param});
  }
  return result;
}

std::pair<StringRef, std::string>
mlir::dist::describeArgument(FunctionOpInterface fn, unsigned argIndex) {
  if (FlatSymbolRefAttr param = getParameterRef(fn, argIndex))
    return {"param", param.getValue().str()};
  if (auto state = fn.getArgAttrOfType<StringAttr>(
          argIndex, DistDialect::kOptimizerStateAttrName))
    return {"state", state.getValue().str()};
  if (fn.getArgAttr(argIndex, DistDialect::kStepAttrName))
    return {"step", "step"};
  if (auto name = fn.getArgAttrOfType<StringAttr>(
          argIndex, DistDialect::kInputNameAttrName))
    return {"input", name.getValue().str()};
  return {"input", "arg" + std::to_string(argIndex)};
}
