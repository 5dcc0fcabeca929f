//===- CublasLt.cpp - distrt_cuda_gemm on cuBLASLt ------------------------===//
//
// distrt_gemm's row-major semantics on device memory. cuBLASLt is
// column-major: a row-major m x n matrix with row stride ldc is, read
// column-major, its n x m transpose with leading dimension ldc. So row-major
// C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: one cuBLASLt
// product of (B as stored, op trans_b) times (A as stored, op trans_a), of
// size n x m x k, with the leading dimensions and batch strides unchanged.
//
// cuBLASLt is opened at the first gemm. Each shape (with its pointers'
// alignments, which restrict the algorithms) gets its descriptors and the
// heuristic's first algorithm once, kept for the run: the same algorithm
// every step, so results are reproducible. The workspace (32 MiB) comes from
// the caching allocator, once. A bias (and GELU) runs in cuBLASLt's
// epilogue (CUBLASLT_EPILOGUE_BIAS, _GELU_BIAS, _GELU_AUX_BIAS), whose
// pointers are descriptor attributes: set when the plan is made (their
// alignment picks the algorithm) and again before every call.
//
//===----------------------------------------------------------------------===//

#include "../core/Error.h"
#include "../core/GemmEpilogue.h"
#include "../core/Json.h"
#include "Cuda.h"

#include <cublasLt.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <tuple>

#define DISTRT_CUDA_STRING2(x) #x
#define DISTRT_CUDA_STRING(x) DISTRT_CUDA_STRING2(x)

using namespace distrt::cuda;

namespace {

#define DISTRT_CUBLASLT_FUNCTIONS(X)                                           \
  X(cublasLtCreate)                                                            \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

struct Lt {
#define DISTRT_CUBLASLT_DECLARE(name) decltype(&::name) name = nullptr;
  DISTRT_CUBLASLT_FUNCTIONS(DISTRT_CUBLASLT_DECLARE)
#undef DISTRT_CUBLASLT_DECLARE
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
};

constexpr size_t kWorkspaceBytes = DISTRT_CUDA_GEMM_WORKSPACE_BYTES;

/// What a cached plan depends on.
using ShapeKey =
    std::tuple<int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t,
               int64_t, int64_t, int64_t, int64_t, int64_t, int, int, int, int,
               int, int, int, int, int64_t, int>;

struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo;
};

std::mutex ltMutex;

[[noreturn]] void ltFatal(const Lt &lt, const char *call,
                          const std::string &detail, cublasStatus_t status) {
  const char *name =
      lt.cublasLtGetStatusName ? lt.cublasLtGetStatusName(status) : nullptr;
  const char *text =
      lt.cublasLtGetStatusString ? lt.cublasLtGetStatusString(status) : nullptr;
  fatalMessage(std::string(call) + "(" + detail + ") failed: " +
               (name ? name : "cuBLAS status " + std::to_string(status)) +
               (text ? std::string(": ") + text : std::string()));
}

void ltCheck(const Lt &lt, cublasStatus_t status, const char *call,
             const std::string &detail) {
  if (status != CUBLAS_STATUS_SUCCESS)
    ltFatal(lt, call, detail, status);
}

/// cuBLASLt, opened, with its handle and workspace, at the first call.
Lt &openLt(Device &device) {
  static Lt *opened = nullptr;
  if (opened)
    return *opened;
  Library library;
  std::string error;
  if (!openLibrary("libcublasLt.so.13", "DISTRT_CUBLASLT", {}, library, error))
    fatalMessage("distrt_cuda_gemm: " + error);
  auto *lt = new Lt;
#define DISTRT_CUBLASLT_RESOLVE(name)                                          \
  lt->name = reinterpret_cast<decltype(lt->name)>(                             \
      ::dlsym(library.handle, DISTRT_CUDA_STRING(name)));                      \
  if (!lt->name)                                                               \
    fatalMessage("distrt_cuda_gemm: " + library.path +                         \
                 " has no " DISTRT_CUDA_STRING(name));
  DISTRT_CUBLASLT_FUNCTIONS(DISTRT_CUBLASLT_RESOLVE)
#undef DISTRT_CUBLASLT_RESOLVE
  ltCheck(*lt, lt->cublasLtCreate(&lt->handle), "cublasLtCreate", library.path);
  std::string allocError;
  lt->workspace = reinterpret_cast<void *>(
      allocator().allocate(device, kWorkspaceBytes, allocError));
  if (!lt->workspace)
    fatalMessage("distrt_cuda_gemm: the cuBLASLt workspace: " + allocError);
  distrt_log(DISTRT_LOG_INFO, "cuBLASLt: %s", library.path.c_str());
  opened = lt;
  return *lt;
}

