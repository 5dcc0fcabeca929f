//===- DistDiagnostics.h - Diagnostics of dist op checks --------*- C++ -*-===//
//
// Type inference runs both while parsing (with an optional location and no
// op) and while verifying. These helpers make its messages read exactly like
// `Operation::emitOpError`, so users and tests see one format.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_DISTDIAGNOSTICS_H
#define DIALECTS_DIST_IR_DISTDIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

#include <string>

namespace mlir::dist {

/// Emits "'<opName>' op <args...>" at `loc` (when there is one) and fails.
template <typename... Args>
LogicalResult emitOpInferenceError(std::optional<Location> loc,
                                   llvm::StringRef opName, Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
}

/// The first NameLoc's name in `loc` (the ONNX node an op came from), or "".
inline std::string nodeName(Location loc) {
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

/// A shape as users write it in a tensor type: "4x8", or "scalar" for rank 0.
inline std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

/// A list of integers as written in attributes: "[0, 2, 1]".
inline std::string formatList(llvm::ArrayRef<int64_t> values) {
  return "[" +
         llvm::join(llvm::map_range(
                        values, [](int64_t v) { return std::to_string(v); }),
                    ", ") +
         "]";
}

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTDIAGNOSTICS_H
