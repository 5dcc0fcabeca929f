//===- Trace.h - Chrome / Perfetto trace events of this process -*- C++ -*-===//
//
// What distrt records while a trace is on (distrt_trace_*): spans on the
// tracks of this process (its rank): compute (the driver's steps, gemm
// calls, the CPU's kernels), collectives (the time this process waits in
// one) and in flight (a started collective, from its start to the end of
// its wait); on a GPU also the work of its compute stream (kernels,
// cuBLASLt products, copies) and of its communication stream (NCCL), timed
// on the GPU by events (cuda/DeviceTrace.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CORE_TRACE_H
#define DISTRT_CORE_TRACE_H

#include <cstdint>
#include <string>

namespace distrt::trace {

enum class Track {
  Compute = 1,
  Collectives = 2,
  InFlight = 3,
  DeviceCompute = 4,
  DeviceComm = 5
};

/// Whether events are being recorded now.
bool on();

/// A span [startNs, endNs) of distrt_now_ns times; `args` is the inside of
/// a JSON object ("\"bytes\": 8") or empty.
void span(Track track, const std::string &name, uint64_t startNs,
          uint64_t endNs, const std::string &args = "");

/// Sets the function that adds the spans still pending elsewhere (the
/// GPU's, whose times are known once its work completed) while recording is
/// still on: called when recording stops and before the file is written.
void setPendingFlush(void (*flush)());

} // namespace distrt::trace

#endif // DISTRT_CORE_TRACE_H
