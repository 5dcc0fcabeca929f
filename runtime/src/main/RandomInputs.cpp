//===- RandomInputs.cpp - Seeded values for inputs not given --------------===//

#include "RandomInputs.h"
#include "../core/HalfFloat.h"

namespace distrt::model {

namespace {

/// splitmix64 (Steele, Lea, Flood 2014): a 64-bit state, one output per step.
uint64_t next(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 64-bit FNV-1a of a name.
uint64_t hashName(const std::string &name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : name)
    hash = (hash ^ ch) * 0x100000001b3ull;
  return hash;
}

/// Uniform in [-1, 1) on a grid of 2^-(bits - 1): the top `bits` bits of a
/// draw, scaled. Exact in a type whose significand has bits - 1 bits or more
/// (and in double, for bits <= 53).
double uniform(uint64_t draw, int bits) {
  double steps = static_cast<double>(draw >> (64 - bits));
  return steps / static_cast<double>(uint64_t(1) << (bits - 1)) - 1.0;
}

template <typename T> void fill(void *data, int64_t n, uint64_t &state, T f) {
  auto *out = static_cast<decltype(f(0)) *>(data);
  for (int64_t i = 0; i < n; ++i)
    out[i] = f(next(state));
}

/// Fills `data` from the splitmix64 stream at `state`. Integers are uniform
/// in [0, range), or {0, 1} for range 0.
void fillFrom(const TensorSpec &spec, uint64_t state, uint64_t range,
              void *data) {
  int64_t n = spec.elements();
  // Lemire's multiply-shift: an integer in [0, range) from a 64-bit draw,
  // the same on every platform (its bias, range / 2^64, is immaterial here).
  auto integer = [range](uint64_t draw) -> uint64_t {
    if (range == 0)
      return draw >> 63;
    return static_cast<uint64_t>(
        (static_cast<unsigned __int128>(draw) * range) >> 64);
  };
  switch (spec.dtype) {
  case DISTRT_F32:
    return fill(data, n, state,
                [](uint64_t d) { return static_cast<float>(uniform(d, 25)); });
  case DISTRT_F64:
    return fill(data, n, state, [](uint64_t d) { return uniform(d, 53); });
  case DISTRT_F16:
    return fill(data, n, state, [](uint64_t d) {
      return floatToFloat16(static_cast<float>(uniform(d, 12)));
    });
  case DISTRT_BF16:
    return fill(data, n, state, [](uint64_t d) {
      return floatToBfloat16(static_cast<float>(uniform(d, 9)));
    });
  case DISTRT_I64:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int64_t>(integer(d)); });
  case DISTRT_I32:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int32_t>(integer(d)); });
  case DISTRT_I16:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int16_t>(integer(d)); });
  case DISTRT_I8:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int8_t>(integer(d)); });
  case DISTRT_U64:
    return fill(data, n, state, [&](uint64_t d) { return integer(d); });
  case DISTRT_U32:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<uint32_t>(integer(d)); });
  case DISTRT_U16:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<uint16_t>(integer(d)); });
  case DISTRT_U8:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<uint8_t>(integer(d)); });
  case DISTRT_BOOL:
    return fill(data, n, state,
                [](uint64_t d) { return static_cast<uint8_t>(d >> 63); });
  case DISTRT_NUM_DTYPES:
    break;
  }
}

} // namespace

void fillRandom(const TensorSpec &spec, uint64_t seed, void *data) {
  uint64_t state = seed;
  state = next(state) ^ hashName(spec.name);
  // Forward runs keep integers in {0, 1}: index inputs stay in range.
  fillFrom(spec, state, 0, data);
}

void fillSynthetic(const TensorSpec &spec, uint64_t seed, int64_t step,
                   void *data) {
  uint64_t state = seed;
  state = next(state) ^ hashName(spec.name);
  state = next(state) ^ static_cast<uint64_t>(step);
  state = next(state);
  fillFrom(spec, state, spec.range, data);
}

} // namespace distrt::model
