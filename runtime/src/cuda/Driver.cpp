//===- Driver.cpp - The CUDA driver, the device, its context and stream ---===//
//
// Opening the device is the one place that decides whether a GPU is usable:
// the library is found, its functions resolved, cuInit succeeds (the
// toolkit's link stub answers CUDA_ERROR_STUB_LIBRARY), a device exists.
// Then the device's primary context (device 0, or the local rank's when
// the machine has several) (the one the CUDA runtime inside
// cuBLASLt uses too) becomes current and the compute stream is created,
// once. The device is never closed: the process's end releases it, and
// global destructors of compiled code may still run after main.
//
//===----------------------------------------------------------------------===//

#include "../comm/Comm.h"
#include "../core/Error.h"
#include "Cuda.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>

#define DISTRT_CUDA_STRING2(x) #x
#define DISTRT_CUDA_STRING(x) DISTRT_CUDA_STRING2(x)

namespace distrt::cuda {

namespace {

std::mutex openMutex;
Device *theDevice = nullptr;      // set once open() succeeded; never freed
std::string *openError = nullptr; // set once open() failed

/// The name of a CUDA error without asking the driver (which may be the
/// one that failed to load).
std::string resultName(const Driver *driver, CUresult result) {
  const char *name = nullptr;
  if (driver && driver->cuGetErrorName &&
      driver->cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

/// Opens the device; on failure returns nullptr and sets `error` (without
/// the "no usable CUDA GPU: " prefix).
Device *openDevice(std::string &error) {
  Library library;
  if (!openLibrary("libcuda.so.1", "DISTRT_CUDA_DRIVER",
                   {"lib64/stubs/libcuda.so", "lib/stubs/libcuda.so"}, library,
                   error))
    return nullptr;
  auto device = std::make_unique<Device>();
  Driver &d = device->driver;
  device->libraryPath = library.path;
#define DISTRT_CUDA_RESOLVE(name)                                              \
  d.name = reinterpret_cast<decltype(d.name)>(                                 \
      ::dlsym(library.handle, DISTRT_CUDA_STRING(name)));                      \
  if (!d.name) {                                                               \
    error = library.path + " has no " DISTRT_CUDA_STRING(                      \
                               name) " (a CUDA driver older than CUDA 12?)";   \
    return nullptr;                                                            \
  }
  DISTRT_CUDA_DRIVER_FUNCTIONS(DISTRT_CUDA_RESOLVE)
#undef DISTRT_CUDA_RESOLVE
  CUresult result = d.cuInit(0);
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    error = "libcuda.so.1 is the driver stub of the CUDA toolkit (" +
            library.path + "; no NVIDIA driver on this machine)";
    return nullptr;
  }
  if (result != CUDA_SUCCESS) {
    error = "cuInit failed: " + resultName(&d, result) +
            (result == CUDA_ERROR_NO_DEVICE ? "" : " (" + library.path + ")");
    return nullptr;
  }
  int count = 0;
  result = d.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS || count < 1) {
    error = result != CUDA_SUCCESS
                ? "cuDeviceGetCount failed: " + resultName(&d, result)
                : "no CUDA device (cuDeviceGetCount: 0)";
    return nullptr;
  }
  // One GPU per process: the local rank's, unless the launcher made one
  // GPU visible to each process (CUDA_VISIBLE_DEVICES per rank).
  int32_t localRank = comm::launcherLocalRank();
  int ordinal = count == 1 ? 0 : localRank;
  if (ordinal >= count) {
    error = "this process is local rank " + std::to_string(localRank) +
            " of its machine, which has " + std::to_string(count) +
            " CUDA devices: start at most one process per GPU";
    return nullptr;
  }
  const char *step = "cuDeviceGet";
  char name[256] = "";
  size_t total = 0;
  if ((result = d.cuDeviceGet(&device->device, ordinal)) == CUDA_SUCCESS &&
      (step = "cuDeviceGetName",
       result = d.cuDeviceGetName(name, sizeof(name) - 1, device->device)) ==
          CUDA_SUCCESS &&
      (step = "cuDeviceTotalMem",
       result = d.cuDeviceTotalMem(&total, device->device)) == CUDA_SUCCESS &&
      (step = "cuDeviceGetAttribute",
       result = d.cuDeviceGetAttribute(
           &device->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
           device->device)) == CUDA_SUCCESS &&
      (result = d.cuDeviceGetAttribute(
           &device->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
           device->device)) == CUDA_SUCCESS &&
      (step = "cuDevicePrimaryCtxRetain",
       result = d.cuDevicePrimaryCtxRetain(&device->context, device->device)) ==
          CUDA_SUCCESS &&
      (step = "cuCtxSetCurrent", result = d.cuCtxSetCurrent(device->context)) ==
          CUDA_SUCCESS &&
      (step = "cuStreamCreate",
       result = d.cuStreamCreate(&device->stream, CU_STREAM_NON_BLOCKING)) ==
          CUDA_SUCCESS) {
    device->name = name;
    device->totalMemory = total;
    const char *sync = std::getenv("DISTRT_CUDA_SYNC");
    device->sync = sync && std::strcmp(sync, "1") == 0;
    distrt_log(DISTRT_LOG_INFO,
               "CUDA device %d of %d: %s (compute capability %d.%d, %s), "
               "driver %s%s",
               ordinal, count, device->name.c_str(), device->major,
               device->minor,
               byteText(total).c_str(), library.path.c_str(),
               device->sync ? ", DISTRT_CUDA_SYNC=1" : "");
    return device.release();
  }
  error = std::string(step) + " failed: " + resultName(&d, result);
  return nullptr;
}

} // namespace

Device *open() {
  std::lock_guard<std::mutex> lock(openMutex);
  if (theDevice)
    return theDevice;
  if (!openError) {
    std::string error;
    theDevice = openDevice(error);
    if (theDevice)
      return theDevice;
    openError = new std::string("no usable CUDA GPU: " + error);
  }
  distrt::fail("%s", openError->c_str());
  return nullptr;
}

Device *opened() {
  std::lock_guard<std::mutex> lock(openMutex);
  return theDevice;
}

Device &require() {
  Device *device = open();
  if (!device)
    fatalMessage(distrt_last_error());
  return *device;
}

std::string errorText(CUresult result) {
  Device *device = opened();
  const Driver *driver = device ? &device->driver : nullptr;
  const char *text = nullptr;
  std::string name = resultName(driver, result);
  if (driver && driver->cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    return name + ": " + text;
  return name;
}

void fatalMessage(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: distrt: %s (%s)\n", message.c_str(),
               stepText().c_str());
  std::fflush(stderr);
  distrt_comm_abort(1);
}

void fatal(const char *call, const std::string &detail, CUresult result) {
  fatalMessage(std::string(call) + "(" + detail +
               ") failed: " + errorText(result));
}

CUresult synchronize(Device &device) {
  if (!comm::mesh().connected)
    return device.driver.cuStreamSynchronize(device.stream);
  // The whole step's queued kernels count against the timeout too: it
  // bounds a step's time on the GPU between two host waits.
  comm::watchdog::Waiting waiting(
      "the GPU's compute stream (its kernels and NCCL collectives)",
      (int64_t(1) << comm::mesh().ndims) - 1);
  return device.driver.cuStreamSynchronize(device.stream);
}

void syncIfAsked(Device &device, const char *call, const std::string &detail) {
  if (!device.sync)
    return;
  CUresult result = synchronize(device);
  if (result != CUDA_SUCCESS)
    fatalMessage(
        std::string(call) + "(" + detail +
        ") failed (found by DISTRT_CUDA_SYNC=1): " + errorText(result));
}

std::string byteText(uint64_t bytes) {
  char text[64];
  if (bytes >= (uint64_t(1) << 30))
    std::snprintf(text, sizeof(text), "%.2f GiB",
                  static_cast<double>(bytes) / (1u << 30));
  else if (bytes >= (uint64_t(1) << 20))
    std::snprintf(text, sizeof(text), "%.1f MiB",
                  static_cast<double>(bytes) / (1u << 20));
  else
    std::snprintf(text, sizeof(text), "%" PRIu64 " bytes", bytes);
  return text;
}

} // namespace distrt::cuda
