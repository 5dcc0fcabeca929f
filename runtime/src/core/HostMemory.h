//===- HostMemory.h - Counted host allocations ------------------*- C++ -*-===//

#ifndef DISTRT_CORE_HOSTMEMORY_H
#define DISTRT_CORE_HOSTMEMORY_H

#include <cstddef>

namespace distrt {

/// A counted host block of `bytes` (0 allowed) aligned to `alignment` (a
/// power of two), or null.
void *hostAlloc(size_t alignment, size_t bytes);
/// Frees a block of hostAlloc or distrt_host_*alloc; null does nothing.
void hostFree(void *memory);

} // namespace distrt

#endif // DISTRT_CORE_HOSTMEMORY_H
