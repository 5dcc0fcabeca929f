//===- Gemm.cpp - Strided-batched matrix products on OpenBLAS -------------===//
//
// distrt_gemm checks its sizes and strides, handles the cases BLAS rejects or
// treats specially (an empty product, k == 0), hands the products oneDNN
// runs better to it (OneDnnGemm.cpp: 16-bit inputs where the CPU has the
// instructions), and calls cblas_sgemm / cblas_dgemm once per batch. OpenBLAS's CBLAS takes 32-bit sizes (Debian's
// libopenblas0, not libopenblas64), so larger matrices are an error.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "GemmEpilogue.h"
#include "HalfFloat.h"
#include "HostMemory.h"
#include "OneDnnGemm.h"
#include "Trace.h"

#include <cstdio>
#include "distrt/distrt.h"

#include <cblas.h>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <sched.h>
#include <thread>

using distrt::fail;

void distrt::shareGemmThreads(int localProcesses) {
  if (localProcesses <= 1)
    return;
  for (const char *variable :
       {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const char *value = std::getenv(variable);
    if (value && *value) {
      distrt_log(DISTRT_LOG_INFO, "gemm threads per process: %d, as %s says",
                 openblas_get_num_threads(), variable);
      return;
    }
  }
  // The cores this process may run on (a container's or job's cpuset, or
  // what mpirun bound it to), shared with the other local processes: never
  // more threads than cores, at the cost of idle cores when processes are
  // bound to disjoint sets.
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
    cores = CPU_COUNT(&allowed);
  int share = cores / localProcesses;
  openblas_set_num_threads(share < 1 ? 1 : share);
  distrt::onednn::setThreads(share < 1 ? 1 : share);
  distrt_log(DISTRT_LOG_INFO,
             "gemm threads per process: %d (cores it may use: %d, processes "
             "on this machine: %d)",
             openblas_get_num_threads(), cores, localProcesses);
}

namespace {

/// C_b = beta * C_b for an m x n matrix with row stride ldc; beta == 0 writes
/// zeros without reading C, as BLAS does.
template <typename T>
void scale(T *c, int64_t m, int64_t n, int64_t ldc, double beta) {
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    if (beta == 0)
      std::memset(row, 0, static_cast<size_t>(n) * sizeof(T));
    else if (beta != 1)
      for (int64_t j = 0; j < n; ++j)
        row[j] = static_cast<T>(beta * row[j]);
  }
}

void call(float, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
          double alpha, const void *a, int lda, const void *b, int ldb,
          double beta, void *c, int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, static_cast<float>(alpha),
              static_cast<const float *>(a), lda, static_cast<const float *>(b),
              ldb, static_cast<float>(beta), static_cast<float *>(c), ldc);
}

void call(double, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
          double alpha, const void *a, int lda, const void *b, int ldb,
          double beta, void *c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha,
              static_cast<const double *>(a), lda,
              static_cast<const double *>(b), ldb, beta,
              static_cast<double *>(c), ldc);
}

template <typename T>
void run(int transA, int transB, int64_t batch, int64_t m, int64_t n, int64_t k,
         double alpha, const void *a, int64_t lda, int64_t strideA,
         const void *b, int64_t ldb, int64_t strideB, double beta, void *c,
         int64_t ldc, int64_t strideC) {
  const T *aT = static_cast<const T *>(a);
  const T *bT = static_cast<const T *>(b);
  T *cT = static_cast<T *>(c);
  for (int64_t i = 0; i < batch; ++i) {
    T *cI = cT + i * strideC;
    if (k == 0) {
      scale(cI, m, n, ldc, beta);
      continue;
    }
    call(T(), transA ? CblasTrans : CblasNoTrans,
         transB ? CblasTrans : CblasNoTrans, static_cast<int>(m),
         static_cast<int>(n), static_cast<int>(k), alpha, aT + i * strideA,
         static_cast<int>(lda), bT + i * strideB, static_cast<int>(ldb), beta,
         cI, static_cast<int>(ldc));
  }
}

