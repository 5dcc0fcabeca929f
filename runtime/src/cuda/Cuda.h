//===- Cuda.h - distrt's CUDA device: driver, context, stream ---*- C++ -*-===//
//
// The CUDA driver API opened with dlopen (Library.cpp finds it), one device,
// its primary context and one compute stream (Driver.cpp), the caching
// allocator (Allocator.cpp), and the fatal errors of the calls compiled
// code makes. cuda.h is included for its types and prototypes only: every
// function is a pointer resolved with dlsym, under the symbol name cuda.h
// maps it to (cuMemAlloc is cuMemAlloc_v2).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CUDA_CUDA_H
#define DISTRT_CUDA_CUDA_H

#include "../core/Trace.h"
#include "distrt/distrt.h"

#include <cuda.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace distrt::cuda {

// Every driver function distrt calls. The names go through cuda.h's
// #defines (cuMemAlloc -> cuMemAlloc_v2) both here and in dlsym.
#define DISTRT_CUDA_DRIVER_FUNCTIONS(X)                                        \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceTotalMem)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemcpy2DAsync)                                                           \
  X(cuPointerGetAttribute)                                                     \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD2D16Async)                                                        \
  X(cuMemsetD2D32Async)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)

struct Driver {
#define DISTRT_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  DISTRT_CUDA_DRIVER_FUNCTIONS(DISTRT_CUDA_DECLARE)
#undef DISTRT_CUDA_DECLARE
};

/// The device distrt uses, once distrt_cuda_init succeeded.
struct Device {
  Driver driver;
  std::string libraryPath; // where libcuda.so.1 came from
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr; // the compute stream
  std::string name;
  int major = 0, minor = 0;
  uint64_t totalMemory = 0;
  bool sync = false; // DISTRT_CUDA_SYNC=1
};

/// The device, opening it on the first call; nullptr with distrt::fail's
/// message set ("no usable CUDA GPU: ...") when there is none.
Device *open();
/// The device if open() succeeded before, else nullptr (never opens it).
Device *opened();
/// The device for a call of compiled code, which has no error path: opens
/// it, or prints `error: distrt: <the reason>` and exits with status 1.
Device &require();

/// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" (the driver's name and
/// description of `result`).
std::string errorText(CUresult result);

/// Prints `error: distrt: <call>(<detail>) failed: <errorText> (step N)`
/// and ends the job with status 1: a failed call of compiled code.
[[noreturn]] void fatal(const char *call, const std::string &detail,
                        CUresult result);
/// The same with a message of distrt's own instead of a CUDA error:
/// `error: distrt: <message> (step N)`.
[[noreturn]] void fatalMessage(const std::string &message);

/// Calls fatal() unless `result` is CUDA_SUCCESS.
inline void check(CUresult result, const char *call,
                  const std::string &detail) {
  if (result != CUDA_SUCCESS)
    fatal(call, detail, result);
}

/// With DISTRT_CUDA_SYNC=1: waits for the stream after `call(detail)`, so
/// that an asynchronous error is blamed on it (fatal() if it failed).
void syncIfAsked(Device &device, const char *call, const std::string &detail);

/// Waits for the compute stream. In a mesh, under the watchdog: the
/// stream holds NCCL's collectives, which a dead or hung peer never
/// completes, so the wait ends the job after the collective timeout.
CUresult synchronize(Device &device);

/// 1.5 GiB, 12.0 MiB, 512 bytes.
std::string byteText(uint64_t bytes);

/// The caching allocator of device memory (distrt.h, "CUDA device").
class Allocator {
public:
  /// A block of at least `bytes` (256-byte aligned), reused from the free
  /// list of its size class or new from cuMemAlloc; on failure returns 0
  /// and sets `error` (the call, the CUDA error, and for out of memory the
  /// counters and the device's total).
  CUdeviceptr allocate(Device &device, size_t bytes, std::string &error);
  /// Puts a block allocate() returned back on its free list; false if
  /// `pointer` is not one.
  bool release(CUdeviceptr pointer);
  distrt_cuda_memory stats(const Device &device);
  void resetPeak();

private:
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<CUdeviceptr>> cached; // by size
  std::unordered_map<CUdeviceptr, size_t> live; // handed out, with size
  uint64_t inUse = 0, peak = 0, reserved = 0, driverAllocs = 0;

  /// Gives every cached block back to the driver (after waiting for the
  /// stream, which may still use them). Called with `mutex` held.
  void freeCached(Device &device);
};

/// The allocator of the one device.
Allocator &allocator();

/// A span of --trace for work queued on a stream of the device
/// (DeviceTrace.cpp): while the trace records, the constructor records an
/// event on `stream` before the work is queued and end() one after it;
/// their times on the GPU become a span on `track` once the work is done
/// (when recording stops, after the step waited for its streams). Not
/// tracing, it costs an atomic load (callers test active() before building
/// end()'s arguments).
class DeviceSpan {
public:
  DeviceSpan(Device &device, CUstream stream);
  DeviceSpan(const DeviceSpan &) = delete;
  DeviceSpan &operator=(const DeviceSpan &) = delete;
  /// Gives the start event back if end() was not called.
  ~DeviceSpan();
  /// Whether the trace records this span: callers build end()'s name and
  /// args only then.
  bool active() const { return start != nullptr; }
  /// `args` is the inside of a JSON object ("\"bytes\": 8") or empty.
  void end(trace::Track track, std::string name, std::string args = "");

private:
  Device &device;
  CUstream stream;
  CUevent start = nullptr;
};

/// distrt_cuda_set_allow_tf32's setting.
bool allowTf32();

/// Where a dlopen'd library came from, or why none was found.
struct Library {
  void *handle = nullptr;
  std::string path;
};

/// Opens `soname` (`libcuda.so.1`, `libcublasLt.so.13`): only the file
/// named by the environment variable `overrideVariable` when it is set;
/// else the loader path, the CUDA toolkit ($CUDA_HOME, $CUDA_PATH,
/// /usr/local/cuda: lib64 and lib), Python's nvidia/*/lib folders, and last
/// `fallbacks` (paths relative to a toolkit, e.g. the driver's stub). On
/// failure `error` says where it looked.
bool openLibrary(const char *soname, const char *overrideVariable,
                 const std::vector<std::string> &fallbacks, Library &out,
                 std::string &error);

} // namespace distrt::cuda

#endif // DISTRT_CUDA_CUDA_H
