//===- DeviceMemory.cpp - The local work of collectives on the GPU --------===//
//
// Comm.h's memory hooks for buffers of the open CUDA device: copies on the
// compute stream (so they follow the kernels that wrote the data and
// precede those that read it), temporaries from the caching allocator.
//
//===----------------------------------------------------------------------===//

#include "../comm/Comm.h"
#include "Cuda.h"

namespace distrt::comm::memory {

bool onDevice(const void *pointer) {
  cuda::Device *device = cuda::opened();
  if (!device || !pointer)
    return false;
  // Host memory the driver never saw is "invalid value": not the device's.
  // Any other failure (a kernel's fault left the context unusable) must not
  // send a device buffer down the host's path.
  CUmemorytype type = CU_MEMORYTYPE_HOST;
  CUresult result = device->driver.cuPointerGetAttribute(
      &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
      reinterpret_cast<CUdeviceptr>(pointer));
  if (result == CUDA_ERROR_INVALID_VALUE)
    return false;
  cuda::check(result, "cuPointerGetAttribute",
              "is a collective's buffer on the GPU?");
  return type == CU_MEMORYTYPE_DEVICE;
}

void deviceCopy2D(void *dst, size_t dstPitch, const void *src, size_t srcPitch,
                  size_t width, size_t height) {
  cuda::Device &device = cuda::require();
  std::string detail = std::to_string(height) + " x " + std::to_string(width) +
                       " bytes, for a collective";
  if (height == 1) {
    cuda::check(device.driver.cuMemcpyDtoDAsync(
                    reinterpret_cast<CUdeviceptr>(dst),
                    reinterpret_cast<CUdeviceptr>(src), width, device.stream),
                "cuMemcpyDtoDAsync", detail);
    return;
  }
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  copy.srcPitch = srcPitch;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  copy.dstPitch = dstPitch;
  copy.WidthInBytes = width;
  copy.Height = height;
  cuda::check(device.driver.cuMemcpy2DAsync(&copy, device.stream),
              "cuMemcpy2DAsync", detail);
}

std::shared_ptr<char> deviceScratch(size_t bytes) {
  cuda::Device &device = cuda::require();
  std::string error;
  CUdeviceptr block = cuda::allocator().allocate(device, bytes ? bytes : 1,
                                                 error);
  if (!block)
    cuda::fatalMessage("a collective's temporary of " +
                       cuda::byteText(bytes) + ": " + error);
  // Back to the cache when the last user is done: later users of the block
  // are ordered after this one on the compute stream.
  return std::shared_ptr<char>(reinterpret_cast<char *>(block), [](char *p) {
    cuda::allocator().release(reinterpret_cast<CUdeviceptr>(p));
  });
}

} // namespace distrt::comm::memory
