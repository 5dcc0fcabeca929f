//===- RandomInputs.h - Seeded values for inputs not given ------*- C++ -*-===//

#ifndef DISTRT_MAIN_RANDOMINPUTS_H
#define DISTRT_MAIN_RANDOMINPUTS_H

#include "ModelInterface.h"

#include <cstdint>

namespace distrt::model {

/// Fills `data` (spec.bytes() bytes) with values drawn by splitmix64 from a
/// stream that depends only on `seed` and spec.name, so an input's values do
/// not change when other inputs are given or reordered, nor across standard
/// libraries: floats uniform in [-1, 1) (on a grid every float type holds
/// exactly), integers uniform in {0, 1} (so index inputs stay in range),
/// bools random.
void fillRandom(const TensorSpec &spec, uint64_t seed, void *data);

/// A trainer's --synthetic batch: fills `data` with values that depend only
/// on (`seed`, `step`, spec.name), so a resumed run draws what an
/// uninterrupted one would. The stream is splitmix64 from
///   s = seed; s = next(s) ^ fnv1a64(name); s = next(s) ^ step; s = next(s)
/// with one next(s) per element: floats as fillRandom, integers uniform in
/// [0, spec.range) (the top 64 bits of draw * range; {0, 1} without a
/// range), bools random.
void fillSynthetic(const TensorSpec &spec, uint64_t seed, int64_t step,
                   void *data);

} // namespace distrt::model

#endif // DISTRT_MAIN_RANDOMINPUTS_H
