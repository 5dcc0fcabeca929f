//===- RuntimeTypes.h - Element types as the runtime numbers them -*- C++
//-*-===//
//
// The compiler's one view of distrt_dtype (runtime/include/distrt/distrt.h,
// DISTRT_DTYPES): the number a runtime call takes, the name the model
// interface and weights files use. Reordering the runtime's list changes
// both sides together.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_RUNTIME_RUNTIMETYPES_H
#define DIALECTS_DIST_RUNTIME_RUNTIMETYPES_H

#include "distrt/distrt.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::dist {

/// The runtime's element type of `type` (f32, f64, f16, bf16, signless or
/// signed integers as signed, unsigned ones, i1 as bool), or nullopt.
std::optional<distrt_dtype> runtimeDtype(Type type);

/// distrt_dtype_name's text of `type` ("float32", "uint8", ...), or "".
llvm::StringRef runtimeDtypeName(Type type);

} // namespace mlir::dist

#endif // DIALECTS_DIST_RUNTIME_RUNTIMETYPES_H
