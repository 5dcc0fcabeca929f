//===- Allocator.cpp - The caching allocator of device memory -------------===//
//
// cuMemAlloc and cuMemFree are slow and synchronizing; a training step
// allocates and frees the same sizes every time. So sizes are rounded to a
// class (512 bytes; 2 MiB from 1 MiB on), and a freed block goes on the free
// list of its class, from which the next request of that class takes it. No
// splitting or merging: simple, and in steady state a step calls no
// cuMemAlloc. Every use of device memory is ordered on the one compute
// stream, so a block freed by queued work can be handed out at once: its
// next user is queued after its last one.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <algorithm>

namespace distrt::cuda {

CUdeviceptr Allocator::allocate(Device &device, size_t bytes,
                                std::string &error) {
  if (bytes > (size_t(1) << 48)) {
    error = "cuMemAlloc(" + std::to_string(bytes) +
            " bytes): more than 256 TiB requested";
    return 0;
  }
  size_t size = distrt_cuda_block_bytes(bytes);
  std::lock_guard<std::mutex> lock(mutex);
  CUdeviceptr pointer = 0;
  auto found = cached.find(size);
  if (found != cached.end() && !found->second.empty()) {
    pointer = found->second.back();
    found->second.pop_back();
  } else {
    CUresult result = device.driver.cuMemAlloc(&pointer, size);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
      freeCached(device);
      result = device.driver.cuMemAlloc(&pointer, size);
    }
    if (result != CUDA_SUCCESS) {
      error = "cuMemAlloc(" + std::to_string(bytes) +
              " bytes) failed: " + errorText(result);
      if (result == CUDA_ERROR_OUT_OF_MEMORY)
        error += " (requested " + byteText(bytes) + "; in use " +
                 byteText(inUse) + ", reserved " + byteText(reserved) +
                 " after freeing the cached blocks, device total " +
                 byteText(device.totalMemory) + ")";
      return 0;
    }
    ++driverAllocs;
    reserved += size;
  }
  live.emplace(pointer, size);
  inUse += size;
  peak = std::max(peak, inUse);
  return pointer;
}

bool Allocator::release(CUdeviceptr pointer) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = live.find(pointer);
  if (found == live.end())
    return false;
  inUse -= found->second;
  cached[found->second].push_back(pointer);
  live.erase(found);
  return true;
}

void Allocator::freeCached(Device &device) {
  bool any = false;
  for (const auto &entry : cached)
    any = any || !entry.second.empty();
  if (!any)
    return;
  // Queued work may still use a cached block.
  synchronize(device);
  for (auto &entry : cached) {
    for (CUdeviceptr pointer : entry.second)
      if (device.driver.cuMemFree(pointer) == CUDA_SUCCESS)
        reserved -= entry.first;
    entry.second.clear();
  }
}

distrt_cuda_memory Allocator::stats(const Device &device) {
  std::lock_guard<std::mutex> lock(mutex);
  distrt_cuda_memory out;
  out.in_use = inUse;
  out.peak_in_use = peak;
  out.reserved = reserved;
  out.driver_allocs = driverAllocs;
  out.device_total = device.totalMemory;
  return out;
}

void Allocator::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex);
  peak = inUse;
}

Allocator &allocator() {
  // Never destroyed: compiled code's global destructors may free memory
  // after main.
  static Allocator *instance = new Allocator;
  return *instance;
}

} // namespace distrt::cuda
