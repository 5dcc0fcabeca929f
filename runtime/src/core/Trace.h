//===- Trace.h - Chrome / Perfetto trace events of this process -*- C++ -*-===//
//
// What distrt records while a trace is on (distrt_trace_*): spans on three
// tracks of this process (its rank): compute (the driver's steps, gemm
// calls), collectives (the time this process waits in one) and in flight
// (a started collective, from its start to the end of its wait).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CORE_TRACE_H
#define DISTRT_CORE_TRACE_H

#include <cstdint>
#include <string>

namespace distrt::trace {

enum class Track { Compute = 1, Collectives = 2, InFlight = 3 };

/// Whether events are being recorded now.
bool on();

/// A span [startNs, endNs) of distrt_now_ns times; `args` is the inside of
/// a JSON object ("\"bytes\": 8") or empty.
void span(Track track, const std::string &name, uint64_t startNs,
          uint64_t endNs, const std::string &args = "");

} // namespace distrt::trace

#endif // DISTRT_CORE_TRACE_H
