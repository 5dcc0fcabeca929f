//===- Transport.cpp - The mesh's transport, and what transports share ----===//

#include "Comm.h"

#include "../core/Trace.h"

#include <cstdio>

namespace distrt::comm::transport {

namespace {

// Never destroyed: fatal() may end the process from any thread.
std::unique_ptr<Transport> &slot() {
  static auto &transport = *new std::unique_ptr<Transport>;
  return transport;
}

Transport &checked() {
  if (!slot())
    fatal("a collective before the mesh's transport was started");
  return *slot();
}

} // namespace

void use(std::unique_ptr<Transport> transport) {
  slot() = std::move(transport);
}

Transport *current() { return slot().get(); }

std::string waitText(const char *call, distrt_dtype dtype, int64_t count,
                     int64_t mask) {
  double bytes = static_cast<double>(count) * distrt_dtype_size(dtype);
  char size[32];
  if (bytes < 1024)
    std::snprintf(size, sizeof(size), "%.0f B", bytes);
  else if (bytes < 1024.0 * 1024)
    std::snprintf(size, sizeof(size), "%.1f KiB", bytes / 1024);
  else
    std::snprintf(size, sizeof(size), "%.2f MiB", bytes / (1024.0 * 1024));
  return std::string(call) + " of " + size + " of " + distrt_dtype_name(dtype) +
         " over mesh axes {" + watchdog::axesText(mask) + "}";
}

std::function<void()> tracedWait(std::function<void()> block, int64_t mask,
                                 std::string what, int64_t bytes) {
  uint64_t started = trace::on() ? distrt_now_ns() : 0;
  return [block = std::move(block), mask, what = std::move(what), bytes,
          started]() {
    {
      watchdog::Waiting waiting(what + " (started earlier, now waited for)",
                                mask, bytes);
      block();
    }
    if (started && trace::on())
      trace::span(trace::Track::InFlight, what, started, distrt_now_ns(),
                  watchdog::traceArgs(mask, bytes));
  };
}

void allReduce(distrt_dtype dtype, int32_t op, void *buf, int64_t count,
               int64_t mask, std::function<void()> *wait) {
  checked().allReduce(dtype, op, buf, count, mask, wait);
}

void allGather(distrt_dtype dtype, const void *in, void *out, int64_t count,
               int64_t mask, std::function<void()> *wait) {
  checked().allGather(dtype, in, out, count, mask, wait);
}

void reduceScatter(distrt_dtype dtype, int32_t op, const void *in, void *out,
                   int64_t count, int64_t mask, std::function<void()> *wait) {
  checked().reduceScatter(dtype, op, in, out, count, mask, wait);
}

void broadcast(distrt_dtype dtype, void *buf, int64_t count, int64_t root,
               int64_t mask) {
  checked().broadcast(dtype, buf, count, root, mask);
}

void send(distrt_dtype dtype, const void *buf, int64_t count, int32_t peer,
          int32_t tag) {
  checked().send(dtype, buf, count, peer, tag);
}

void recv(distrt_dtype dtype, void *buf, int64_t count, int32_t peer,
          int32_t tag) {
  checked().recv(dtype, buf, count, peer, tag);
}

int32_t recvAny(distrt_dtype dtype, void *buf, int64_t count, int32_t tag) {
  return checked().recvAny(dtype, buf, count, tag);
}

int32_t Transport::recvAny(distrt_dtype, void *, int64_t, int32_t) {
  fatal("receiving from whichever rank sends first (parameter-server mode's "
        "asynchronous updates) needs the MPI transport, not %s: launch "
        "with mpirun",
        name());
}

void barrier(int64_t mask) { checked().barrier(mask); }

} // namespace distrt::comm::transport
