//===- Error.h - distrt's per-thread error message --------------*- C++ -*-===//

#ifndef DISTRT_CORE_ERROR_H
#define DISTRT_CORE_ERROR_H

namespace distrt {

/// Records a printf-style message as this thread's last error; returns -1 so
/// that `return fail(...)` is a C-ABI failure.
int fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

} // namespace distrt

#endif // DISTRT_CORE_ERROR_H
