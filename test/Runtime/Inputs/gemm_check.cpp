//===- gemm_check.cpp - distrt_gemm against a float64 loop ----------------===//
//
//   distrt-gemm-check [CASES]
//
// Runs CASES (default 400) seeded random products: float32, float64, and
// bfloat16 and float16 inputs with a float32 C (mixed precision), both
// transposes, sizes 0..40 (and a few up to 150), row strides above the row
// length, batch strides with padding or 0 (a broadcast A or B), alpha and beta
// in {0, 1, other}. Each result is compared with a float64 loop over the same
// inputs, within a bound scaled by the sum of |terms|; every element of C
// outside the products (padding between rows and batches) must keep its
// sentinel, and with beta == 0 C starts as NaN, which must not propagate.
// Then prints the message of each rejected call. Exit 1 on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

uint64_t state = 42;

uint64_t next() { // splitmix64
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int64_t below(int64_t n) { return static_cast<int64_t>(next() % n); }

double uniform() { return static_cast<double>(next() >> 11) * 0x1p-52 - 1.0; }

constexpr double kSentinel = 1234.5;

struct Case {
  distrt_dtype dtype; // of A and B; C is float64 for float64, else float32
  int transA, transB;
  int64_t batch, m, n, k, lda, ldb, ldc, strideA, strideB, strideC;
  double alpha, beta;
};

Case randomCase() {
  Case c;
  const distrt_dtype dtypes[] = {DISTRT_F32, DISTRT_F64, DISTRT_BF16,
                                 DISTRT_F16};
  c.dtype = dtypes[below(4)];
  c.transA = static_cast<int>(below(2));
  c.transB = static_cast<int>(below(2));
  c.batch = below(4) + (below(8) == 0 ? 0 : 1);
  bool big = below(20) == 0;
  c.m = big ? 100 + below(50) : below(8) == 0 ? 0 : below(40);
  c.n = big ? 100 + below(50) : below(8) == 0 ? 0 : below(40);
  c.k = big ? 100 + below(50) : below(8) == 0 ? 0 : below(40);
  c.lda = (c.transA ? c.m : c.k) + below(3);
  c.ldb = (c.transB ? c.k : c.n) + below(3);
  c.ldc = c.n + below(3);
  // BLAS wants a row stride of at least 1.
  c.lda = c.lda ? c.lda : 1;
  c.ldb = c.ldb ? c.ldb : 1;
  c.ldc = c.ldc ? c.ldc : 1;
  int64_t rowsA = c.transA ? c.k : c.m, rowsB = c.transB ? c.n : c.k;
  c.strideA = below(4) == 0 ? 0 : rowsA * c.lda + below(5);
  c.strideB = below(4) == 0 ? 0 : rowsB * c.ldb + below(5);
  c.strideC = c.batch <= 1 && below(2) ? 0 : c.m * c.ldc + below(5);
  const double alphas[] = {1, 0, -0.75, uniform() * 3};
  const double betas[] = {0, 1, -1.5, uniform() * 3};
  c.alpha = alphas[below(4)];
  c.beta = betas[below(4)];
  return c;
}

/// Elements a batch of matrices spans: the last batch's last row ends it.
size_t span(int64_t batch, int64_t rows, int64_t ld, int64_t cols,
            int64_t stride) {
  if (batch == 0 || rows == 0 || cols == 0)
    return 1;
  return static_cast<size_t>((batch - 1) * stride + (rows - 1) * ld + cols);
}

/// A value every input type holds exactly: k / 128 for |k| <= 128 (8
/// significant bits: bfloat16 has 8, float16 11).
double representable() { return static_cast<double>(below(257) - 128) / 128; }

/// `value` (representable() above) as a 16-bit float's bits: bfloat16 is
/// float32's upper half; float16 from the binary exponent and mantissa.
uint16_t encode16(distrt_dtype dtype, double value) {
  if (dtype == DISTRT_BF16) {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return static_cast<uint16_t>(bits >> 16);
  }
  uint16_t sign = value < 0 ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  if (magnitude == 0)
    return sign;
  int exponent;
  double fraction = std::frexp(magnitude, &exponent); // in [0.5, 1)
  // magnitude = 1.m * 2^(exponent - 1); float16's bias is 15.
  auto mantissa = static_cast<uint16_t>((fraction * 2 - 1) * 1024);
  return sign | static_cast<uint16_t>((exponent - 1 + 15) << 10) | mantissa;
}

/// Inputs of `In` (float, double, or uint16_t holding 16-bit floats of
/// c.dtype), C of `Out`.
template <typename In, typename Out> bool check(const Case &c, int index) {
  int64_t rowsA = c.transA ? c.k : c.m, colsA = c.transA ? c.m : c.k;
  int64_t rowsB = c.transB ? c.n : c.k, colsB = c.transB ? c.k : c.n;
  // The inputs' values (float64) and what distrt_gemm reads.
  std::vector<double> av(span(c.batch, rowsA, c.lda, colsA, c.strideA));
  std::vector<double> bv(span(c.batch, rowsB, c.ldb, colsB, c.strideB));
  std::vector<In> a(av.size()), b(bv.size());
  auto fill = [&](std::vector<double> &values, std::vector<In> &stored) {
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (sizeof(In) == 2) {
        values[i] = representable();
        stored[i] = encode16(c.dtype, values[i]);
      } else {
        stored[i] = static_cast<In>(uniform());
        values[i] = stored[i];
      }
    }
  };
  fill(av, a);
  fill(bv, b);
  using T = Out;
  std::vector<T> out(span(c.batch, c.m, c.ldc, c.n, c.strideC));
  for (T &x : out)
    x = static_cast<T>(kSentinel);
  std::vector<bool> inside(out.size(), false);
  for (int64_t p = 0; p < c.batch; ++p)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        size_t at = p * c.strideC + i * c.ldc + j;
        inside[at] = true;
        out[at] = c.beta == 0 ? static_cast<T>(NAN) : static_cast<T>(uniform());
      }
  std::vector<T> before = out;

  // The reference, in float64 from the same (rounded) inputs.
  std::vector<double> expected(out.size()), bound(out.size());
  for (int64_t p = 0; p < c.batch; ++p)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < c.k; ++l) {
          double x = c.transA ? av[p * c.strideA + l * c.lda + i]
                              : av[p * c.strideA + i * c.lda + l];
          double y = c.transB ? bv[p * c.strideB + j * c.ldb + l]
                              : bv[p * c.strideB + l * c.ldb + j];
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        size_t at = p * c.strideC + i * c.ldc + j;
        double old = c.beta == 0 ? 0 : c.beta * before[at];
        expected[at] = c.alpha * sum + old;
        bound[at] = std::fabs(c.alpha) * magnitude + std::fabs(old);
      }

  int status =
      distrt_gemm(c.dtype, c.transA, c.transB, c.batch,
                  c.m, c.n, c.k, c.alpha, a.data(), c.lda, c.strideA, b.data(),
                  c.ldb, c.strideB, c.beta, out.data(), c.ldc, c.strideC);
  if (status != 0) {
    std::printf("FAIL case %d: %s\n", index, distrt_last_error());
    return false;
  }
  // float32 products of k terms: a few k * 2^-24 of the magnitude.
  double epsilon = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  double tolerance = epsilon * (2.0 * static_cast<double>(c.k) + 4);
  for (size_t at = 0; at < out.size(); ++at) {
    bool ok = inside[at] ? std::fabs(out[at] - expected[at]) <=
                               tolerance * bound[at] + 1e-300
                         : out[at] == static_cast<T>(kSentinel);
    if (!ok) {
      std::printf(
          "FAIL case %d (%s ta=%d tb=%d batch=%lld m=%lld n=%lld "
          "k=%lld lda=%lld ldb=%lld ldc=%lld strides %lld %lld %lld "
          "alpha=%g beta=%g): element %zu is %.17g, expected %.17g%s\n",
          index, distrt_dtype_name(c.dtype), c.transA, c.transB,
          static_cast<long long>(c.batch), static_cast<long long>(c.m),
          static_cast<long long>(c.n), static_cast<long long>(c.k),
          static_cast<long long>(c.lda), static_cast<long long>(c.ldb),
          static_cast<long long>(c.ldc), static_cast<long long>(c.strideA),
          static_cast<long long>(c.strideB), static_cast<long long>(c.strideC),
          c.alpha, c.beta, at, static_cast<double>(out[at]),
          inside[at] ? expected[at] : kSentinel,
          inside[at] ? "" : " (outside every product)");
      return false;
    }
  }
  return true;
}

