//===- NoBlas.cpp - distrt_gemm in a runtime without OpenBLAS -------------===//
//
// libdistrt_cuda.a, the runtime of programs compiled for a GPU, runs where
// OpenBLAS may be missing: their products are distrt_cuda_gemm on device
// memory. distrt_gemm (host memory) is an error there, and there are no
// BLAS threads to share.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "distrt/distrt.h"

void distrt::shareGemmThreads(int) {}

extern "C" int distrt_gemm(distrt_dtype, int, int, int64_t, int64_t, int64_t,
                           int64_t, double, const void *, int64_t, int64_t,
                           const void *, int64_t, int64_t, double, void *,
                           int64_t, int64_t) {
  return distrt::fail("distrt_gemm: this runtime (libdistrt_cuda.a) has no "
                      "host gemm (no OpenBLAS); use distrt_cuda_gemm on "
                      "device memory");
}
