//===- EmulatedCudaGemm.cpp - distrt_cuda_gemm's host twin ----------------===//
//
// --target=cuda-emulate runs the CUDA lowering's host code and kernels on
// the CPU; its products call this function, with distrt_cuda_gemm's
// arguments: distrt_gemm, then the epilogue element by element, as
// cuBLASLt's epilogue does it (the bias added to the product in float, then
// GELU's tanh approximation). A bfloat16 C is the float32 product rounded
// to nearest even, as cuBLASLt writes a CUDA_R_16BF D. The checks are
// distrt_cuda_gemm's.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "GemmEpilogue.h"
#include "HalfFloat.h"
#include "distrt/distrt.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fatal(const std::string &detail, const std::string &what) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: distrt: distrt_emulate_cuda_gemm(%s): %s\n",
               detail.c_str(), what.c_str());
  distrt_comm_abort(1);
}

} // namespace

extern "C" int distrt_emulate_cuda_gemm(
    distrt_dtype dtype, int trans_a, int trans_b, int64_t batch, int64_t m,
    int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
    int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, double beta,
    void *c, int64_t ldc, int64_t stride_c, distrt_gemm_epilogue epilogue,
    const void *bias, void *aux, int64_t ldaux, distrt_dtype c_dtype,
    const char *op) {
  std::string detail =
      distrt::gemmText(op, dtype, trans_a, trans_b, batch, m, n, k, epilogue) +
      distrt::gemmOutputText(dtype, c_dtype);
  std::string bad = distrt::badGemmOutput(dtype, c_dtype, beta, epilogue);
  if (bad.empty())
    bad =
        distrt::badGemmEpilogue(dtype, batch, n, k, epilogue, bias, aux, ldaux);
  if (!bad.empty())
    fatal(detail, bad);
  if (c_dtype != distrt::gemmAccumulatorType(dtype)) {
    // bfloat16 C (badGemmOutput): the float32 product, then rounded.
    if (batch < 0 || m < 0 || n < 0)
      fatal(detail, "negative size");
    if (batch * m * n == 0)
      return 0;
    if (!c || ldc < n || stride_c < 0 || (stride_c == 0 && batch > 1))
      fatal(detail, "bad C (null, ldc < n, or a batch stride < 0, or 0 "
                    "with several batches)");
    std::vector<float> product(static_cast<size_t>(batch * m * n));
    if (distrt_gemm(dtype, trans_a, trans_b, batch, m, n, k, alpha, a, lda,
                    stride_a, b, ldb, stride_b, 0.0, product.data(), n,
                    m * n) != 0)
      fatal(detail, distrt_last_error());
    auto *out = static_cast<uint16_t *>(c);
    for (int64_t p = 0; p < batch; ++p)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          out[p * stride_c + i * ldc + j] = distrt::model::floatToBfloat16(
              product[static_cast<size_t>((p * m + i) * n + j)]);
    return 0;
  }
  if (distrt_gemm(dtype, trans_a, trans_b, batch, m, n, k, alpha, a, lda,
                  stride_a, b, ldb, stride_b, beta, c, ldc, stride_c) != 0)
    fatal(detail, distrt_last_error());
  if (epilogue == DISTRT_GEMM_PLAIN)
    return 0;
  // Float32, batch 1 (badGemmEpilogue).
  auto *out = static_cast<float *>(c);
  const auto *add = static_cast<const float *>(bias);
  auto *before = static_cast<float *>(aux);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float x = out[i * ldc + j] + add[j];
      if (epilogue == DISTRT_GEMM_BIAS_GELU) {
        if (before)
          before[i * ldaux + j] = x;
        x = distrt::geluTanh(x);
      }
      out[i * ldc + j] = x;
    }
  }
  return 0;
}
