//===- Device.h - What distrt's core asks of the CUDA part ------*- C++ -*-===//
//
// distrt_alloc, distrt_free, distrt_copy and distrt_device_synchronize
// (Core.cpp) hand anything that is not host memory to these, defined by
// src/cuda (or by src/cuda/NoCuda.cpp in a build without the CUDA headers,
// where they fail). Each returns like the C ABI: NULL or -1 with
// distrt::fail's message set.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CORE_DEVICE_H
#define DISTRT_CORE_DEVICE_H

#include "distrt/distrt.h"

#include <cstddef>

namespace distrt::device {

/// `bytes` of memory on CUDA device `index` (the caching allocator).
void *cudaAlloc(int32_t index, size_t bytes);
/// Gives `memory` back to the caching allocator (stream-ordered).
void cudaFree(int32_t index, void *memory);
/// A copy of which at least one side is a CUDA device: returns once the
/// copy is complete as far as the host can tell (a device-to-host copy
/// waits for the stream; host-to-device and device-to-device are ordered
/// on it).
int cudaCopy(distrt_device dstDevice, void *dst, distrt_device srcDevice,
             const void *src, size_t bytes);
/// Waits for the compute stream of CUDA device `index`.
int cudaSynchronize(int32_t index);

} // namespace distrt::device

#endif // DISTRT_CORE_DEVICE_H
