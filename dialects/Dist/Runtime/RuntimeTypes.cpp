//===- RuntimeTypes.cpp - Element types as the runtime numbers them -------===//

#include "dialects/Dist/Runtime/RuntimeTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace {

struct RuntimeType {
  distrt_dtype dtype;
  llvm::StringLiteral name;
  bool isFloat, isSigned;
  unsigned bits;
};

constexpr RuntimeType kRuntimeTypes[] = {
#define DIST_RUNTIME_TYPE(e, name, bytes, isFloat, isSigned, bits)             \
  {DISTRT_##e, name, isFloat != 0, isSigned != 0, bits},
    DISTRT_DTYPES(DIST_RUNTIME_TYPE)
#undef DIST_RUNTIME_TYPE
};

const RuntimeType *find(Type type) {
  for (const RuntimeType &entry : kRuntimeTypes) {
    if (entry.isFloat) {
      // f16 and bf16 have the same width: tell them by name.
      bool bf16 = entry.dtype == DISTRT_BF16;
      if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == entry.bits &&
          isa<BFloat16Type>(type) == bf16)
        return &entry;
      continue;
    }
    auto integer = dyn_cast<IntegerType>(type);
    if (!integer || integer.getWidth() != entry.bits)
      continue;
    // i1 is bool; other signless integers are signed.
    if (entry.bits == 1 || integer.isUnsigned() != entry.isSigned)
      return &entry;
  }
  return nullptr;
}

} // namespace

std::optional<distrt_dtype> mlir::dist::runtimeDtype(Type type) {
  if (const RuntimeType *entry = find(type))
    return entry->dtype;
  return std::nullopt;
}

llvm::StringRef mlir::dist::runtimeDtypeName(Type type) {
  const RuntimeType *entry = find(type);
  return entry ? llvm::StringRef(entry->name) : llvm::StringRef();
}