void expectError(const char *what, int status) {
  std::printf("%s: %s\n", what, status == 0 ? "ACCEPTED" : distrt_last_error());
}

} // namespace

int main(int argc, char **argv) {
  int cases = argc > 1 ? std::atoi(argv[1]) : 400;
  int failures = 0, broadcasts = 0, transposed = 0, empty = 0;
  for (int i = 0; i < cases; ++i) {
    Case c = randomCase();
    broadcasts += c.batch > 1 && (c.strideA == 0 || c.strideB == 0);
    transposed += c.transA && c.transB;
    empty += c.m == 0 || c.n == 0 || c.k == 0;
    switch (c.dtype) {
    case DISTRT_F64:
      failures += !check<double, double>(c, i);
      break;
    case DISTRT_F32:
      failures += !check<float, float>(c, i);
      break;
    default: // bfloat16, float16: float32 C
      failures += !check<uint16_t, float>(c, i);
      break;
    }
  }
  std::printf("gemm: %d cases (%d broadcast, %d both transposed, %d with a "
              "zero size), %d failures\n",
              cases, broadcasts, transposed, empty, failures);
  std::printf("backends: float32 %s, bfloat16 %s, float16 %s\n",
              distrt_gemm_backend(DISTRT_F32), distrt_gemm_backend(DISTRT_BF16),
              distrt_gemm_backend(DISTRT_F16));

  float x[16] = {0}, y[16] = {0}, z[16] = {0};
  expectError("int32", distrt_gemm(DISTRT_I32, 0, 0, 1, 2, 2, 2, 1, x, 2, 0, y,
                                   2, 0, 0, z, 2, 0));
  expectError("negative m", distrt_gemm(DISTRT_F32, 0, 0, 1, -1, 2, 2, 1, x, 2,
                                        0, y, 2, 0, 0, z, 2, 0));
  expectError("short lda", distrt_gemm(DISTRT_F32, 0, 0, 1, 2, 2, 3, 1, x, 2, 0,
                                       y, 2, 0, 0, z, 2, 0));
  expectError("short lda transposed",
              distrt_gemm(DISTRT_F32, 1, 0, 1, 4, 2, 2, 1, x, 2, 0, y, 2, 0, 0,
                          z, 2, 0));
  expectError("short ldc", distrt_gemm(DISTRT_F32, 0, 0, 1, 2, 3, 2, 1, x, 2, 0,
                                       y, 3, 0, 0, z, 2, 0));
  expectError("negative stride", distrt_gemm(DISTRT_F32, 0, 0, 2, 2, 2, 2, 1, x,
                                             2, -4, y, 2, 0, 0, z, 2, 4));
  expectError("shared C", distrt_gemm(DISTRT_F32, 0, 0, 2, 2, 2, 2, 1, x, 2, 4,
                                      y, 2, 4, 0, z, 2, 0));
  expectError("null A", distrt_gemm(DISTRT_F64, 0, 0, 1, 2, 2, 2, 1, nullptr, 2,
                                    0, y, 2, 0, 0, z, 2, 0));
  expectError("huge m", distrt_gemm(DISTRT_F32, 0, 0, 1, int64_t(1) << 32, 1, 1,
                                    1, x, 1, 0, y, 1, 0, 0, z, 1, 0));
  // Nothing to do, so nothing is checked or touched.
  expectError("empty", distrt_gemm(DISTRT_F32, 0, 0, 0, 2, 2, 2, 1, nullptr, 0,
                                   0, nullptr, 0, 0, 0, nullptr, 0, 0));
  return failures ? 1 : 0;
}