/// op(X_b) of a 16-bit float matrix, widened into a dense float32 matrix
/// with row stride `cols` (exact: every bfloat16 and float16 is a float).
void widen(distrt_dtype dtype, const void *x, int64_t rows, int64_t cols,
           int64_t ld, float *out) {
  const uint16_t *bits = static_cast<const uint16_t *>(x);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      uint16_t h = bits[i * ld + j];
      out[static_cast<size_t>(i * cols + j)] =
          dtype == DISTRT_BF16 ? distrt::model::bfloat16ToFloat(h)
                               : distrt::model::float16ToFloat(h);
    }
}

/// A product of bfloat16 or float16 matrices into a float32 C: the inputs
/// widened to float32 (exact), then sgemm, so every product of two inputs is
/// exact and the sums accumulate in float32 as on a GPU's tensor cores. An
/// A or B shared by all batches (stride 0) is widened once.
int runWidened(distrt_dtype dtype, int transA, int transB, int64_t batch,
                int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                int64_t lda, int64_t strideA, const void *b, int64_t ldb,
                int64_t strideB, double beta, float *c, int64_t ldc,
                int64_t strideC) {
  const uint16_t *aH = static_cast<const uint16_t *>(a);
  const uint16_t *bH = static_cast<const uint16_t *>(b);
  int64_t rowsA = transA ? k : m, colsA = transA ? m : k;
  int64_t rowsB = transB ? n : k, colsB = transB ? k : n;
  // Counted host memory (the workspace dist-compile --explain predicts).
  size_t elementsA = static_cast<size_t>(rowsA * colsA),
         elementsB = static_cast<size_t>(rowsB * colsB);
  auto *wideA = static_cast<float *>(
      distrt::hostAlloc(64, elementsA * sizeof(float)));
  auto *wideB = static_cast<float *>(
      distrt::hostAlloc(64, elementsB * sizeof(float)));
  if (!wideA || !wideB) {
    distrt::hostFree(wideA);
    distrt::hostFree(wideB);
    return fail("distrt_gemm: out of memory widening %zu and %zu elements "
                "to float32",
                elementsA, elementsB);
  }
  for (int64_t i = 0; i < batch; ++i) {
    float *cI = c + i * strideC;
    if (k == 0) {
      scale(cI, m, n, ldc, beta);
      continue;
    }
    if (i == 0 || strideA != 0)
      widen(dtype, aH + i * strideA, rowsA, colsA, lda, wideA);
    if (i == 0 || strideB != 0)
      widen(dtype, bH + i * strideB, rowsB, colsB, ldb, wideB);
    call(float(), transA ? CblasTrans : CblasNoTrans,
         transB ? CblasTrans : CblasNoTrans, static_cast<int>(m),
         static_cast<int>(n), static_cast<int>(k), alpha, wideA,
         static_cast<int>(colsA), wideB, static_cast<int>(colsB), beta, cI,
         static_cast<int>(ldc));
  }
  distrt::hostFree(wideA);
  distrt::hostFree(wideB);
  return 0;
}

} // namespace

namespace {
/// A gemm call on the trace's compute track, when tracing.
struct TracedGemm {
  uint64_t start = 0;
  distrt_dtype dtype;
  int64_t batch, m, n, k;
  TracedGemm(distrt_dtype dtype, int64_t batch, int64_t m, int64_t n,
             int64_t k)
      : dtype(dtype), batch(batch), m(m), n(n), k(k) {
    if (distrt::trace::on())
      start = distrt_now_ns();
  }
  ~TracedGemm() {
    if (!start || !distrt::trace::on())
      return;
    distrt::trace::span(distrt::trace::Track::Compute, "gemm", start,
                        distrt_now_ns(),
                        distrt::gemmTraceArgs(dtype, batch, m, n, k));
  }
};
} // namespace

