//===- KernelName.cpp - Kernel names that say which op they compute -------===//

#include "passes/Cuda/KernelName.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cctype>

using namespace mlir;

/// The first NameLoc's name in `loc`, or "".
static std::string nodeName(Location loc) {
  std::string name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

void mlir::dist::nameKernel(gpu::LaunchOp launch, Operation *source,
                            unsigned index) {
  std::string name;
  if (auto func = source->getParentOfType<func::FuncOp>())
    name = func.getSymName().str();
  name += "_k" + std::to_string(index);
  std::string node = nodeName(source->getLoc());
  if (!node.empty())
    name += "_";
  for (char c : node)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.size() > 120)
    name.resize(120);
  launch.setFunctionAttr(FlatSymbolRefAttr::get(launch.getContext(), name));
}
