//===- fake_cuda_driver.cpp - A CUDA driver API on host memory, for tests -===//
//
// Built as a shared library named libcuda.so.1 (soname too) and given to
// distrt with DISTRT_CUDA_DRIVER, it stands in for the NVIDIA driver in the
// tests of everything that needs no kernel: the caching allocator, copies,
// memsets, the driver's uploads and downloads. "Device" memory is host
// memory (so a test may read it), streams and events do nothing, modules
// load as dummies, and launching a kernel fails with
// CUDA_ERROR_NOT_SUPPORTED (but one named noop*, which does nothing). An
// event holds the host's time of its last record. The environment shapes it:
//   FAKE_CUDA_MEMORY=N        the device's total memory in bytes (default
//                             1 GiB); cuMemAlloc beyond it runs out of memory
//   FAKE_CUDA_INIT_RESULT=N   cuInit's result (default 0)
//   FAKE_CUDA_DEVICES=N       cuDeviceGetCount's (default 1)
//   FAKE_CUDA_ALL_DEVICE=1    every pointer is device memory (a host
//                             buffer too, since "device" memory is host's)
//   FAKE_CUDA_SYNC_RESULT=N   what cuStreamSynchronize returns from the
//                             FAKE_CUDA_SYNC_AFTER'th call on (default 0)
// fake_cuda_alloc_calls() counts the cuMemAlloc calls that succeeded.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <chrono>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string.h>

namespace {

uint64_t limit() {
  const char *value = std::getenv("FAKE_CUDA_MEMORY");
  return value ? std::strtoull(value, nullptr, 10) : (uint64_t(1) << 30);
}

int envInt(const char *name, int fallback) {
  const char *value = std::getenv(name);
  return value ? std::atoi(value) : fallback;
}

std::map<CUdeviceptr, size_t> &blocks() {
  static auto *map = new std::map<CUdeviceptr, size_t>;
  return *map;
}
uint64_t used = 0;
int64_t allocCalls = 0;
int syncCalls = 0;

struct Name {
  CUresult result;
  const char *name, *text;
};
constexpr Name kNames[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported"},
};

int dummy; // the address of every context, stream, event, module, function

} // namespace

extern "C" int64_t fake_cuda_alloc_calls(void) { return allocCalls; }

CUresult cuInit(unsigned int) {
  return static_cast<CUresult>(envInt("FAKE_CUDA_INIT_RESULT", 0));
}
CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult result, const char **name) {
  for (const Name &entry : kNames)
    if (entry.result == result) {
      *name = entry.name;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  for (const Name &entry : kNames)
    if (entry.result == result) {
      *text = entry.text;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuDeviceGetCount(int *count) {
  *count = envInt("FAKE_CUDA_DEVICES", 1);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  // FAKE_CUDA_DEVICE_NAME: pose as a GPU of distrt's peak-rate table.
  const char *posed = std::getenv("FAKE_CUDA_DEVICE_NAME");
  std::strncpy(name, posed ? posed : "Fake CUDA GPU (distrt test driver)",
               static_cast<size_t>(length));
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = limit();
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice) {
  *value = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&dummy);
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(&dummy);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) {
  if (++syncCalls >= envInt("FAKE_CUDA_SYNC_AFTER", 1))
    return static_cast<CUresult>(envInt("FAKE_CUDA_SYNC_RESULT", 0));
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}
// An event holds the host's time of its last record (work runs at once
// here, so that is when it completed).
CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new int64_t(0));
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent event) {
  delete reinterpret_cast<int64_t *>(event);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream) {
  *reinterpret_cast<int64_t *>(event) =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count();
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  *ms = static_cast<float>(*reinterpret_cast<int64_t *>(end) -
                           *reinterpret_cast<int64_t *>(start)) /
        1e6f;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (used + bytes > limit())
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  blocks()[*pointer] = bytes;
  used += bytes;
  ++allocCalls;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr pointer) {
  auto found = blocks().find(pointer);
  if (found == blocks().end())
    return CUDA_ERROR_INVALID_VALUE;
  used -= found->second;
  blocks().erase(found);
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream) {
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
               bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
                           CUstream) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream) {
  std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *copy, CUstream) {
  for (size_t row = 0; row < copy->Height; ++row)
    std::memmove(reinterpret_cast<char *>(copy->dstDevice) +
                     row * copy->dstPitch,
                 reinterpret_cast<const char *>(copy->srcDevice) +
                     row * copy->srcPitch,
                 copy->WidthInBytes);
  return CUDA_SUCCESS;
}
// Device memory: inside a block of cuMemAlloc, or (FAKE_CUDA_ALL_DEVICE=1,
// for tests that hand host buffers to the device's paths) any pointer.
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                               CUdeviceptr pointer) {
  if (attribute != CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    return CUDA_ERROR_NOT_SUPPORTED;
  bool device = envInt("FAKE_CUDA_ALL_DEVICE", 0) == 1;
  auto after = blocks().upper_bound(pointer);
  if (after != blocks().begin()) {
    --after;
    device = device || pointer < after->first + after->second;
  }
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  *static_cast<CUmemorytype *>(data) = CU_MEMORYTYPE_DEVICE;
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                           CUstream) {
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
               bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          CUstream) {
  auto *out = reinterpret_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                          CUstream) {
  auto *out = reinterpret_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch,
                            unsigned short value, size_t width, size_t height,
                            CUstream) {
  for (size_t row = 0; row < height; ++row) {
    auto *out = reinterpret_cast<uint16_t *>(dst + row * pitch);
    for (size_t i = 0; i < width; ++i)
      out[i] = value;
  }
  return CUDA_SUCCESS;
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int value,
                            size_t width, size_t height, CUstream) {
  for (size_t row = 0; row < height; ++row) {
    auto *out = reinterpret_cast<uint32_t *>(dst + row * pitch);
    for (size_t i = 0; i < width; ++i)
      out[i] = value;
  }
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *module, const void *) {
  *module = reinterpret_cast<CUmodule>(&dummy);
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *, unsigned int,
                            CUjit_option *, void **) {
  *module = reinterpret_cast<CUmodule>(&dummy);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule, const char *name) {
  *function = reinterpret_cast<CUfunction>(strdup(name)); // one per call
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction function, unsigned int, unsigned int,
                        unsigned int, unsigned int, unsigned int, unsigned int,
                        unsigned int, CUstream, void **, void **) {
  // A kernel named noop* does nothing and succeeds (--trace's tests).
  if (std::strncmp(reinterpret_cast<const char *>(function), "noop", 4) == 0)
    return CUDA_SUCCESS;
  return CUDA_ERROR_NOT_SUPPORTED;
}
