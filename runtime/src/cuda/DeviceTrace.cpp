//===- DeviceTrace.cpp - --trace spans of the GPU's streams ---------------===//
//
// Work on the GPU runs after the host queued it, so its spans come from
// events recorded on its stream around it. Their times are the GPU's: a
// reference event, recorded and waited for when the first span of a
// recording period starts, ties them to the host's clock (distrt_now_ns
// right after the wait; off by the wait's wake-up, microseconds). The
// spans are resolved when recording stops (the driver stops it after the
// step's outputs came down, so the work is done; cuEventSynchronize makes
// sure) and go on the trace's GPU tracks. Events are reused from a pool.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <mutex>

namespace distrt::cuda {

namespace {

struct Pending {
  trace::Track track;
  std::string name, args;
  CUevent start, end;
};

struct DeviceTrace {
  std::mutex mutex;
  Device *device = nullptr;
  std::vector<CUevent> pool;
  std::vector<Pending> pending;
  CUevent reference = nullptr;
  uint64_t referenceNs = 0; // the host's time of `reference`
};

DeviceTrace &deviceTrace() {
  static auto *t = new DeviceTrace; // used by static destructors' frees too
  return *t;
}

/// An event with timing (from the pool). Called with the mutex held.
CUevent takeEvent(DeviceTrace &t, Device &device) {
  if (!t.pool.empty()) {
    CUevent e = t.pool.back();
    t.pool.pop_back();
    return e;
  }
  CUevent e = nullptr;
  check(device.driver.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate",
        "for --trace");
  return e;
}

/// The GPU's pending spans on the host's clock, into the trace.
void flush() {
  DeviceTrace &t = deviceTrace();
  std::vector<Pending> done;
  CUevent reference;
  uint64_t referenceNs;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    done.swap(t.pending);
    reference = t.reference;
    referenceNs = t.referenceNs;
    t.reference = nullptr;
  }
  if (!reference)
    return;
  Device &device = *t.device;
  const Driver &d = device.driver;
  auto hostNs = [&](CUevent e) {
    float ms = 0;
    check(d.cuEventElapsedTime(&ms, reference, e), "cuEventElapsedTime",
          "for --trace");
    double ns = static_cast<double>(referenceNs) + 1e6 * ms;
    return ns < 0 ? uint64_t(0) : static_cast<uint64_t>(ns);
  };
  for (Pending &p : done) {
    check(d.cuEventSynchronize(p.end), "cuEventSynchronize", "for --trace");
    uint64_t start = hostNs(p.start), end = hostNs(p.end);
    trace::span(p.track, p.name, start,
                end < start ? start : end, p.args);
  }
  std::lock_guard<std::mutex> lock(t.mutex);
  for (Pending &p : done)
    t.pool.insert(t.pool.end(), {p.start, p.end});
  t.pool.push_back(reference);
}

} // namespace

DeviceSpan::DeviceSpan(Device &device, CUstream stream)
    : device(device), stream(stream) {
  if (!trace::on())
    return;
  DeviceTrace &t = deviceTrace();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.device) {
    t.device = &device;
    trace::setPendingFlush(flush);
  }
  if (!t.reference) {
    // The recording period's reference: its time on the host is when the
    // wait for it returns.
    t.reference = takeEvent(t, device);
    check(device.driver.cuEventRecord(t.reference, device.stream),
          "cuEventRecord", "for --trace");
    check(device.driver.cuEventSynchronize(t.reference), "cuEventSynchronize",
          "for --trace");
    t.referenceNs = distrt_now_ns();
  }
  start = takeEvent(t, device);
  check(device.driver.cuEventRecord(start, stream), "cuEventRecord",
        "for --trace");
}

void DeviceSpan::end(trace::Track track, std::string name, std::string args) {
  if (!start)
    return;
  DeviceTrace &t = deviceTrace();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.reference) { // recording stopped while the work was queued
    t.pool.push_back(start);
    start = nullptr;
    return;
  }
  CUevent e = takeEvent(t, device);
  check(device.driver.cuEventRecord(e, stream), "cuEventRecord",
        "for --trace");
  t.pending.push_back({track, std::move(name), std::move(args), start, e});
  start = nullptr;
}

} // namespace distrt::cuda
