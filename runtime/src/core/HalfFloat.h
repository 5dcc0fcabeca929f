//===- HalfFloat.h - float16 and bfloat16 conversions -----------*- C++ -*-===//
//
// Bit-level conversions between float and the two 16-bit float formats,
// rounding to nearest even, for random inputs and printed outputs.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_HALFFLOAT_H
#define DISTRT_MAIN_HALFFLOAT_H

#include <cstdint>
#include <cstring>

namespace distrt::model {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline float bfloat16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

inline uint16_t floatToBfloat16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet
    return static_cast<uint16_t>(bits >> 16 | 0x40);
  bits += 0x7fff + (bits >> 16 & 1);
  return static_cast<uint16_t>(bits >> 16);
}

inline float float16ToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000) << 16;
  uint32_t exponent = half >> 10 & 0x1f, mantissa = half & 0x3ff;
  if (exponent == 0x1f) // inf, NaN
    return bitsFloat(sign | 0x7f800000 | mantissa << 13);
  if (exponent == 0) { // zero, subnormal: mantissa * 2^-24
    float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return bitsFloat(sign | (exponent + 112) << 23 | mantissa << 13);
}

inline uint16_t floatToFloat16(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>(bits >> 16 & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN
    return sign | 0x7e00;
  if (magnitude >= 0x477ff000) // rounds to 65536 or more: inf
    return sign | 0x7c00;
  if (magnitude < 0x38800000) { // below 2^-14: subnormal or zero
    // Scale so the float's rounding does the half's: add 0.5 (2^-1), whose
    // ulp is 2^-24, the subnormal step.
    float scaled = bitsFloat(magnitude) + 0.5f;
    return sign | static_cast<uint16_t>(floatBits(scaled) - 0x3f000000);
  }
  uint32_t rounded = magnitude + 0xfff + (magnitude >> 13 & 1);
  return sign | static_cast<uint16_t>((rounded - 0x38000000) >> 13);
}

} // namespace distrt::model

#endif // DISTRT_MAIN_HALFFLOAT_H
