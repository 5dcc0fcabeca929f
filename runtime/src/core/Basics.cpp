//===- Basics.cpp - distrt errors and element types -----------------------===//
//
// What every part of distrt (and the compiler, through distrt_formats)
// needs: the per-thread error message and the element types' sizes and
// names.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "distrt/distrt.h"

#include <cstdarg>
#include <cstdio>

namespace {
thread_local char lastError[1024] = "";

struct DtypeInfo {
  size_t size;
  const char *name;
};

constexpr DtypeInfo kDtypes[DISTRT_NUM_DTYPES] = {
#define DISTRT_DTYPE_INFO(e, name, bytes, isFloat, isSigned, bits)             \
  {bytes, name},
    DISTRT_DTYPES(DISTRT_DTYPE_INFO)
#undef DISTRT_DTYPE_INFO
};
} // namespace

int distrt::fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(lastError, sizeof(lastError), format, args);
  va_end(args);
  return -1;
}

extern "C" const char *distrt_last_error(void) { return lastError; }

extern "C" size_t distrt_dtype_size(distrt_dtype dtype) {
  return dtype >= 0 && dtype < DISTRT_NUM_DTYPES ? kDtypes[dtype].size : 0;
}

extern "C" const char *distrt_dtype_name(distrt_dtype dtype) {
  return dtype >= 0 && dtype < DISTRT_NUM_DTYPES ? kDtypes[dtype].name
                                                 : "invalid";
}

extern "C" int64_t distrt_tensor_numel(const distrt_tensor *tensor) {
  int64_t n = 1;
  for (int32_t i = 0; i < tensor->rank; ++i)
    n *= tensor->shape[i];
  return n;
}
