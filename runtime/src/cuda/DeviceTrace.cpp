//===- DeviceTrace.cpp - --trace spans of the GPU's streams ---------------===//
//
// Work on the GPU runs after the host queued it, so its spans come from
// events recorded on its stream around it. The spans are resolved when
// recording stops (the driver stops it after the step's outputs came down,
// so the work is done): a reference event recorded then on the drained
// compute stream and waited for ties the GPU's times to the host's clock
// (distrt_now_ns right after the wait; off by the wait's wake-up,
// microseconds), and each span goes on the trace's GPU tracks at its
// distance before the reference. Nothing waits while the step runs.
// Events are reused from a pool. A failed wait (a kernel's fault) drops
// the pending spans: the step's own error is the one to report.
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
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    done.swap(t.pending);
  }
  if (done.empty())
    return;
  Device &device = *t.device;
  const Driver &d = device.driver;
  CUevent reference;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    reference = takeEvent(t, device);
  }
  bool ok = d.cuEventRecord(reference, device.stream) == CUDA_SUCCESS &&
            d.cuEventSynchronize(reference) == CUDA_SUCCESS;
  uint64_t referenceNs = distrt_now_ns();
  // The host's time of `e`: the reference's less the GPU's time between.
  auto hostNs = [&](CUevent e, uint64_t &ns) {
    float ms = 0;
    if (d.cuEventSynchronize(e) != CUDA_SUCCESS ||
        d.cuEventElapsedTime(&ms, e, reference) != CUDA_SUCCESS)
      return false;
    double at = static_cast<double>(referenceNs) - 1e6 * ms;
    ns = at < 0 ? 0 : static_cast<uint64_t>(at);
    return true;
  };
  for (Pending &p : done) {
    uint64_t start = 0, end = 0;
    ok = ok && hostNs(p.start, start) && hostNs(p.end, end);
    if (ok)
      trace::span(p.track, p.name, start, end < start ? start : end, p.args);
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
  start = takeEvent(t, device);
  check(device.driver.cuEventRecord(start, stream), "cuEventRecord",
        "for --trace");
}

DeviceSpan::~DeviceSpan() {
  if (!start)
    return;
  DeviceTrace &t = deviceTrace();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.pool.push_back(start);
}

void DeviceSpan::end(trace::Track track, std::string name, std::string args) {
  if (!start)
    return;
  DeviceTrace &t = deviceTrace();
  std::lock_guard<std::mutex> lock(t.mutex);
  CUevent e = takeEvent(t, device);
  check(device.driver.cuEventRecord(e, stream), "cuEventRecord",
        "for --trace");
  t.pending.push_back({track, std::move(name), std::move(args), start, e});
  start = nullptr;
}

} // namespace distrt::cuda
