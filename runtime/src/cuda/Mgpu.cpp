//===- Mgpu.cpp - The host functions of MLIR's GPU lowering ---------------===//
//
// gpu-to-llvm turns gpu.launch_func, gpu.alloc, gpu.memcpy, ... into calls of
// these mgpu* functions (the names and signatures of MLIR's
// ExecutionEngine/CudaRuntimeWrappers.cpp, which Debian does not ship), and
// the memref lowering's generic allocation functions into the
// _mlir_memref_to_llvm_* ones. distrt.h, "CUDA device", says what each does
// here; what differs from MLIR's wrappers: modules load lazily (the
// constructor that loads them runs before main, maybe without a GPU), every
// stream is the one compute stream, memory comes from the caching
// allocator, and every failure names the call and the step and exits.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <cstdio>

using namespace distrt::cuda;

namespace {

/// A module image recorded by mgpuModuleLoad(JIT), loaded at first use.
struct Module {
  const void *image;
  size_t size; // 0 for PTX (NUL-terminated)
  bool ptx;
  int32_t optLevel;
  CUmodule handle = nullptr;
  std::unordered_map<std::string, CUfunction> functions;
};

std::mutex moduleMutex;

/// Each kernel's name, for errors. Never destroyed (global destructors of
/// compiled code run after main).
std::unordered_map<CUfunction, std::string> &kernelNames() {
  static auto *names = new std::unordered_map<CUfunction, std::string>;
  return *names;
}

std::string kernelName(CUfunction function) {
  std::lock_guard<std::mutex> lock(moduleMutex);
  auto found = kernelNames().find(function);
  return found == kernelNames().end() ? "an unknown kernel" : found->second;
}

CUstream streamOf(Device &device, void *stream) {
  return stream ? static_cast<CUstream>(stream) : device.stream;
}

CUdeviceptr dptr(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

void loadModule(Device &device, Module &module) {
  const Driver &d = device.driver;
  if (!module.ptx) {
    check(d.cuModuleLoadData(&module.handle, module.image), "cuModuleLoadData",
          "a module of " + std::to_string(module.size) + " bytes on " +
              device.name + ", compute capability " +
              std::to_string(device.major) + "." +
              std::to_string(device.minor));
    return;
  }
  // PTX: the JIT's error log says what it did not like.
  static char log[8192];
  log[0] = 0;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      reinterpret_cast<void *>(static_cast<intptr_t>(module.optLevel)), log,
      reinterpret_cast<void *>(static_cast<intptr_t>(sizeof(log) - 1))};
  CUresult result =
      d.cuModuleLoadDataEx(&module.handle, module.image, 3, options, values);
  if (result != CUDA_SUCCESS)
    fatal("cuModuleLoadDataEx",
          std::string("PTX, optimization level ") +
              std::to_string(module.optLevel) + (log[0] ? "; " : "") + log,
          result);
}

void *allocate(const char *call, size_t bytes) {
  Device &device = require();
  std::string error;
  CUdeviceptr pointer = allocator().allocate(device, bytes, error);
  if (!pointer)
    fatalMessage(std::string(call) + ": " + error);
  return reinterpret_cast<void *>(pointer);
}

void release(const char *call, void *pointer) {
  if (!pointer)
    return;
  if (!opened() || !allocator().release(dptr(pointer))) {
    char text[32];
    std::snprintf(text, sizeof(text), "%p", pointer);
    fatalMessage(std::string(call) + "(" + text +
                 "): not a pointer from distrt's device allocator");
  }
}

} // namespace

extern "C" void *mgpuModuleLoad(void *data, size_t size) {
  return new Module{data, size, false, 0};
}

extern "C" void *mgpuModuleLoadJIT(void *data, int32_t optLevel) {
  return new Module{data, 0, true, optLevel};
}

extern "C" void mgpuModuleUnload(void *) {
  // After main: the driver may already be shutting down. The process's end
  // frees the module.
}

