//===- Trace.cpp - Chrome / Perfetto trace events of this process ---------===//
//
// Events are kept in memory while recording is on (the driver turns it on
// for the steps asked for) and written as one Chrome trace JSON file by
// distrt_trace_finish: process = rank, one thread per track. Times are
// distrt_now_ns converted to wall-clock microseconds, so the files of
// several ranks line up when merged (scripts/merge-traces.py).
//
//===----------------------------------------------------------------------===//

#include "Trace.h"

#include "Error.h"
#include "Json.h"
#include "distrt/distrt.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <vector>

namespace distrt::trace {

namespace {

struct Event {
  Track track;
  std::string name, args;
  uint64_t startNs, endNs;
};

struct State {
  std::mutex mutex;
  std::string path;
  std::FILE *file = nullptr; // opened by distrt_trace_start
  bool started = false;
  std::atomic<bool> recording{false};
  int64_t wallMinusSteadyNs = 0;
  std::vector<Event> events;
};

State &state() {
  static State s;
  return s;
}

const char *trackName(Track track) {
  switch (track) {
  case Track::Compute:
    return "compute";
  case Track::Collectives:
    return "collectives (waiting)";
  case Track::InFlight:
    return "collectives in flight";
  case Track::DeviceCompute:
    return "GPU compute stream";
  case Track::DeviceComm:
    return "GPU communication stream";
  }
  return "?";
}

std::atomic<void (*)()> pendingFlush{nullptr};

/// Adds the pending spans (the GPU's) while recording is still on.
void flushPending() {
  if (void (*flush)() = pendingFlush.load())
    flush();
}

} // namespace

void setPendingFlush(void (*flush)()) { pendingFlush.store(flush); }

bool on() { return state().recording.load(std::memory_order_relaxed); }

void span(Track track, const std::string &name, uint64_t startNs,
          uint64_t endNs, const std::string &args) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.recording)
    return;
  s.events.push_back({track, name, args, startNs, endNs});
}

} // namespace distrt::trace

using namespace distrt::trace;

extern "C" int distrt_trace_start(const char *path) {
  if (!path || !*path)
    return distrt::fail("distrt_trace_start: no file name");
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  // Opened now: a path that cannot be written is an error before training.
  std::FILE *file = std::fopen(path, "w");
  if (!file)
    return distrt::fail("%s: cannot write the trace", path);
  if (s.file)
    std::fclose(s.file);
  s.file = file;
  s.path = path;
  s.started = true;
  s.events.clear();
  auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  s.wallMinusSteadyNs = static_cast<int64_t>(wall) -
                        static_cast<int64_t>(distrt_now_ns());
  return 0;
}

extern "C" void distrt_trace_record(int on) {
  if (!on)
    flushPending();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.recording = s.started && on != 0;
}

extern "C" void distrt_trace_span(const char *track, const char *name,
                                  uint64_t start_ns, uint64_t end_ns) {
  Track t = Track::Compute;
  if (track && std::string(track) == "collectives")
    t = Track::Collectives;
  span(t, name ? name : "", start_ns, end_ns);
}

extern "C" uint64_t distrt_trace_kernel_begin(void) {
  return on() ? distrt_now_ns() : 0;
}

extern "C" void distrt_trace_kernel_end(uint64_t start_ns, const char *name) {
  if (start_ns && on())
    span(Track::Compute, name ? name : "kernel", start_ns, distrt_now_ns());
}

extern "C" int distrt_trace_finish(void) {
  flushPending();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.started)
    return 0;
  s.recording = false;
  s.started = false;
  int rank = distrt_comm_rank();
  std::FILE *file = s.file;
  s.file = nullptr;
  std::fprintf(file, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
  std::fprintf(file,
               "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
               "\"args\": {\"name\": \"rank %d\"}}",
               rank, rank);
  bool device = false;
  for (const Event &e : s.events)
    device = device || e.track == Track::DeviceCompute ||
             e.track == Track::DeviceComm;
  std::vector<Track> tracks = {Track::Compute, Track::Collectives,
                               Track::InFlight};
  if (device)
    tracks.insert(tracks.end(), {Track::DeviceCompute, Track::DeviceComm});
  for (Track track : tracks)
    std::fprintf(file,
                 ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, "
                 "\"tid\": %d, \"args\": {\"name\": \"%s\"}}",
                 rank, static_cast<int>(track), trackName(track));
  for (const Event &e : s.events) {
    double ts = static_cast<double>(static_cast<int64_t>(e.startNs) +
                                    s.wallMinusSteadyNs) /
                1e3;
    double dur = static_cast<double>(e.endNs - e.startNs) / 1e3;
    std::fprintf(file,
                 ",\n{\"name\": %s, \"ph\": \"X\", \"pid\": %d, \"tid\": "
                 "%d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {%s}}",
                 distrt::json::quote(e.name).c_str(), rank,
                 static_cast<int>(e.track), ts, dur, e.args.c_str());
  }
  std::fprintf(file, "\n]}\n");
  bool ok = std::fflush(file) == 0 && !std::ferror(file);
  ok = std::fclose(file) == 0 && ok;
  s.events.clear();
  if (!ok)
    return distrt::fail("%s: writing the trace failed", s.path.c_str());
  return 0;
}
