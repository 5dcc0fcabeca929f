//===- cuda_alloc_check.cpp - distrt's CUDA device on the fake driver -----===//
//
// Run with DISTRT_CUDA_DRIVER naming fake_cuda_driver.cpp's libcuda.so.1
// (cuda-runtime.test). `cuda-alloc-check MODE` prints what a test checks:
//   alloc   the caching allocator: size classes, reuse, the counters, no
//           cuMemAlloc in a steady state (also counted by the fake itself)
//   oom     with FAKE_CUDA_MEMORY=16 MiB: cached blocks freed and the
//           allocation retried, then an allocation that cannot fit
//   copy    distrt_copy in every direction, memsets, gemm without cuBLASLt
//           (k == 0, empty products)
//   fatal-* one fatal error of compiled code's calls each (exit status 1)
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace {

const distrt_device kCuda = {DISTRT_CUDA, 0};
const distrt_device kHost = {DISTRT_HOST, 0};

void printStats(const char *what) {
  distrt_cuda_memory stats;
  if (distrt_cuda_memory_stats(&stats) != 0) {
    std::printf("%s: stats failed: %s\n", what, distrt_last_error());
    return;
  }
  std::printf("%s: in_use %llu peak %llu reserved %llu driver_allocs %llu "
              "total %llu\n",
              what, static_cast<unsigned long long>(stats.in_use),
              static_cast<unsigned long long>(stats.peak_in_use),
              static_cast<unsigned long long>(stats.reserved),
              static_cast<unsigned long long>(stats.driver_allocs),
              static_cast<unsigned long long>(stats.device_total));
}

/// cuMemAlloc calls as the fake driver counts them.
int64_t fakeAllocCalls() {
  const char *path = std::getenv("DISTRT_CUDA_DRIVER");
  void *fake = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto count = fake ? reinterpret_cast<int64_t (*)()>(
                          dlsym(fake, "fake_cuda_alloc_calls"))
                    : nullptr;
  return count ? count() : -1;
}

int alloc() {
  void *a = distrt_alloc(kCuda, 1000);
  printStats("1000 bytes");
  distrt_free(kCuda, a);
  printStats("freed");
  void *b = distrt_alloc(kCuda, 1024);
  std::printf("1024 bytes reuses the block: %s\n", a == b ? "yes" : "no");
  void *c = distrt_alloc(kCuda, 1025);
  printStats("1025 bytes");
  void *z1 = distrt_alloc(kCuda, 0), *z2 = distrt_alloc(kCuda, 0);
  std::printf("size 0: %s\n",
              z1 && z2 && z1 != z2 ? "distinct blocks" : "WRONG");
  void *large = distrt_alloc(kCuda, (3 << 20) + 1);
  printStats("3 MiB + 1");
  for (void *p : {b, c, z1, z2, large})
    distrt_free(kCuda, p);
  printStats("all freed");
  distrt_cuda_reset_peak();
  printStats("peak reset");
  std::printf("aligned: %s\n",
              reinterpret_cast<uintptr_t>(large) % 256 == 0 ? "256" : "no");
  // A "step" of compiled code: the same sizes every time.
  std::vector<size_t> sizes = {4, 4096, 100000, 5 << 20, 64 << 10, 4096};
  int64_t driverBefore = 0;
  for (int step = 1; step <= 5; ++step) {
    std::vector<void *> blocks;
    void *stream = mgpuStreamCreate();
    for (size_t size : sizes)
      blocks.push_back(mgpuMemAlloc(size, stream, false));
    blocks.push_back(_mlir_memref_to_llvm_alloc(777));
    blocks.push_back(_mlir_memref_to_llvm_aligned_alloc(256, 777));
    for (size_t i = 0; i + 2 < blocks.size(); ++i)
      mgpuMemFree(blocks[i], stream);
    _mlir_memref_to_llvm_free(blocks[blocks.size() - 2]);
    _mlir_memref_to_llvm_free(blocks.back());
    distrt_cuda_memory stats;
    distrt_cuda_memory_stats(&stats);
    if (step == 1)
      driverBefore = static_cast<int64_t>(stats.driver_allocs);
    std::printf("step %d: driver_allocs +%lld since step 1 (fake driver: "
                "%lld), in_use "
                "%llu\n",
                step,
                static_cast<long long>(stats.driver_allocs) -
                    static_cast<long long>(driverBefore),
                static_cast<long long>(fakeAllocCalls()),
                static_cast<unsigned long long>(stats.in_use));
  }
  printStats("after the steps");
  return 0;
}

int oom() {
  void *a = distrt_alloc(kCuda, 6 << 20), *b = distrt_alloc(kCuda, 6 << 20);
  distrt_free(kCuda, a);
  distrt_free(kCuda, b);
  printStats("two 6 MiB blocks cached");
  void *c = distrt_alloc(kCuda, 10 << 20);
  std::printf("10 MiB: %s\n", c ? "ok" : distrt_last_error());
  printStats("after 10 MiB");
  void *d = distrt_alloc(kCuda, 8 << 20);
  std::printf("8 MiB more: %s\n", d ? "ok" : distrt_last_error());
  std::fflush(stdout);
  mgpuMemAlloc(8 << 20, nullptr, false); // ends the program
  return 0;
}

int copy() {
  std::vector<float> in = {1, 2, 3, 4, 5, 6}, out(6, 0);
  void *d1 = distrt_alloc(kCuda, 24), *d2 = distrt_alloc(kCuda, 24);
  int status = distrt_copy(kCuda, d1, kHost, in.data(), 24) |
               distrt_copy(kCuda, d2, kCuda, d1, 24) |
               distrt_copy(kHost, out.data(), kCuda, d2, 24);
  std::printf("round trip: %s (%g %g ... %g)\n",
              status == 0 && in == out ? "same" : "DIFFERENT", out[0], out[1],
              out[5]);
  std::vector<float> host(6, 0);
  status = distrt_copy(kHost, host.data(), kHost, in.data(), 24);
  std::printf("host to host: %d, %g\n", status, host[2]);
  mgpuMemset32(d1, 0x3f800000u, 6, nullptr); // 1.0f
  mgpuMemset16(d2, 0xffff, 4, nullptr);
  mgpuMemcpy(d2, d2, 0, nullptr);
  distrt_copy(kHost, out.data(), kCuda, d1, 24);
  std::printf("memset32: %g %g\n", out[0], out[5]);
  uint16_t halves[6];
  distrt_copy(kHost, halves, kCuda, d2, 12);
  std::printf("memset16: %x %x %x\n", halves[0], halves[3], halves[4]);
  mgpuMemcpy(d2, in.data(), 24, nullptr); // host to device, unified
  distrt_copy(kHost, out.data(), kCuda, d2, 24);
  std::printf("mgpuMemcpy: %g %g\n", out[0], out[5]);
  // k == 0 and beta == 0: C (2 x 2 of a row stride 3) becomes zeros.
  distrt_copy(kCuda, d1, kHost, in.data(), 24);
  status = distrt_cuda_gemm(DISTRT_F32, 0, 0, 1, 2, 2, 0, 1.0, nullptr, 1, 0,
                            nullptr, 1, 0, 0.0, d1, 3, 0, DISTRT_GEMM_PLAIN,
                            nullptr, nullptr, 0, DISTRT_F32, nullptr);
  distrt_copy(kHost, out.data(), kCuda, d1, 24);
  std::printf("gemm k=0 beta=0: %d: %g %g %g %g %g %g\n", status, out[0],
              out[1], out[2], out[3], out[4], out[5]);
  status = distrt_cuda_gemm(DISTRT_F64, 1, 1, 3, 0, 5, 7, 1.0, nullptr, 1, 0,
                            nullptr, 1, 0, 1.0, nullptr, 1, 0,
                            DISTRT_GEMM_PLAIN, nullptr, nullptr, 0, DISTRT_F64,
                            nullptr);
  std::printf("gemm m=0: %d\n", status);
  // k == 0 into a bfloat16 C (2 x 3 of a row stride 4, of ones): zeros of
  // 16 bits each, the fourth column kept.
  uint16_t bf16[8];
  std::fill(bf16, bf16 + 8, 0x3f80);
  distrt_copy(kCuda, d2, kHost, bf16, 16);
  status = distrt_cuda_gemm(DISTRT_BF16, 0, 0, 1, 2, 3, 0, 1.0, nullptr, 1, 0,
                            nullptr, 1, 0, 0.0, d2, 4, 0, DISTRT_GEMM_PLAIN,
                            nullptr, nullptr, 0, DISTRT_BF16, nullptr);
  distrt_copy(kHost, bf16, kCuda, d2, 16);
  std::printf("gemm k=0 bf16 C: %d: %x %x %x %x %x %x %x %x\n", status,
              bf16[0], bf16[1], bf16[2], bf16[3], bf16[4], bf16[5], bf16[6],
              bf16[7]);
  distrt_free(kCuda, d1);
  distrt_free(kCuda, d2);
  std::printf("synchronize: %d\n", distrt_device_synchronize(kCuda));
  return 0;
}

int fatal(const std::string &mode) {
  distrt_set_step(7);
  float *d = static_cast<float *>(distrt_alloc(kCuda, 64));
  if (mode == "fatal-align")
    _mlir_memref_to_llvm_aligned_alloc(512, 64);
  else if (mode == "fatal-free")
    mgpuMemFree(d + 1, nullptr);
  else if (mode == "fatal-shared")
    mgpuMemAlloc(64, nullptr, true);
  else if (mode == "fatal-launch") {
    static const char image[] = "image";
    void *module = mgpuModuleLoad(const_cast<char *>(image), sizeof(image));
    void *kernel = mgpuModuleGetFunction(module, "main_kernel_0");
    mgpuLaunchKernel(kernel, 2, 1, 1, 256, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
  } else if (mode == "fatal-gemm-args")
    distrt_cuda_gemm(DISTRT_F32, 0, 0, 2, 4, 4, 4, 1.0, d, 2, 16, d, 4, 16, 0.0,
                     d, 4, 16, DISTRT_GEMM_PLAIN, nullptr, nullptr, 0, DISTRT_F32,
                     nullptr);
  else if (mode == "fatal-gemm-beta")
    distrt_cuda_gemm(DISTRT_F32, 0, 0, 1, 2, 2, 0, 1.0, nullptr, 1, 0, nullptr,
                     1, 0, 0.5, d, 2, 0, DISTRT_GEMM_PLAIN, nullptr, nullptr, 0,
                     DISTRT_F32, nullptr);
  else if (mode == "fatal-gemm-epilogue")
    distrt_cuda_gemm(DISTRT_F32, 0, 0, 2, 4, 4, 4, 1.0, d, 4, 16, d, 4, 16, 0.0,
                     d, 4, 16, DISTRT_GEMM_BIAS, d, nullptr, 0, DISTRT_F32,
                     "/fc1/Gemm (mlp.onnx)");
  else if (mode == "fatal-gemm-lt")
    distrt_cuda_gemm(DISTRT_F32, 0, 0, 1, 2, 2, 2, 1.0, d, 2, 0, d, 2, 0, 0.0,
                     d, 2, 0, DISTRT_GEMM_PLAIN, nullptr, nullptr, 0, DISTRT_F32,
                     nullptr);
  else if (mode == "fatal-gemm-output")
    distrt_cuda_gemm(DISTRT_F32, 0, 0, 1, 2, 2, 2, 1.0, d, 2, 0, d, 2, 0, 0.0,
                     d, 2, 0, DISTRT_GEMM_PLAIN, nullptr, nullptr, 0, DISTRT_BF16,
                     nullptr);
  else if (mode == "fatal-gemm-bf16-beta")
    distrt_cuda_gemm(DISTRT_BF16, 0, 0, 1, 2, 2, 2, 1.0, d, 2, 0, d, 2, 0, 1.0,
                     d, 2, 0, DISTRT_GEMM_PLAIN, nullptr, nullptr, 0, DISTRT_BF16,
                     nullptr);
  else if (mode == "fatal-sync") {
    // FAKE_CUDA_SYNC_RESULT makes the stream report a failed kernel.
    std::printf("synchronize: %d: %s\n", distrt_device_synchronize(kCuda),
                distrt_last_error());
    return 0;
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::printf("not reached\n");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODE\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  if (distrt_cuda_init() != 0) {
    std::printf("init: %s\n", distrt_last_error());
    return 1;
  }
  int major = 0, minor = 0;
  distrt_cuda_compute_capability(&major, &minor);
  std::printf("device: %s, compute capability %d.%d, peak float32 %g\n",
              distrt_cuda_device_name(), major, minor,
              distrt_cuda_peak_flops(DISTRT_F32, 0));
  if (mode == "alloc")
    return alloc();
  if (mode == "oom")
    return oom();
  if (mode == "copy")
    return copy();
  return fatal(mode);
}
