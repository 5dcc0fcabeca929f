//===- Api.cpp - The CUDA device's C ABI for drivers and tools ------------===//
//
// distrt_cuda_init and the queries of distrt.h's "CUDA device" section, and
// the device side of distrt_alloc, distrt_free, distrt_copy and
// distrt_device_synchronize (Core.cpp calls them through core/Device.h).
// These calls return errors; the ones of compiled code (Mgpu.cpp,
// CublasLt.cpp) end the program instead.
//
//===----------------------------------------------------------------------===//

#include "../core/Device.h"
#include "../core/Error.h"
#include "Cuda.h"

#include <atomic>
#include <cstring>

using distrt::fail;

namespace distrt::cuda {

namespace {

std::atomic<bool> tf32{false};

/// The device for a call that returns errors: opens it; nullptr (with the
/// error set, prefixed by `call`) when there is none or `index` is not 0.
Device *deviceFor(const char *call, int32_t index) {
  if (index != 0) {
    fail("%s: CUDA device %d: only device 0 is supported", call,
         static_cast<int>(index));
    return nullptr;
  }
  Device *device = open();
  if (!device)
    fail("%s: %s", call, std::string(distrt_last_error()).c_str());
  return device;
}

/// A CUDA error of a call that returns it: -1 with the message set.
int failed(const char *call, const char *what, CUresult result) {
  return fail("%s: %s failed: %s", call, what, errorText(result).c_str());
}

/// Dense peak rates from NVIDIA's datasheets (tensor cores; the datasheets
/// give TF32, FP16 and BF16 "with sparsity", twice the dense rate quoted
/// here): H100 SXM and H200 (nvidia.com/en-us/data-center/h100,
/// .../h200: FP64 tensor 67 TF, FP32 67 TF, TF32 989 TF sparse, BF16 1979 TF
/// sparse), H100 PCIe (FP64 tensor 51 TF, FP32 51 TF, TF32 756 TF sparse,
/// BF16 1513 TF sparse), A100 (nvidia.com/en-us/data-center/a100: FP64
/// tensor 19.5 TF, FP32 19.5 TF, TF32 156 TF, BF16 312 TF, dense). Matched by
/// a substring of the device name, first match wins.
struct PeakRates {
  const char *nameContains;
  double fp64, fp32, tf32, half;
};
constexpr PeakRates kPeakRates[] = {
    {"H100 PCIe", 51.2e12, 51.2e12, 378.0e12, 756.0e12},
    {"H100 NVL", 0, 0, 0, 0}, // another part: unknown
    {"H200 NVL", 0, 0, 0, 0},
    {"H100", 66.9e12, 66.9e12, 494.7e12, 989.4e12}, // SXM5 ("H100 80GB HBM3")
    {"H200", 66.9e12, 66.9e12, 494.7e12, 989.4e12},
    {"A100", 19.5e12, 19.5e12, 156.0e12, 312.0e12},
};

} // namespace

bool allowTf32() { return tf32; }

} // namespace distrt::cuda

using namespace distrt::cuda;

