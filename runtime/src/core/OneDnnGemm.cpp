//===- OneDnnGemm.cpp - distrt_gemm on oneDNN's matmul --------------------===//
//
// libdnnl.so.2 is opened with dlopen on first use, so executables run (on
// OpenBLAS) where it is missing. Each product creates a matmul primitive
// from strided memory descriptors (oneDNN's primitive cache makes repeated
// shapes cheap): A as [batch, m, k] with strides (strideA, lda, 1), or
// (strideA, 1, lda) when transposed; a batch stride of 0 is a batch of 1,
// which oneDNN broadcasts; alpha is the output scale, beta a sum post-op.
// A type is routed to oneDNN only after a product of it on oneDNN matched
// the widened float32 product (a wrong library never trains silently).
//
//===----------------------------------------------------------------------===//

#include "OneDnnGemm.h"

#include "Error.h"
#include "HalfFloat.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
#define DISTRT_HAVE_ONEDNN 1
#endif

using distrt::fail;

namespace distrt::onednn {
namespace {

enum class Choice { Unknown, OneDnn, OpenBlas };

/// The user's DISTRT_CPU_GEMM: auto, onednn or openblas.
std::string policy() {
  const char *value = std::getenv("DISTRT_CPU_GEMM");
  return value && *value ? value : "auto";
}

#ifdef DISTRT_HAVE_ONEDNN

/// The functions of libdnnl.so.2 distrt calls.
struct Api {
  void *handle = nullptr;
  std::string whyNot;
#define DISTRT_DNNL_FUNCTIONS(X)                                               \
  X(engine_create)                                                             \
  X(stream_create)                                                             \
  X(stream_wait)                                                               \
  X(memory_desc_init_by_strides)                                               \
  X(matmul_desc_init)                                                          \
  X(primitive_attr_create)                                                     \
  X(primitive_attr_destroy)                                                    \
  X(primitive_attr_set_output_scales)                                          \
  X(primitive_attr_set_post_ops)                                               \
  X(post_ops_create)                                                           \
  X(post_ops_destroy)                                                          \
  X(post_ops_append_sum)                                                       \
  X(primitive_desc_create)                                                     \
  X(primitive_desc_destroy)                                                    \
  X(primitive_desc_query)                                                      \
  X(primitive_create)                                                          \
  X(primitive_destroy)                                                         \
  X(primitive_execute)                                                         \
  X(memory_create)                                                             \
  X(memory_destroy)
#define DISTRT_DNNL_MEMBER(name) decltype(&::dnnl_##name) name = nullptr;
  DISTRT_DNNL_FUNCTIONS(DISTRT_DNNL_MEMBER)
  void (*ompSetNumThreads)(int) = nullptr;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
};

/// The gemm thread count shareGemmThreads chose (0: OpenMP's default).
int sharedThreads = 0;

Api &api() {
  static Api loaded = [] {
    Api a;
    a.handle = ::dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!a.handle) {
      const char *why = ::dlerror();
      a.whyNot = std::string("libdnnl.so.2 not found (Debian: libdnnl2): ") +
                 (why ? why : "dlopen failed");
      return a;
    }
#define DISTRT_DNNL_LOAD(name)                                                 \
  a.name = reinterpret_cast<decltype(a.name)>(                                 \
      ::dlsym(a.handle, "dnnl_" #name));                                       \
  if (!a.name) {                                                               \
    a.whyNot = "libdnnl.so.2 lacks dnnl_" #name " (oneDNN 2.x expected)";      \
    return a;                                                                  \
  }
    DISTRT_DNNL_FUNCTIONS(DISTRT_DNNL_LOAD)
    a.ompSetNumThreads = reinterpret_cast<void (*)(int)>(
        ::dlsym(a.handle, "omp_set_num_threads"));
    if (a.ompSetNumThreads && sharedThreads > 0)
      a.ompSetNumThreads(sharedThreads);
    if (a.engine_create(&a.engine, dnnl_cpu, 0) != dnnl_success ||
        a.stream_create(&a.stream, a.engine, dnnl_stream_default_flags) !=
            dnnl_success)
      a.whyNot = "oneDNN could not create a CPU engine and stream";
    return a;
  }();
  return loaded;
}

bool loaded() { return api().whyNot.empty(); }

dnnl_data_type_t dnnlType(distrt_dtype dtype) {
  switch (dtype) {
  case DISTRT_F32:
    return dnnl_f32;
  case DISTRT_BF16:
    return dnnl_bf16;
  case DISTRT_F16:
    return dnnl_f16;
  default:
    return dnnl_data_type_undef;
  }
}

/// An operand [batch, rows, cols] stored with row stride `ld` (transposed:
/// column stride) and batch stride `stride` (0: one matrix for every batch).
dnnl_status_t describe(dnnl_memory_desc_t *md, dnnl_data_type_t type,
                       int64_t batch, int64_t rows, int64_t cols, int64_t ld,
                       int64_t stride, bool transposed) {
  dnnl_dims_t dims = {stride == 0 ? 1 : batch, rows, cols};
  dnnl_dims_t strides = {stride == 0 ? rows * cols : stride,
                         transposed ? 1 : ld, transposed ? ld : 1};
  return api().memory_desc_init_by_strides(md, 3, dims, type, strides);
}

/// A matmul primitive for these operands, or null with `why` set (oneDNN
/// has no implementation: the type on this CPU, or these strides).
struct Primitive {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_desc_t a, b, c;
  std::string impl, why;
  ~Primitive() {
    if (primitive)
      api().primitive_destroy(primitive);
  }
};

void create(Primitive &p, distrt_dtype dtype, int transA, int transB,
            int64_t batch, int64_t m, int64_t n, int64_t k, double alpha,
            int64_t lda, int64_t strideA, int64_t ldb, int64_t strideB,
            double beta, int64_t ldc, int64_t strideC) {
  Api &d = api();
  dnnl_data_type_t type = dnnlType(dtype);
  dnnl_memory_desc_t &a = p.a, &b = p.b, &c = p.c;
  if (describe(&a, type, batch, m, k, lda, strideA, transA) != dnnl_success ||
      describe(&b, type, batch, k, n, ldb, strideB, transB) != dnnl_success ||
      describe(&c, dnnl_f32, batch, m, n, ldc, strideC == 0 ? m * n : strideC,
               false) != dnnl_success) {
    p.why = "memory descriptors rejected";
    return;
  }
  dnnl_matmul_desc_t desc;
  if (d.matmul_desc_init(&desc, &a, &b, nullptr, &c) != dnnl_success) {
    p.why = "matmul descriptor rejected";
    return;
  }
  dnnl_primitive_attr_t attr;
  dnnl_post_ops_t ops;
  d.primitive_attr_create(&attr);
  d.post_ops_create(&ops);
  float scale = static_cast<float>(alpha);
  if (alpha != 1)
    d.primitive_attr_set_output_scales(attr, 1, 0, &scale);
  if (beta != 0) {
    d.post_ops_append_sum(ops, static_cast<float>(beta));
    d.primitive_attr_set_post_ops(attr, ops);
  }
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_status_t status =
      d.primitive_desc_create(&pd, &desc, attr, d.engine, nullptr);
  d.post_ops_destroy(ops);
  d.primitive_attr_destroy(attr);
  if (status != dnnl_success) {
    p.why = status == dnnl_unimplemented
                ? "oneDNN has no matmul for this type on this CPU"
                : "oneDNN rejected the matmul";
    return;
  }
  const char *impl = nullptr;
  if (d.primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) ==
          dnnl_success &&
      impl)
    p.impl = impl;
  if (d.primitive_create(&p.primitive, pd) != dnnl_success) {
    p.primitive = nullptr;
    p.why = "oneDNN could not create the matmul";
  }
  d.primitive_desc_destroy(pd);
}

/// Runs a created primitive; 0 or -1 with the error set.
int execute(Primitive &p, const void *a, const void *b, float *c) {
  Api &d = api();
  dnnl_memory_t ma = nullptr, mb = nullptr, mc = nullptr;
  int result = 0;
  if (d.memory_create(&ma, &p.a, d.engine, const_cast<void *>(a)) !=
          dnnl_success ||
      d.memory_create(&mb, &p.b, d.engine, const_cast<void *>(b)) !=
          dnnl_success ||
      d.memory_create(&mc, &p.c, d.engine, c) != dnnl_success) {
    result = fail("distrt_gemm: oneDNN could not wrap the operands");
  } else {
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma},
                              {DNNL_ARG_WEIGHTS, mb},
                              {DNNL_ARG_DST, mc}};
    if (d.primitive_execute(p.primitive, d.stream, 3, args) != dnnl_success ||
        d.stream_wait(d.stream) != dnnl_success)
      result = fail("distrt_gemm: oneDNN's matmul (%s) failed",
                    p.impl.c_str());
  }
  for (dnnl_memory_t m : {ma, mb, mc})
    if (m)
      d.memory_destroy(m);
  return result;
}

