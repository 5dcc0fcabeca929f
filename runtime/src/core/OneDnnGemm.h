//===- OneDnnGemm.h - distrt_gemm on oneDNN's matmul ------------*- C++ -*-===//
//
// oneDNN (Debian's libdnnl2, opened with dlopen) runs the products the
// CPU has instructions for that OpenBLAS lacks: bfloat16 and float16
// inputs with float32 accumulation (AVX-512 BF16 / FP16, AMX). Which
// products go to it is chosen once per element type (DISTRT_CPU_GEMM).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CORE_ONEDNNGEMM_H
#define DISTRT_CORE_ONEDNNGEMM_H

#include "distrt/distrt.h"

#include <cstdint>

namespace distrt::onednn {

/// Where products of `dtype` run: "oneDNN" or "OpenBLAS" (16-bit inputs
/// widened to float32 first). Decided on the first call for each type from
/// DISTRT_CPU_GEMM (auto: oneDNN for bfloat16 and float16 where the CPU
/// runs them natively, OpenBLAS otherwise; onednn: also float32; openblas:
/// never oneDNN) and logged once.
const char *backend(distrt_dtype dtype);

/// distrt_gemm's product on oneDNN when backend(dtype) is oneDNN and oneDNN
/// takes these sizes and strides: returns 1 (done), 0 (not taken: use
/// OpenBLAS), or -1 with the error set. Needs alpha != 0 and k > 0.
int gemm(distrt_dtype dtype, int transA, int transB, int64_t batch, int64_t m,
         int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
         int64_t strideA, const void *b, int64_t ldb, int64_t strideB,
         double beta, float *c, int64_t ldc, int64_t strideC);

/// Threads oneDNN's OpenMP runtime uses, as shareGemmThreads shares them.
void setThreads(int threads);

} // namespace distrt::onednn

#endif // DISTRT_CORE_ONEDNNGEMM_H