extern "C" int distrt_gemm(distrt_dtype dtype, int trans_a, int trans_b,
                           int64_t batch, int64_t m, int64_t n, int64_t k,
                           double alpha, const void *a, int64_t lda,
                           int64_t stride_a, const void *b, int64_t ldb,
                           int64_t stride_b, double beta, void *c, int64_t ldc,
                           int64_t stride_c) {
  TracedGemm traced(dtype, batch, m, n, k);
  if (dtype != DISTRT_F32 && dtype != DISTRT_F64 && dtype != DISTRT_BF16 &&
      dtype != DISTRT_F16)
    return fail("distrt_gemm: unsupported element type %s (float32, "
                "float64, bfloat16 or float16)",
                distrt_dtype_name(dtype));
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    return fail("distrt_gemm: negative size (batch %lld, m %lld, n %lld, "
                "k %lld)",
                static_cast<long long>(batch), static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k));
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return fail("distrt_gemm: m %lld, n %lld, k %lld exceed BLAS's 32-bit "
                "sizes",
                static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k));
  if (batch == 0 || m == 0 || n == 0)
    return 0;
  // Row strides of the matrices as stored; BLAS wants at least 1. With
  // k == 0, A and B are never read.
  int64_t colsA = trans_a ? m : k, colsB = trans_b ? k : n;
  struct {
    const char *name;
    int64_t ld, cols;
    bool used;
  } lds[] = {{"lda", lda, colsA, k > 0},
             {"ldb", ldb, colsB, k > 0},
             {"ldc", ldc, n, true}};
  for (const auto &ld : lds) {
    if (ld.used && (ld.ld < (ld.cols > 1 ? ld.cols : 1) || ld.ld > INT_MAX))
      return fail("distrt_gemm: %s %lld is not in [max(1, %lld), 2^31) (the "
                  "row length of the matrix as stored)",
                  ld.name, static_cast<long long>(ld.ld),
                  static_cast<long long>(ld.cols));
  }
  if (stride_a < 0 || stride_b < 0 || stride_c < 0)
    return fail("distrt_gemm: negative batch stride (a %lld, b %lld, c %lld)",
                static_cast<long long>(stride_a),
                static_cast<long long>(stride_b),
                static_cast<long long>(stride_c));
  if (stride_c == 0 && batch > 1)
    return fail("distrt_gemm: stride_c 0 with batch %lld would write every "
                "product to the same C",
                static_cast<long long>(batch));
  if (!c || (k > 0 && (!a || !b)))
    return fail("distrt_gemm: null matrix pointer (a %p, b %p, c %p)", a, b, c);
  if (dtype != DISTRT_F64) {
    // Where the CPU multiplies this type natively (DISTRT_CPU_GEMM).
    int done = distrt::onednn::gemm(
        dtype, trans_a, trans_b, batch, m, n, k, alpha, a, lda, stride_a, b,
        ldb, stride_b, beta, static_cast<float *>(c), ldc, stride_c);
    if (done != 0)
      return done < 0 ? -1 : 0;
  }
  if (dtype == DISTRT_BF16 || dtype == DISTRT_F16)
    return runWidened(dtype, trans_a, trans_b, batch, m, n, k, alpha, a, lda,
                      stride_a, b, ldb, stride_b, beta,
                      static_cast<float *>(c), ldc, stride_c);
  else if (dtype == DISTRT_F32)
    run<float>(trans_a, trans_b, batch, m, n, k, alpha, a, lda, stride_a, b,
               ldb, stride_b, beta, c, ldc, stride_c);
  else
    run<double>(trans_a, trans_b, batch, m, n, k, alpha, a, lda, stride_a, b,
                ldb, stride_b, beta, c, ldc, stride_c);
  return 0;
}

extern "C" const char *distrt_gemm_backend(distrt_dtype dtype) {
  return dtype == DISTRT_F64 ? "OpenBLAS" : distrt::onednn::backend(dtype);
}
