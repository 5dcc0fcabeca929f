//===- RandomInputs.cpp - Seeded values for inputs not given --------------===//

#include "RandomInputs.h"
#include "HalfFloat.h"

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

} // namespace

void fillRandom(const TensorSpec &spec, uint64_t seed, void *data) {
  uint64_t state = seed;
  state = next(state) ^ hashName(spec.name);
  int64_t n =
      static_cast<int64_t>(spec.bytes() / distrt_dtype_size(spec.dtype));
  auto bit = [](uint64_t draw) { return draw >> 63; };
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
                [&](uint64_t d) { return static_cast<int64_t>(bit(d)); });
  case DISTRT_I32:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int32_t>(bit(d)); });
  case DISTRT_I16:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int16_t>(bit(d)); });
  case DISTRT_I8:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<int8_t>(bit(d)); });
  case DISTRT_U64:
    return fill(data, n, state, [&](uint64_t d) { return bit(d); });
  case DISTRT_U32:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<uint32_t>(bit(d)); });
  case DISTRT_U16:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<uint16_t>(bit(d)); });
  case DISTRT_U8:
  case DISTRT_BOOL:
    return fill(data, n, state,
                [&](uint64_t d) { return static_cast<uint8_t>(bit(d)); });
  case DISTRT_NUM_DTYPES:
    break;
  }
}

} // namespace distrt::model
