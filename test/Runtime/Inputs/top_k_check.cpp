// distrt_sparsify_top_k against a brute force (a stable sort by magnitude):
// random rows with ties (values drawn from a few magnitudes, both signs),
// zeros, -0, infinities and NaNs (of two payloads, which tie: the lower
// index first); k from 1 to n; the rest written in place
// (rest == x) or apart. Prints the counts and failures; exit 1 on any.
#include "distrt/distrt.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

// Larger magnitude first (NaN above everything), ties to the lower index.
bool before(const std::vector<float> &x, int64_t a, int64_t b) {
  auto key = [&](int64_t i) {
    return std::isnan(x[i]) ? std::numeric_limits<double>::infinity() * 2
                            : static_cast<double>(std::fabs(x[i]));
  };
  // inf * 2 is inf: order NaN above inf by a flag.
  bool na = std::isnan(x[a]), nb = std::isnan(x[b]);
  if (na != nb)
    return na;
  if (key(a) != key(b))
    return key(a) > key(b);
  return a < b;
}

int checkRows(std::mt19937 &rng, int64_t rows, int64_t n, int64_t k,
              bool inPlace, bool specials) {
  std::vector<float> x(rows * n);
  float levels[] = {0.0f, 0.5f, 1.0f, 1.0f, 2.0f, 3.25e-3f, 7.0f, 1e-30f};
  for (float &v : x) {
    float m = (rng() % 3 == 0) ? levels[rng() % 8]
                               : std::ldexp(float(rng() % 1000 + 1), -int(rng() % 20));
    v = (rng() % 2) ? -m : m;
    if (specials) {
      unsigned r = rng() % 40;
      if (r == 0) v = std::numeric_limits<float>::infinity();
      if (r == 1) v = -std::numeric_limits<float>::infinity();
      if (r == 2) v = std::numeric_limits<float>::quiet_NaN();
      if (r == 4) { // a NaN with another payload and sign: NaNs tie
        uint32_t bits = 0xFFC00123u;
        std::memcpy(&v, &bits, sizeof(v));
      }
      if (r == 3) v = -0.0f;
    }
  }
  std::vector<float> original = x, values(rows * k), restApart(rows * n);
  std::vector<int64_t> indices(rows * k);
  float *rest = inPlace ? x.data() : restApart.data();
  distrt_sparsify_top_k(x.data(), rows, n, k, values.data(), indices.data(), rest);
  int failures = 0;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> row(original.begin() + r * n, original.begin() + (r + 1) * n);
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return before(row, a, b); });
    std::vector<int64_t> chosen(order.begin(), order.begin() + k);
    std::sort(chosen.begin(), chosen.end());
    std::vector<bool> picked(n, false);
    for (int64_t i = 0; i < k; ++i) {
      picked[chosen[i]] = true;
      if (indices[r * k + i] != chosen[i] ||
          !sameBits(values[r * k + i], row[chosen[i]])) {
        if (failures++ < 5)
          std::printf("row %lld of %lld (n %lld, k %lld): selection %lld is "
                      "index %lld value %g, expected %lld value %g\n",
                      (long long)r, (long long)rows, (long long)n, (long long)k,
                      (long long)i, (long long)indices[r * k + i],
                      values[r * k + i], (long long)chosen[i], row[chosen[i]]);
        break;
      }
    }
    for (int64_t e = 0; e < n; ++e) {
      float want = picked[e] ? 0.0f : row[e];
      if (!sameBits(rest[r * n + e], want)) {
        if (failures++ < 5)
          std::printf("row %lld (n %lld, k %lld): rest[%lld] = %g, expected %g\n",
                      (long long)r, (long long)n, (long long)k, (long long)e,
                      rest[r * n + e], want);
        break;
      }
    }
  }
  return failures;
}

} // namespace

int main(int argc, char **argv) {
  int cases = argc > 1 ? std::atoi(argv[1]) : 300;
  std::mt19937 rng(1234);
  int failures = 0, withSpecials = 0, inPlace = 0, whole = 0;
  for (int c = 0; c < cases; ++c) {
    int64_t n = 1 + rng() % (c % 10 == 0 ? 5000 : 64);
    int64_t k = 1 + rng() % n;
    if (c % 7 == 0) { k = n; ++whole; }
    int64_t rows = 1 + rng() % 4;
    bool place = rng() % 2, specials = c % 3 == 0;
    withSpecials += specials;
    inPlace += place;
    failures += checkRows(rng, rows, n, k, place, specials);
  }
  std::printf("top-k: %d cases (%d with inf, nan and -0, %d in place, %d with k = n), "
              "%d failures\n", cases, withSpecials, inPlace, whole, failures);
  return failures ? 1 : 0;
}
