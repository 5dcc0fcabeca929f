//===- DistDescribeModel.cpp - The executable's interface descriptor ------===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringSet.h"

#define DEBUG_TYPE "dist-describe-model"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDESCRIBEMODEL
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The runtime's name of an element type (distrt_dtype_name), or "" if it
/// has none.
static StringRef dtypeName(Type t) {
  if (t.isF32())
    return "float32";
  if (t.isF64())
    return "float64";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  if (auto it = dyn_cast<IntegerType>(t)) {
    bool u = it.isUnsigned();
    switch (it.getWidth()) {
    case 1:
      return "bool";
    case 8:
      return u ? "uint8" : "int8";
    case 16:
      return u ? "uint16" : "int16";
    case 32:
      return u ? "uint32" : "int32";
    case 64:
      return u ? "uint64" : "int64";
    }
  }
  return "";
}

struct DistDescribeModelPass
    : dist::impl::DistDescribeModelBase<DistDescribeModelPass> {
  using DistDescribeModelBase::DistDescribeModelBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal()) {
      module.emitError() << "no function @" << entry
                         << " to compile; name the entry with entry=<name>";
      return signalPassFailure();
    }
    std::string text = "dist-model 1\n";
    llvm::raw_string_ostream os(text);
    llvm::StringSet<> inputNames, outputNames;
    auto line = [&](Location loc, StringRef kind, Type type,
                    StringRef name) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      StringRef dtype = tensor ? dtypeName(tensor.getElementType()) : "";
      if (!tensor || !tensor.hasStaticShape() || dtype.empty())
        return emitError(loc) << kind << " '" << name << "' has type " << type
                              << "; the executable supports statically "
                                 "shaped tensors of the dist element types";
      if (name.empty() || name.contains('\n'))
        return emitError(loc) << kind
                              << " names must be non-empty single "
                                 "lines";
      os << kind << ' ' << dtype << ' ';
      if (tensor.getRank() == 0)
        os << "scalar";
      llvm::interleave(tensor.getShape(), os, "x");
      os << ' ' << name << '\n';
      return success();
    };
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      Location loc = arg.getLoc();
      if (auto param = func.getArgAttrOfType<FlatSymbolRefAttr>(
              i, DistDialect::kParameterAttrName)) {
        if (failed(line(loc, "param", arg.getType(), param.getValue())))
          return signalPassFailure();

      } else {
        std::string name = ("arg" + Twine(i)).str();
        if (auto n = func.getArgAttrOfType<StringAttr>(
                i, DistDialect::kInputNameAttrName))
          name = n.getValue().str();
        if (!inputNames.insert(name).second) {
          emitError(loc) << "two inputs are named '" << name << "'";
          return signalPassFailure();
        }
        if (failed(line(loc, "input", arg.getType(), name)))
          return signalPassFailure();
      }
      func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(&getContext(), false));
    }
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      std::string name = ("output" + Twine(i)).str();
      if (auto n = func.getResultAttrOfType<StringAttr>(
              i, DistDialect::kOutputNameAttrName))
        name = n.getValue().str();
      if (!outputNames.insert(name).second) {
        func.emitError() << "two outputs are named '" << name << "'";
        return signalPassFailure();
      }
      if (failed(line(func.getLoc(), "output", type, name)))
        return signalPassFailure();
    }
    // The descriptor carries the names and bindings from here on: the
    // arguments stop being tensors of their parameters' types at
    // bufferization, and results become arguments.
    auto isDistAttr = [](NamedAttribute attr) {
      return attr.getName().getValue().starts_with("dist.");
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      for (NamedAttribute attr : llvm::to_vector(func.getArgAttrDict(i) ? func.getArgAttrDict(i).getValue() : ArrayRef<NamedAttribute>()))
        if (isDistAttr(attr))
          func.removeArgAttr(i, attr.getName());
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      for (NamedAttribute attr : llvm::to_vector(func.getResultAttrDict(i) ? func.getResultAttrDict(i).getValue() : ArrayRef<NamedAttribute>()))
        if (isDistAttr(attr))
          func.removeResultAttr(i, attr.getName());
    module->setAttr(kModelInterfaceAttrName,
                    StringAttr::get(&getContext(), text));
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(&getContext()));
  }
};

} // namespace
