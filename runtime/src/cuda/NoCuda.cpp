//===- NoCuda.cpp - The CUDA device in a build without the CUDA headers ---===//
//
// distrt built where the CUDA toolkit's headers were not found (or with
// DIST_ENABLE_CUDA=OFF): the same symbols, and no device.
// distrt_cuda_init fails with "built without CUDA support", so a program
// compiled for CUDA says why it cannot run; the calls of compiled code
// (which could only come after that) end the program. mgpuModuleLoad, which
// runs before main, only records.
//
//===----------------------------------------------------------------------===//

#include "../core/Device.h"
#include "../core/Error.h"
#include "distrt/distrt.h"

#include <cstdio>

using distrt::fail;

namespace {

constexpr const char *kWhy =
    "no usable CUDA GPU: this distrt was built without CUDA support (the "
    "CUDA toolkit's headers were not found at build time)";

[[noreturn]] void unavailable(const char *call) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: distrt: %s: %s\n", call, kWhy);
  distrt_comm_abort(1);
}

} // namespace

namespace distrt::device {
void *cudaAlloc(int32_t, size_t) {
  fail("distrt_alloc: %s", kWhy);
  return nullptr;
}
void cudaFree(int32_t, void *) { unavailable("distrt_free"); }
int cudaCopy(distrt_device, void *, distrt_device, const void *, size_t) {
  return fail("distrt_copy: %s", kWhy);
}
int cudaSynchronize(int32_t) {
  return fail("distrt_device_synchronize: %s", kWhy);
}
} // namespace distrt::device

extern "C" {

int distrt_cuda_init(void) { return fail("%s", kWhy); }
int distrt_cuda_memory_stats(distrt_cuda_memory *) { return fail("%s", kWhy); }
void distrt_cuda_reset_peak(void) {}
const char *distrt_cuda_device_name(void) {
  fail("%s", kWhy);
  return nullptr;
}
int distrt_cuda_compute_capability(int *, int *) { return fail("%s", kWhy); }
double distrt_cuda_peak_flops(distrt_dtype, int) { return 0; }
void distrt_cuda_set_allow_tf32(int) {}
int distrt_cuda_gemm(distrt_dtype, int, int, int64_t, int64_t, int64_t, int64_t,
                     double, const void *, int64_t, int64_t, const void *,
                     int64_t, int64_t, double, void *, int64_t, int64_t,
                     distrt_gemm_epilogue, const void *, void *, int64_t,
                     distrt_dtype, const char *) {
  unavailable("distrt_cuda_gemm");
}

void *mgpuModuleLoad(void *data, size_t) { return data; }
void *mgpuModuleLoadJIT(void *data, int32_t) { return data; }
void mgpuModuleUnload(void *) {}
void *mgpuModuleGetFunction(void *, const char *) {
  unavailable("mgpuModuleGetFunction");
}
void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, int32_t, void *, void **, void **, size_t) {
  unavailable("mgpuLaunchKernel");
}
void *mgpuStreamCreate(void) { unavailable("mgpuStreamCreate"); }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) { unavailable("mgpuStreamSynchronize"); }
void mgpuStreamWaitEvent(void *, void *) { unavailable("mgpuStreamWaitEvent"); }
void *mgpuEventCreate(void) { unavailable("mgpuEventCreate"); }
void mgpuEventDestroy(void *) { unavailable("mgpuEventDestroy"); }
void mgpuEventSynchronize(void *) { unavailable("mgpuEventSynchronize"); }
void mgpuEventRecord(void *, void *) { unavailable("mgpuEventRecord"); }
void *mgpuMemAlloc(uint64_t, void *, bool) { unavailable("mgpuMemAlloc"); }
void mgpuMemFree(void *, void *) { unavailable("mgpuMemFree"); }
void mgpuMemcpy(void *, void *, size_t, void *) { unavailable("mgpuMemcpy"); }
void mgpuMemset32(void *, unsigned int, size_t, void *) {
  unavailable("mgpuMemset32");
}
void mgpuMemset16(void *, unsigned short, size_t, void *) {
  unavailable("mgpuMemset16");
}
void *_mlir_memref_to_llvm_alloc(size_t) {
  unavailable("_mlir_memref_to_llvm_alloc");
}
void *_mlir_memref_to_llvm_aligned_alloc(size_t, size_t) {
  unavailable("_mlir_memref_to_llvm_aligned_alloc");
}
void _mlir_memref_to_llvm_free(void *) {
  unavailable("_mlir_memref_to_llvm_free");
}

} // extern "C"

// No device: every buffer of a collective is host memory, and a mesh's
// transport is the bootstrap's (MPI or TCP).
#include "../comm/Comm.h"

namespace distrt::comm {
namespace memory {
bool onDevice(const void *) { return false; }
void deviceCopy2D(void *, size_t, const void *, size_t, size_t, size_t) {
  unavailable("a collective's device copy");
}
std::shared_ptr<char> deviceScratch(size_t) {
  unavailable("a collective's device temporary");
}
} // namespace memory
namespace transport {
std::unique_ptr<Transport> withNccl(std::unique_ptr<Transport> bootstrap,
                                    std::string &) {
  return bootstrap;
}
} // namespace transport
} // namespace distrt::comm
