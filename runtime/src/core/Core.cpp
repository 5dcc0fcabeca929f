//===- Core.cpp - distrt memory, steps and time ---------------------------===//

#include "Device.h"
#include "Error.h"
#include "HostMemory.h"
#include "distrt/distrt.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
/// distrt_set_step's value; INT64_MIN before the first step.
std::atomic<int64_t> currentStep{INT64_MIN};
} // namespace

extern "C" void *distrt_alloc(distrt_device device, size_t bytes) {
  if (device.kind == DISTRT_CUDA)
    return distrt::device::cudaAlloc(device.index, bytes);
  if (device.kind != DISTRT_HOST) {
    distrt::fail("distrt_alloc: unknown device kind %d",
                 static_cast<int>(device.kind));
    return nullptr;
  }
  void *memory = distrt::hostAlloc(64, bytes);
  if (!memory)
    distrt::fail("distrt_alloc: out of memory allocating %zu bytes", bytes);
  return memory;
}

extern "C" void distrt_free(distrt_device device, void *memory) {
  if (device.kind == DISTRT_HOST)
    distrt::hostFree(memory);
  else if (device.kind == DISTRT_CUDA && memory)
    distrt::device::cudaFree(device.index, memory);
}

extern "C" int distrt_copy(distrt_device dst_device, void *dst,
                           distrt_device src_device, const void *src,
                           size_t bytes) {
  for (distrt_device device : {dst_device, src_device})
    if (device.kind != DISTRT_HOST && device.kind != DISTRT_CUDA)
      return distrt::fail("distrt_copy: unknown device kind %d",
                          static_cast<int>(device.kind));
  if (bytes == 0)
    return 0;
  if (!dst || !src)
    return distrt::fail("distrt_copy: null pointer (dst %p, src %p)", dst, src);
  if (dst_device.kind == DISTRT_HOST && src_device.kind == DISTRT_HOST) {
    std::memmove(dst, src, bytes);
    return 0;
  }
  return distrt::device::cudaCopy(dst_device, dst, src_device, src, bytes);
}

extern "C" int distrt_device_synchronize(distrt_device device) {
  if (device.kind == DISTRT_HOST)
    return 0;
  if (device.kind != DISTRT_CUDA)
    return distrt::fail("distrt_device_synchronize: unknown device kind %d",
                        static_cast<int>(device.kind));
  return distrt::device::cudaSynchronize(device.index);
}

extern "C" void distrt_set_step(int64_t step) { currentStep = step; }

std::string distrt::stepText() {
  int64_t step = currentStep;
  return step == INT64_MIN ? "before the first step"
                           : "step " + std::to_string(step);
}

extern "C" uint64_t distrt_now_ns(void) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

extern "C" void distrt_fail(const char *message) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message);
  // Under a mesh the whole job ends: no other rank waits for this one.
  distrt_comm_abort(1);
}