namespace distrt::device {

void *cudaAlloc(int32_t index, size_t bytes) {
  Device *device = deviceFor("distrt_alloc", index);
  if (!device)
    return nullptr;
  std::string error;
  CUdeviceptr pointer = allocator().allocate(*device, bytes, error);
  if (!pointer)
    fail("distrt_alloc: %s", error.c_str());
  return reinterpret_cast<void *>(pointer);
}

void cudaFree(int32_t index, void *memory) {
  if (!opened() || index != 0 ||
      !allocator().release(reinterpret_cast<CUdeviceptr>(memory)))
    fatalMessage("distrt_free: " +
                 std::string(index != 0
                                 ? "no CUDA device " + std::to_string(index)
                                 : "a pointer that distrt_alloc did "
                                   "not return"));
}

int cudaCopy(distrt_device dstDevice, void *dst, distrt_device srcDevice,
             const void *src, size_t bytes) {
  bool toDevice = dstDevice.kind == DISTRT_CUDA,
       fromDevice = srcDevice.kind == DISTRT_CUDA;
  Device *device =
      deviceFor("distrt_copy", toDevice ? dstDevice.index : srcDevice.index);
  if (!device ||
      (toDevice && fromDevice && !deviceFor("distrt_copy", srcDevice.index)))
    return -1;
  const Driver &d = device->driver;
  auto dptr = [](const void *pointer) {
    return reinterpret_cast<CUdeviceptr>(pointer);
  };
  CUresult result;
  DeviceSpan span(*device, device->stream);
  if (toDevice && fromDevice)
    result = d.cuMemcpyDtoDAsync(dptr(dst), dptr(src), bytes, device->stream);
  else if (toDevice)
    // From pageable memory: returns once `src` is staged, so it may be
    // reused.
    result = d.cuMemcpyHtoDAsync(dptr(dst), src, bytes, device->stream);
  else
    result = d.cuMemcpyDtoHAsync(dst, dptr(src), bytes, device->stream);
  if (span.active())
    span.end(distrt::trace::Track::DeviceCompute,
             toDevice && fromDevice ? "copy device to device"
             : toDevice             ? "copy host to device"
                                    : "copy device to host",
             "\"bytes\": " + std::to_string(bytes));
  if (result != CUDA_SUCCESS)
    return failed("distrt_copy",
                  toDevice && fromDevice ? "cuMemcpyDtoDAsync"
                  : toDevice             ? "cuMemcpyHtoDAsync"
                                         : "cuMemcpyDtoHAsync",
                  result);
  if (!fromDevice || toDevice)
    return 0;
  result = synchronize(*device);
  if (result != CUDA_SUCCESS)
    return fail("distrt_copy: device to host: a kernel failed: %s (a "
                "run-time check in the step, such as an index out of range, "
                "or a bug); rerun with DISTRT_CUDA_SYNC=1 to find which",
                errorText(result).c_str());
  return 0;
}

int cudaSynchronize(int32_t index) {
  Device *device = deviceFor("distrt_device_synchronize", index);
  if (!device)
    return -1;
  CUresult result = synchronize(*device);
  if (result != CUDA_SUCCESS)
    return fail("a kernel failed: %s (a run-time check in the step, such as "
                "an index out of range, or a bug); rerun with "
                "DISTRT_CUDA_SYNC=1 to find which",
                errorText(result).c_str());
  return 0;
}

} // namespace distrt::device

extern "C" int distrt_cuda_init(void) { return open() ? 0 : -1; }

extern "C" int distrt_cuda_memory_stats(distrt_cuda_memory *out) {
  Device *device = opened();
  if (!device)
    return fail("distrt_cuda_memory_stats: no CUDA device is open (call "
                "distrt_cuda_init)");
  *out = allocator().stats(*device);
  return 0;
}

extern "C" void distrt_cuda_reset_peak(void) { allocator().resetPeak(); }

extern "C" const char *distrt_cuda_device_name(void) {
  Device *device = opened();
  if (!device)
    fail("distrt_cuda_device_name: no CUDA device is open (call "
         "distrt_cuda_init)");
  return device ? device->name.c_str() : nullptr;
}

extern "C" int distrt_cuda_compute_capability(int *major, int *minor) {
  Device *device = opened();
  if (!device)
    return fail("distrt_cuda_compute_capability: no CUDA device is open "
                "(call distrt_cuda_init)");
  *major = device->major;
  *minor = device->minor;
  return 0;
}

extern "C" double distrt_cuda_peak_flops(distrt_dtype dtype, int allowTf32) {
  Device *device = opened();
  if (!device)
    return 0;
  for (const PeakRates &rates : kPeakRates) {
    if (device->name.find(rates.nameContains) == std::string::npos)
      continue;
    switch (dtype) {
    case DISTRT_F64:
      return rates.fp64;
    case DISTRT_F32:
      return allowTf32 ? rates.tf32 : rates.fp32;
    case DISTRT_F16:
    case DISTRT_BF16:
      return rates.half;
    default:
      return 0;
    }
  }
  return 0;
}

extern "C" void distrt_cuda_set_allow_tf32(int allow) { tf32 = allow != 0; }