/// The largest power of two (up to 256) dividing every address of a
/// matrix: its base, and with several batches its batch stride in bytes.
int alignmentOf(const void *pointer, int64_t batch, int64_t strideBytes) {
  uint64_t bits = reinterpret_cast<uint64_t>(pointer) | 256;
  if (batch > 1 && strideBytes)
    bits |= static_cast<uint64_t>(strideBytes);
  return static_cast<int>(bits & (~bits + 1));
}

/// The cuBLASLt epilogue for ours, with an aux output or not.
cublasLtEpilogue_t ltEpilogue(distrt_gemm_epilogue epilogue, bool aux) {
  switch (epilogue) {
  case DISTRT_GEMM_BIAS:
    return CUBLASLT_EPILOGUE_BIAS;
  case DISTRT_GEMM_BIAS_GELU:
    return aux ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_BIAS;
  default:
    return CUBLASLT_EPILOGUE_DEFAULT;
  }
}

template <typename T>
void setDesc(const Lt &lt, cublasLtMatmulDesc_t desc,
             cublasLtMatmulDescAttributes_t attribute, const T &value,
             const std::string &detail) {
  ltCheck(
      lt,
      lt.cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)),
      "cublasLtMatmulDescSetAttribute", detail);
}

cublasLtMatrixLayout_t layout(const Lt &lt, cudaDataType type, int64_t rows,
                              int64_t cols, int64_t ld, int64_t batch,
                              int64_t stride, const std::string &detail) {
  cublasLtMatrixLayout_t out = nullptr;
  ltCheck(lt,
          lt.cublasLtMatrixLayoutCreate(&out, type, static_cast<uint64_t>(rows),
                                        static_cast<uint64_t>(cols), ld),
          "cublasLtMatrixLayoutCreate", detail);
  int32_t count = static_cast<int32_t>(batch);
  ltCheck(lt,
          lt.cublasLtMatrixLayoutSetAttribute(
              out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
          "cublasLtMatrixLayoutSetAttribute", detail);
  ltCheck(lt,
          lt.cublasLtMatrixLayoutSetAttribute(
              out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
              sizeof(stride)),
          "cublasLtMatrixLayoutSetAttribute", detail);
  return out;
}

/// C = beta * C for k == 0: zeros for beta 0, nothing for beta 1.
void scaleOnly(Device &device, distrt_dtype dtype, int64_t batch, int64_t m,
               int64_t n, double beta, void *c, int64_t ldc, int64_t strideC,
               const std::string &detail) {
  if (beta == 1)
    return;
  if (beta != 0)
    fatalMessage("distrt_cuda_gemm(" + detail +
                 "): k == 0 with beta other than 0 or 1 is not supported");
  size_t size = distrt_dtype_size(dtype);
  for (int64_t i = 0; i < batch; ++i) {
    CUdeviceptr row = reinterpret_cast<CUdeviceptr>(c) + i * strideC * size;
    size_t pitch = static_cast<size_t>(ldc) * size;
    if (size == 2)
      check(device.driver.cuMemsetD2D16Async(row, pitch, 0,
                                             static_cast<size_t>(n),
                                             static_cast<size_t>(m),
                                             device.stream),
            "cuMemsetD2D16Async", detail);
    else
      check(device.driver.cuMemsetD2D32Async(
                row, pitch, 0, static_cast<size_t>(n) * size / 4,
                static_cast<size_t>(m), device.stream),
            "cuMemsetD2D32Async", detail);
  }
}

/// distrt_gemm's argument checks; "" when fine.
std::string badArguments(distrt_dtype dtype, int64_t batch, int64_t m,
                         int64_t n, int64_t k, int transA, int transB,
                         const void *a, int64_t lda, int64_t strideA,
                         const void *b, int64_t ldb, int64_t strideB, void *c,
                         int64_t ldc, int64_t strideC) {
  if (dtype != DISTRT_F32 && dtype != DISTRT_F64 && dtype != DISTRT_BF16 &&
      dtype != DISTRT_F16)
    return std::string("unsupported element type ") + distrt_dtype_name(dtype) +
           " (float32, float64, bfloat16 or float16)";
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    return "negative size";
  if (batch > INT_MAX)
    return "batch over 2^31 - 1";
  if (batch == 0 || m == 0 || n == 0)
    return "";
  int64_t colsA = transA ? m : k, colsB = transB ? k : n;
  if (k > 0 && lda < std::max<int64_t>(1, colsA))
    return "lda " + std::to_string(lda) + " < " + std::to_string(colsA);
  if (k > 0 && ldb < std::max<int64_t>(1, colsB))
    return "ldb " + std::to_string(ldb) + " < " + std::to_string(colsB);
  if (ldc < std::max<int64_t>(1, n))
    return "ldc " + std::to_string(ldc) + " < " + std::to_string(n);
  if (strideA < 0 || strideB < 0 || strideC < 0)
    return "negative batch stride";
  if (strideC == 0 && batch > 1)
    return "stride_c 0 with batch " + std::to_string(batch) +
           " would write every product to the same C";
  if (!c || (k > 0 && (!a || !b)))
    return "null matrix pointer";
  return "";
}

} // namespace