extern "C" void *mgpuModuleGetFunction(void *module, const char *name) {
  Device &device = require();
  auto &m = *static_cast<Module *>(module);
  std::lock_guard<std::mutex> lock(moduleMutex);
  auto found = m.functions.find(name);
  if (found != m.functions.end())
    return found->second;
  if (!m.handle)
    loadModule(device, m);
  CUfunction function = nullptr;
  check(device.driver.cuModuleGetFunction(&function, m.handle, name),
        "cuModuleGetFunction", name);
  m.functions.emplace(name, function);
  kernelNames()[function] = name;
  return function;
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra,
                                 size_t) {
  Device &device = require();
  auto f = static_cast<CUfunction>(function);
  DeviceSpan span(device, streamOf(device, stream));
  CUresult result = device.driver.cuLaunchKernel(
      f, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
      static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
      static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
      static_cast<unsigned>(smem), streamOf(device, stream), params, extra);
  if (span.active())
    span.end(distrt::trace::Track::DeviceCompute, kernelName(f),
             "\"grid\": " + std::to_string(gridX * gridY * gridZ) +
                 ", \"block\": " + std::to_string(blockX * blockY * blockZ));
  if (result == CUDA_SUCCESS && !device.sync)
    return;
  std::string detail = kernelName(f) + ", grid " + std::to_string(gridX) + "x" +
                       std::to_string(gridY) + "x" + std::to_string(gridZ) +
                       ", block " + std::to_string(blockX) + "x" +
                       std::to_string(blockY) + "x" + std::to_string(blockZ) +
                       ", " + std::to_string(smem) + " bytes of shared memory";
  check(result, "cuLaunchKernel", detail);
  syncIfAsked(device, "cuLaunchKernel", detail);
}

extern "C" void *mgpuStreamCreate(void) { return require().stream; }

extern "C" void mgpuStreamDestroy(void *) {}

// Every stream of compiled code is the compute stream (mgpuStreamCreate).
extern "C" void mgpuStreamSynchronize(void *) {
  Device &device = require();
  if (device.sync)
    check(synchronize(device), "cuStreamSynchronize", "the compute stream");
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  Device &device = require();
  check(device.driver.cuStreamWaitEvent(streamOf(device, stream),
                                        static_cast<CUevent>(event), 0),
        "cuStreamWaitEvent", "");
}

extern "C" void *mgpuEventCreate(void) {
  Device &device = require();
  CUevent event = nullptr;
  check(device.driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate", "");
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  Device &device = require();
  check(device.driver.cuEventDestroy(static_cast<CUevent>(event)),
        "cuEventDestroy", "");
}

extern "C" void mgpuEventSynchronize(void *event) {
  Device &device = require();
  check(device.driver.cuEventSynchronize(static_cast<CUevent>(event)),
        "cuEventSynchronize", "");
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  Device &device = require();
  check(device.driver.cuEventRecord(static_cast<CUevent>(event),
                                    streamOf(device, stream)),
        "cuEventRecord", "");
}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool isHostShared) {
  if (isHostShared)
    fatalMessage("mgpuMemAlloc(" + std::to_string(sizeBytes) +
                 " bytes, host shared): host-shared (managed) memory is not "
                 "supported");
  return allocate("mgpuMemAlloc", sizeBytes);
}

extern "C" void mgpuMemFree(void *ptr, void *) { release("mgpuMemFree", ptr); }

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  if (sizeBytes == 0)
    return;
  Device &device = require();
  DeviceSpan span(device, streamOf(device, stream));
  // Unified addressing: the driver tells host from device pointers.
  check(device.driver.cuMemcpyAsync(dptr(dst), dptr(src), sizeBytes,
                                    streamOf(device, stream)),
        "cuMemcpyAsync", std::to_string(sizeBytes) + " bytes");
  if (span.active())
    span.end(distrt::trace::Track::DeviceCompute, "memcpy",
             "\"bytes\": " + std::to_string(sizeBytes));
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  if (count == 0)
    return;
  Device &device = require();
  check(device.driver.cuMemsetD32Async(dptr(dst), value, count,
                                       streamOf(device, stream)),
        "cuMemsetD32Async", std::to_string(count) + " elements");
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  if (count == 0)
    return;
  Device &device = require();
  check(device.driver.cuMemsetD16Async(dptr(dst), value, count,
                                       streamOf(device, stream)),
        "cuMemsetD16Async", std::to_string(count) + " elements");
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  return allocate("_mlir_memref_to_llvm_alloc", size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  if (alignment > 256 || (alignment & (alignment - 1)))
    fatalMessage("_mlir_memref_to_llvm_aligned_alloc(alignment " +
                 std::to_string(alignment) + ", " + std::to_string(size) +
                 " bytes): device blocks are aligned to 256 bytes; a larger "
                 "or non-power-of-two alignment is not supported");
  return allocate("_mlir_memref_to_llvm_aligned_alloc", size);
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  release("_mlir_memref_to_llvm_free", ptr);
}
