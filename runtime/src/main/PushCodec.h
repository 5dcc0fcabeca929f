//===- PushCodec.h - How a worker's gradient travels to a server -*- C++ -*-===//
//
// Parameter-server mode's --grad-compression (ParameterServer.h): each
// float32 gradient a worker pushes is sent as it is, rounded to bfloat16 or
// float16 (half the bytes; the server widens it and sums in float32), or as
// its top-k: the fraction F of its elements largest in magnitude, each as
// an int32 index and a float32 value, with error feedback: what a push
// leaves out is added to the worker's next gradient of that parameter.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_PUSHCODEC_H
#define DISTRT_MAIN_PUSHCODEC_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace distrt::model {

/// Room for a top-k push's selection (reused from push to push).
struct TopKScratch {
  std::vector<float> values;
  std::vector<int64_t> indices;
};

struct PushCodec {
  enum Kind { Float32, BFloat16, Float16, TopK };
  Kind kind = Float32;
  double fraction = 1; // TopK

  /// "none", "bf16", "fp16" or "topk:F" (0 < F <= 1); false with `error`
  /// set for anything else.
  static bool parse(const std::string &spec, PushCodec &out,
                    std::string &error);

  /// Top-k: how many of `n` elements a push sends (at least 1).
  size_t kept(size_t n) const;
  /// The bytes of a gradient of `n` float32 elements, encoded.
  size_t encodedBytes(size_t n) const;
  /// Encodes the `n` elements of `gradient` at `out`. Top-k adds them to
  /// `residual` (n floats, the worker's, zero at the start), sends the
  /// largest of the sum (ties: the lower index; distrt_sparsify_top_k) and
  /// leaves the rest in `residual`, with `scratch` as room for its
  /// selection; the other kinds ignore both.
  void encode(const float *gradient, size_t n, float *residual,
              TopKScratch &scratch, char *out) const;
  /// Decodes a gradient of `n` elements from `in` and adds it to `to` (or
  /// writes it there, `first`).
  void decodeAdd(const char *in, size_t n, float *to, bool first) const;
};

} // namespace distrt::model

#endif // DISTRT_MAIN_PUSHCODEC_H