extern "C" int distrt_cuda_gemm(distrt_dtype dtype, int trans_a, int trans_b,
                                int64_t batch, int64_t m, int64_t n, int64_t k,
                                double alpha, const void *a, int64_t lda,
                                int64_t stride_a, const void *b, int64_t ldb,
                                int64_t stride_b, double beta, void *c,
                                int64_t ldc, int64_t stride_c,
                                distrt_gemm_epilogue epilogue, const void *bias,
                                void *aux, int64_t ldaux, distrt_dtype c_dtype,
                                const char *op) {
  std::string detail =
      distrt::gemmText(op, dtype, trans_a, trans_b, batch, m, n, k, epilogue) +
      distrt::gemmOutputText(dtype, c_dtype);
  std::string bad =
      badArguments(dtype, batch, m, n, k, trans_a, trans_b, a, lda, stride_a, b,
                   ldb, stride_b, c, ldc, stride_c);
  if (bad.empty())
    bad = distrt::badGemmOutput(dtype, c_dtype, beta, epilogue);
  if (bad.empty())
    bad =
        distrt::badGemmEpilogue(dtype, batch, n, k, epilogue, bias, aux, ldaux);
  if (!bad.empty()) {
    distrt::fail("distrt_cuda_gemm(%s): %s", detail.c_str(), bad.c_str());
    fatalMessage(distrt_last_error());
  }
  if (batch == 0 || m == 0 || n == 0)
    return 0;
  Device &device = require();
  // bfloat16 / float16 inputs: C is float32 (distrt_gemm's rule) unless
  // c_dtype asks for bfloat16 (badGemmOutput).
  bool lowPrecision = dtype == DISTRT_BF16 || dtype == DISTRT_F16;
  if (k == 0) {
    scaleOnly(device, c_dtype, batch, m, n, beta, c, ldc, stride_c, detail);
    syncIfAsked(device, "distrt_cuda_gemm", detail);
    return 0;
  }
  std::lock_guard<std::mutex> lock(ltMutex);
  Lt &lt = openLt(device);
  bool f64 = dtype == DISTRT_F64;
  bool tf32 = !f64 && allowTf32();
  int64_t size = static_cast<int64_t>(distrt_dtype_size(dtype));
  int64_t sizeC = static_cast<int64_t>(distrt_dtype_size(c_dtype));
  // The cuBLASLt product: A' = B as stored, B' = A as stored (above).
  int alignA = alignmentOf(b, batch, stride_b * size),
      alignB = alignmentOf(a, batch, stride_a * size),
      alignC = alignmentOf(c, batch, stride_c * sizeC);
  int alignBias = bias ? alignmentOf(bias, 1, 0) : 0,
      alignAux = aux ? alignmentOf(aux, 1, 0) : 0;
  ShapeKey key{
      dtype,  trans_a, trans_b, batch,    m,         n,        k,
      lda,    ldb,     ldc,     stride_a, stride_b,  stride_c, tf32,
      alignA, alignB,  alignC,  epilogue, alignBias, alignAux, aux != nullptr,
      ldaux,  c_dtype};
  static auto *plans = new std::map<ShapeKey, Plan>;
  auto found = plans->find(key);
  if (found == plans->end()) {
    Plan plan;
    // The scale (and accumulator) type; the inputs' is `inputType`, C's
    // `outputType`.
    cudaDataType type = f64 ? CUDA_R_64F : CUDA_R_32F;
    cudaDataType outputType = c_dtype == DISTRT_BF16 ? CUDA_R_16BF : type;
    cudaDataType inputType = dtype == DISTRT_BF16  ? CUDA_R_16BF
                             : dtype == DISTRT_F16 ? CUDA_R_16F
                                                   : type;
    cublasComputeType_t compute = f64 ? CUBLAS_COMPUTE_64F
                                  : tf32 && !lowPrecision
                                      ? CUBLAS_COMPUTE_32F_FAST_TF32
                                      : CUBLAS_COMPUTE_32F;
    ltCheck(lt, lt.cublasLtMatmulDescCreate(&plan.desc, compute, type),
            "cublasLtMatmulDescCreate", detail);
    int32_t opA = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    int32_t opB = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    ltCheck(lt,
            lt.cublasLtMatmulDescSetAttribute(
                plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
            "cublasLtMatmulDescSetAttribute", detail);
    ltCheck(lt,
            lt.cublasLtMatmulDescSetAttribute(
                plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
            "cublasLtMatmulDescSetAttribute", detail);
    if (epilogue != DISTRT_GEMM_PLAIN) {
      // The pointers' values set the alignment the algorithm may assume;
      // they are set again before each call.
      uint32_t kind = ltEpilogue(epilogue, aux != nullptr);
      setDesc(lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, kind, detail);
      setDesc(lt, plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias, detail);
      if (aux) {
        setDesc(lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux,
                detail);
        setDesc(lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, ldaux,
                detail);
      }
    }
    // Stored shapes, column-major: B is k x n row-major (n x k transposed:
    // k x n column-major when trans_b), A is m x k (k x m ...).
    plan.a = trans_b
                 ? layout(lt, inputType, k, n, ldb, batch, stride_b, detail)
                 : layout(lt, inputType, n, k, ldb, batch, stride_b, detail);
    plan.b = trans_a
                 ? layout(lt, inputType, m, k, lda, batch, stride_a, detail)
                 : layout(lt, inputType, k, m, lda, batch, stride_a, detail);
    plan.c = layout(lt, outputType, n, m, ldc, batch, stride_c, detail);
    cublasLtMatmulPreference_t preference = nullptr;
    ltCheck(lt, lt.cublasLtMatmulPreferenceCreate(&preference),
            "cublasLtMatmulPreferenceCreate", detail);
    uint64_t workspace = kWorkspaceBytes;
    uint32_t alignments[] = {static_cast<uint32_t>(alignA),
                             static_cast<uint32_t>(alignB),
                             static_cast<uint32_t>(alignC)};
    ltCheck(lt,
            lt.cublasLtMatmulPreferenceSetAttribute(
                preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &workspace, sizeof(workspace)),
            "cublasLtMatmulPreferenceSetAttribute", detail);
    if (c_dtype == DISTRT_BF16) {
      // Split-K partial sums stay float32: the in-place and output-type
      // reduction schemes would round each to bfloat16 before adding them,
      // where truncf (and the emulator) round the float32 total once.
      uint32_t schemes =
          CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
      ltCheck(lt,
              lt.cublasLtMatmulPreferenceSetAttribute(
                  preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                  &schemes, sizeof(schemes)),
              "cublasLtMatmulPreferenceSetAttribute", detail);
    }
    cublasLtMatmulPreferenceAttributes_t alignmentAttributes[] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; ++i)
      ltCheck(lt,
              lt.cublasLtMatmulPreferenceSetAttribute(
                  preference, alignmentAttributes[i],
                  &alignments[i < 3 ? i : 2], sizeof(uint32_t)),
              "cublasLtMatmulPreferenceSetAttribute", detail);
    cublasLtMatmulHeuristicResult_t result;
    std::memset(&result, 0, sizeof(result));
    int count = 0;
    ltCheck(lt,
            lt.cublasLtMatmulAlgoGetHeuristic(lt.handle, plan.desc, plan.a,
                                              plan.b, plan.c, plan.c,
                                              preference, 1, &result, &count),
            "cublasLtMatmulAlgoGetHeuristic", detail);
    if (count < 1 || result.state != CUBLAS_STATUS_SUCCESS)
      fatalMessage("cublasLtMatmulAlgoGetHeuristic(" + detail +
                   "): no cuBLASLt algorithm for this product");
    plan.algo = result.algo;
    found = plans->emplace(key, plan).first;
    distrt_log(DISTRT_LOG_DEBUG, "cuBLASLt plan for %s (workspace %zu bytes)",
               detail.c_str(), result.workspaceSize);
  }
  const Plan &plan = found->second;
  if (bias)
    setDesc(lt, plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias, detail);
  if (aux)
    setDesc(lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux,
            detail);
  float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void *alphaP = f64 ? static_cast<const void *>(&alpha) : &alpha32;
  const void *betaP = f64 ? static_cast<const void *>(&beta) : &beta32;
  DeviceSpan span(device, device.stream);
  ltCheck(lt,
          lt.cublasLtMatmul(lt.handle, plan.desc, alphaP, b, plan.a, a, plan.b,
                            betaP, c, plan.c, c, plan.c, &plan.algo,
                            lt.workspace, kWorkspaceBytes, device.stream),
          "cublasLtMatmul", detail);
  if (span.active())
    span.end(distrt::trace::Track::DeviceCompute, "gemm",
             distrt::gemmTraceArgs(dtype, batch, m, n, k) + ", \"op\": " +
                 distrt::json::quote(op ? op : ""));
  syncIfAsked(device, "distrt_cuda_gemm", detail);
  return 0;
}
