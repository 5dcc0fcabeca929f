//===- GemmEpilogue.h - distrt_gemm_epilogue's checks and arithmetic ------===//
//
// Shared by distrt_cuda_gemm (cuBLASLt, src/cuda) and its host twin
// distrt_emulate_cuda_gemm (src/core), so that both accept the same
// arguments and describe a product the same way in errors (and, with
// distrt_gemm, in --trace spans).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CORE_GEMMEPILOGUE_H
#define DISTRT_CORE_GEMMEPILOGUE_H

#include "distrt/distrt.h"

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>

namespace distrt {

inline const char *gemmEpilogueName(distrt_gemm_epilogue epilogue) {
  switch (epilogue) {
  case DISTRT_GEMM_PLAIN:
    return "plain";
  case DISTRT_GEMM_BIAS:
    return "bias";
  case DISTRT_GEMM_BIAS_GELU:
    return "bias+gelu";
  }
  return "unknown";
}

/// The product's description for errors: "<op>: float32, batch 2, m 3,
/// n 4, k 5, trans_a 0, trans_b 1[, epilogue bias]".
inline std::string gemmText(const char *op, distrt_dtype dtype, int transA,
                            int transB, int64_t batch, int64_t m, int64_t n,
                            int64_t k, distrt_gemm_epilogue epilogue) {
  std::string text = op && *op ? std::string(op) + ": " : std::string();
  text += std::string(distrt_dtype_name(dtype)) + ", batch " +
          std::to_string(batch) + ", m " + std::to_string(m) + ", n " +
          std::to_string(n) + ", k " + std::to_string(k) + ", trans_a " +
          std::to_string(transA) + ", trans_b " + std::to_string(transB);
  if (epilogue != DISTRT_GEMM_PLAIN)
    text += std::string(", epilogue ") + gemmEpilogueName(epilogue);
  return text;
}

/// The args of a product's --trace span (the inside of a JSON object):
/// sizes, element type and FLOPs, on the CPU and the GPU alike.
inline std::string gemmTraceArgs(distrt_dtype dtype, int64_t batch, int64_t m,
                                 int64_t n, int64_t k) {
  char args[256];
  std::snprintf(args, sizeof(args),
                "\"batch\": %lld, \"m\": %lld, \"n\": %lld, \"k\": %lld, "
                "\"dtype\": \"%s\", \"flops\": %.0f",
                static_cast<long long>(batch), static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k),
                distrt_dtype_name(dtype),
                2.0 * batch * static_cast<double>(m) * n * k);
  return args;
}

/// What is wrong with an epilogue's arguments; "" when fine.
inline std::string badGemmEpilogue(distrt_dtype dtype, int64_t batch, int64_t n,
                                   int64_t k, distrt_gemm_epilogue epilogue,
                                   const void *bias, const void *aux,
                                   int64_t ldaux) {
  if (epilogue == DISTRT_GEMM_PLAIN)
    return bias || aux ? "a bias or aux pointer without an epilogue" : "";
  if (epilogue != DISTRT_GEMM_BIAS && epilogue != DISTRT_GEMM_BIAS_GELU)
    return "unknown epilogue " + std::to_string(static_cast<int>(epilogue));
  if (dtype != DISTRT_F32)
    return "epilogues are float32 only";
  if (batch != 1 || k < 1)
    return "epilogues need batch 1 and k > 0";
  if (!bias)
    return "null bias pointer";
  if (aux && epilogue != DISTRT_GEMM_BIAS_GELU)
    return "an aux output is only written with the GELU epilogue";
  if (aux && (ldaux < n || ldaux % 8 != 0))
    return "ldaux " + std::to_string(ldaux) +
           " must be at least n and a multiple of 8";
  return "";
}

/// The type distrt_gemm writes C in for inputs of `dtype`: float32 for
/// bfloat16 and float16 (mixed precision), else dtype.
inline distrt_dtype gemmAccumulatorType(distrt_dtype dtype) {
  return dtype == DISTRT_BF16 || dtype == DISTRT_F16 ? DISTRT_F32 : dtype;
}

/// ", C bfloat16" when C's type is not the accumulator's, for gemmText.
inline std::string gemmOutputText(distrt_dtype dtype, distrt_dtype cDtype) {
  return cDtype == gemmAccumulatorType(dtype)
             ? std::string()
             : std::string(", C ") + distrt_dtype_name(cDtype);
}

/// What is wrong with C's element type `cDtype`; "" when fine. Besides the
/// accumulator's type, bfloat16 inputs may write a bfloat16 C: the float32
/// sums rounded to nearest even, with beta 0 and no epilogue.
inline std::string badGemmOutput(distrt_dtype dtype, distrt_dtype cDtype,
                                 double beta, distrt_gemm_epilogue epilogue) {
  if (cDtype == gemmAccumulatorType(dtype))
    return "";
  if (dtype != DISTRT_BF16 || cDtype != DISTRT_BF16)
    return std::string("C of ") + distrt_dtype_name(cDtype) + " for " +
           distrt_dtype_name(dtype) + " inputs (" +
           distrt_dtype_name(gemmAccumulatorType(dtype)) +
           (dtype == DISTRT_BF16 ? ", or bfloat16" : "") + ")";
  if (beta != 0)
    return "a bfloat16 C needs beta 0";
  if (epilogue != DISTRT_GEMM_PLAIN)
    return "a bfloat16 C takes no epilogue";
  return "";
}

/// The tanh approximation of GELU, as cuBLASLt's GELU epilogue computes it.
inline float geluTanh(float x) {
  const float kAlpha = 0.7978845608028654f, kBeta = 0.044715f;
  return 0.5f * x * (1.0f + std::tanh(kAlpha * (x + kBeta * x * x * x)));
}

} // namespace distrt

#endif // DISTRT_CORE_GEMMEPILOGUE_H
