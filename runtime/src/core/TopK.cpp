//===- TopK.cpp - The k elements largest in magnitude, and the rest -------===//
//
// distrt_sparsify_top_k (distrt.h): top-k gradient compression's selection,
// for the compiled dist.sparsify_top_k and parameter-server pushes alike.
// A radix select on the magnitudes' bits: the bits of |x| (sign cleared)
// order as the magnitudes do, with every NaN above infinity, so three
// histogram passes of 11, 10 and 10 bits find the k-th largest key and
// how many of its ties to take (the lowest indices); a last pass writes the
// selection in ascending index order. No scratch memory, 4 passes a row.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

/// The bits of |x|, every NaN as one key above infinity (so NaNs tie, and
/// ties go to the lower index whatever their payloads).
uint32_t magnitudeKey(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits &= 0x7FFFFFFFu;
  return bits > 0x7F800000u ? 0x7F800001u : bits;
}

void sparsifyRow(const float *x, int64_t n, int64_t k, float *values,
                 int64_t *indices, float *rest) {
  // The digits of a 31-bit key, most significant first.
  constexpr int kShifts[] = {20, 10, 0};
  constexpr int kWidths[] = {11, 10, 10};
  uint32_t prefix = 0, known = 0; // the key bits found so far, their mask
  int64_t need = k;               // rank of the k-th largest among those
  for (int level = 0; level < 3; ++level) {
    int shift = kShifts[level];
    uint32_t digitMask = (1u << kWidths[level]) - 1;
    int64_t histogram[1 << 11] = {};
    for (int64_t i = 0; i < n; ++i) {
      uint32_t key = magnitudeKey(x[i]);
      if ((key & known) == prefix)
        ++histogram[(key >> shift) & digitMask];
    }
    for (int64_t digit = digitMask; digit >= 0; --digit) {
      if (histogram[digit] >= need) {
        prefix |= static_cast<uint32_t>(digit) << shift;
        known |= digitMask << shift;
        break;
      }
      need -= histogram[digit];
    }
  }
  // prefix is the k-th largest key; `need` of its ties are taken.
  int64_t taken = 0;
  for (int64_t i = 0; i < n; ++i) {
    float value = x[i];
    uint32_t key = magnitudeKey(value);
    bool selected = key > prefix || (key == prefix && need > 0);
    if (key == prefix && need > 0)
      --need;
    if (selected && taken < k) {
      values[taken] = value;
      indices[taken] = i;
      ++taken;
      rest[i] = 0.0f;
    } else {
      rest[i] = value;
    }
  }
}

} // namespace

extern "C" void distrt_sparsify_top_k(const float *x, int64_t rows,
                                      int64_t n, int64_t k, float *values,
                                      int64_t *indices, float *rest) {
  char message[160];
  if (rows < 0 || n < 1) {
    std::snprintf(message, sizeof(message),
                  "distrt_sparsify_top_k: %lld rows of %lld elements (expected "
                  "rows >= 0 and n >= 1)",
                  static_cast<long long>(rows), static_cast<long long>(n));
    distrt_fail(message);
  }
  if (k < 1 || k > n) {
    std::snprintf(message, sizeof(message),
                  "distrt_sparsify_top_k: k = %lld of a row of %lld elements "
                  "(expected 1 <= k <= n)",
                  static_cast<long long>(k), static_cast<long long>(n));
    distrt_fail(message);
  }
  for (int64_t r = 0; r < rows; ++r)
    sparsifyRow(x + r * n, n, k, values + r * k, indices + r * k,
                rest + r * n);
}