/// A product of `dtype` on oneDNN against the same product widened to
/// float64: whether oneDNN computes it (the CPU has the instructions, not
/// a slow reference loop) and gets it right. `why` says what failed.
bool selfCheck(distrt_dtype dtype, std::string &why, std::string &impl) {
  constexpr int64_t m = 13, n = 37, k = 70;
  std::vector<uint16_t> a16(m * k), b16(k * n);
  std::vector<float> a32(m * k), b32(k * n), c(m * n, 0.0f);
  auto value = [&](int64_t i) {
    float x = static_cast<float>((i * 7919) % 201 - 100) / 64.0f;
    return x;
  };
  auto store = [&](float x, uint16_t &bits) {
    // Every value above is exact in bfloat16 and float16.
    bits = dtype == DISTRT_BF16 ? distrt::model::floatToBfloat16(x)
                                : distrt::model::floatToFloat16(x);
  };
  for (int64_t i = 0; i < m * k; ++i) {
    a32[i] = value(i);
    store(a32[i], a16[i]);
  }
  for (int64_t i = 0; i < k * n; ++i) {
    b32[i] = value(i + 5);
    store(b32[i], b16[i]);
  }
  Primitive p;
  create(p, dtype, 0, 0, 1, m, n, k, 1.0, k, 0, n, 0, 0.0, n, 0);
  if (!p.primitive) {
    why = p.why;
    return false;
  }
  impl = p.impl;
  if (impl.rfind("ref", 0) == 0) {
    why = "oneDNN has only its reference loop for this type on this CPU";
    return false;
  }
  const void *a = dtype == DISTRT_F32 ? static_cast<const void *>(a32.data())
                                      : a16.data();
  const void *b = dtype == DISTRT_F32 ? static_cast<const void *>(b32.data())
                                      : b16.data();
  if (execute(p, a, b, c.data()) != 0) {
    why = distrt_last_error();
    return false;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0, scale = 0;
      for (int64_t l = 0; l < k; ++l) {
        double t = static_cast<double>(a32[i * k + l]) * b32[l * n + j];
        want += t;
        scale += std::fabs(t);
      }
      if (!(std::fabs(c[i * n + j] - want) <= 1e-5 * scale + 1e-30)) {
        why = "oneDNN's product differs from the float64 reference";
        return false;
      }
    }
  return true;
}

