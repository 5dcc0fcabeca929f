//===- Memory.cpp - The local work of collectives, on host or device ------===//

#include "Comm.h"

#include <cstring>

namespace distrt::comm::memory {

// The device's side is src/cuda/DeviceMemory.cpp's (NoCuda.cpp: none).

void copy2D(bool device, void *dst, size_t dstPitch, const void *src,
            size_t srcPitch, size_t width, size_t height) {
  if (!width || !height)
    return;
  if (device)
    return deviceCopy2D(dst, dstPitch, src, srcPitch, width, height);
  for (size_t row = 0; row < height; ++row)
    std::memcpy(static_cast<char *>(dst) + row * dstPitch,
                static_cast<const char *>(src) + row * srcPitch, width);
}

std::shared_ptr<char> scratch(bool device, size_t bytes) {
  if (device)
    return deviceScratch(bytes);
  return std::shared_ptr<char>(new char[bytes ? bytes : 1],
                               std::default_delete<char[]>());
}

} // namespace distrt::comm::memory
