//===- PushCodec.cpp - How a worker's gradient travels to a server --------===//

#include "PushCodec.h"
#include "../core/HalfFloat.h"
#include "distrt/distrt.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace distrt::model {

bool PushCodec::parse(const std::string &spec, PushCodec &out,
                      std::string &error) {
  out = PushCodec();
  if (spec == "none")
    return true;
  if (spec == "bf16" || spec == "fp16") {
    out.kind = spec == "bf16" ? BFloat16 : Float16;
    return true;
  }
  if (spec.compare(0, 5, "topk:") == 0) {
    char *end = nullptr;
    out.kind = TopK;
    out.fraction = std::strtod(spec.c_str() + 5, &end);
    if (end && *end == '\0' && out.fraction > 0 && out.fraction <= 1)
      return true;
  }
  error = "gradient compression '" + spec +
          "' is not one of none, bf16, fp16, topk:F";
  return false;
}

size_t PushCodec::kept(size_t n) const {
  size_t k = static_cast<size_t>(std::ceil(fraction * static_cast<double>(n)));
  return std::min(n, std::max<size_t>(k, 1));
}

size_t PushCodec::encodedBytes(size_t n) const {
  switch (kind) {
  case Float32:
    return n * sizeof(float);
  case BFloat16:
  case Float16:
    return n * sizeof(uint16_t);
  case TopK:
    return kept(n) * (sizeof(int32_t) + sizeof(float));
  }
  return 0;
}

void PushCodec::encode(const float *gradient, size_t n, float *residual,
                       TopKScratch &scratch, char *out) const {
  switch (kind) {
  case Float32:
    std::memcpy(out, gradient, n * sizeof(float));
    return;
  case BFloat16:
  case Float16:
    for (size_t e = 0; e < n; ++e) {
      uint16_t half = kind == BFloat16 ? floatToBfloat16(gradient[e])
                                       : floatToFloat16(gradient[e]);
      std::memcpy(out + e * sizeof(half), &half, sizeof(half));
    }
    return;
  case TopK: {
    for (size_t e = 0; e < n; ++e)
      residual[e] += gradient[e];
    size_t k = kept(n);
    scratch.values.resize(k);
    scratch.indices.resize(k);
    distrt_sparsify_top_k(residual, 1, static_cast<int64_t>(n),
                          static_cast<int64_t>(k), scratch.values.data(),
                          scratch.indices.data(), residual);
    char *values = out + k * sizeof(int32_t);
    for (size_t i = 0; i < k; ++i) {
      int32_t at = static_cast<int32_t>(scratch.indices[i]);
      std::memcpy(out + i * sizeof(int32_t), &at, sizeof(at));
    }
    std::memcpy(values, scratch.values.data(), k * sizeof(float));
    return;
  }
  }
}

void PushCodec::decodeAdd(const char *in, size_t n, float *to,
                          bool first) const {
  if (first && kind == TopK)
    std::fill(to, to + n, 0.0f);
  switch (kind) {
  case Float32:
  case BFloat16:
  case Float16:
    for (size_t e = 0; e < n; ++e) {
      float value;
      if (kind == Float32) {
        std::memcpy(&value, in + e * sizeof(float), sizeof(float));
      } else {
        uint16_t half;
        std::memcpy(&half, in + e * sizeof(half), sizeof(half));
        value = kind == BFloat16 ? bfloat16ToFloat(half) : float16ToFloat(half);
      }
      to[e] = first ? value : to[e] + value;
    }
    return;
  case TopK: {
    size_t k = kept(n);
    const char *values = in + k * sizeof(int32_t);
    for (size_t i = 0; i < k; ++i) {
      int32_t at;
      float value;
      std::memcpy(&at, in + i * sizeof(int32_t), sizeof(at));
      std::memcpy(&value, values + i * sizeof(float), sizeof(value));
      if (at >= 0 && static_cast<size_t>(at) < n)
        to[at] += value;
    }
    return;
  }
  }
}

} // namespace distrt::model