#endif // DISTRT_HAVE_ONEDNN

std::mutex choiceMutex;
Choice choices[16];

Choice choose(distrt_dtype dtype) {
  std::lock_guard<std::mutex> lock(choiceMutex);
  Choice &choice = choices[static_cast<int>(dtype) & 15];
  if (choice != Choice::Unknown)
    return choice;
  std::string mode = policy();
  choice = Choice::OpenBlas;
  if (mode != "auto" && mode != "onednn" && mode != "openblas") {
    static bool warned = false;
    if (!warned)
      distrt_log(DISTRT_LOG_WARN,
                 "DISTRT_CPU_GEMM=%s is not auto, onednn or openblas; using "
                 "auto",
                 mode.c_str());
    warned = true;
    mode = "auto";
  }
  bool wanted = dtype == DISTRT_BF16 || dtype == DISTRT_F16
                    ? mode != "openblas"
                    : dtype == DISTRT_F32 && mode == "onednn";
  if (!wanted)
    return choice;
#ifdef DISTRT_HAVE_ONEDNN
  std::string why, impl;
  if (!loaded())
    why = api().whyNot;
  else if (selfCheck(dtype, why, impl))
    choice = Choice::OneDnn;
#else
  std::string why = "distrt was built without oneDNN's headers (Debian: "
                    "libdnnl-dev)",
              impl;
#endif
  const char *name = distrt_dtype_name(dtype);
  if (choice == Choice::OneDnn)
    distrt_log(DISTRT_LOG_INFO, "%s products: oneDNN matmul (%s)", name,
               impl.c_str());
  else
    distrt_log(mode == "onednn" ? DISTRT_LOG_WARN : DISTRT_LOG_INFO,
               "%s products: %sOpenBLAS, not oneDNN: %s", name,
               dtype == DISTRT_F32 ? "" : "widened to float32 on ",
               why.c_str());
  return choice;
}

} // namespace

const char *backend(distrt_dtype dtype) {
  return choose(dtype) == Choice::OneDnn ? "oneDNN" : "OpenBLAS";
}

int gemm(distrt_dtype dtype, int transA, int transB, int64_t batch, int64_t m,
         int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
         int64_t strideA, const void *b, int64_t ldb, int64_t strideB,
         double beta, float *c, int64_t ldc, int64_t strideC) {
  if (alpha == 0 || k == 0 || choose(dtype) != Choice::OneDnn)
    return 0;
#ifdef DISTRT_HAVE_ONEDNN
  // One A and one B for every batch: oneDNN broadcasts a batch of 1 only
  // against a batch of the other operand, so one product per C.
  int64_t runs = strideA == 0 && strideB == 0 ? batch : 1;
  if (runs > 1)
    batch = 1;
  Primitive p;
  create(p, dtype, transA, transB, batch, m, n, k, alpha, lda, strideA, ldb,
         strideB, beta, ldc, strideC);
  // oneDNN's reference loop for these strides is slower than OpenBLAS.
  if (p.primitive && p.impl.rfind("ref", 0) == 0) {
    api().primitive_destroy(p.primitive);
    p.primitive = nullptr;
    p.why = "oneDNN has only its reference loop for this layout";
  }
  if (!p.primitive) {
    distrt_log(DISTRT_LOG_DEBUG,
               "%s product (batch %lld, m %lld, n %lld, k %lld) on OpenBLAS: "
               "%s",
               distrt_dtype_name(dtype), static_cast<long long>(batch),
               static_cast<long long>(m), static_cast<long long>(n),
               static_cast<long long>(k), p.why.c_str());
    return 0;
  }
  for (int64_t i = 0; i < runs; ++i)
    if (execute(p, a, b, c + i * strideC) != 0)
      return -1;
  return 1;
#else
  return 0;
#endif
}

void setThreads(int threads) {
#ifdef DISTRT_HAVE_ONEDNN
  // Applied when libdnnl is opened (on the first product it may run).
  sharedThreads = threads;
#else
  (void)threads;
#endif
}

} // namespace distrt::onednn
