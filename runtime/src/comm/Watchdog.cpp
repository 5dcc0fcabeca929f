//===- Watchdog.cpp - No rank waits forever in a collective ---------------===//
//
// Every wait of the transport (a blocking collective, distrt_wait on a
// started one, a send or receive) is marked with a Waiting guard. A thread
// started by distrt_comm_init looks at the mark twice a second; a wait
// longer than the collective timeout (distrt_set_collective_timeout,
// DISTRT_COLLECTIVE_TIMEOUT, default 60 s) means another rank died, hangs or
// was stopped: the thread prints what this rank waits for and at which step,
// and ends the process with status 4, which makes the launcher end the job.
//
//===----------------------------------------------------------------------===//

#include "../core/Error.h"
#include "../core/Trace.h"
#include "Comm.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

namespace distrt::comm::watchdog {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
  std::mutex mutex;
  std::condition_variable wake;
  std::thread thread;
  bool running = false, stopping = false;
  double timeout = -1; // seconds; < 0: not chosen yet (the default applies)
  int64_t count = 0; // waits started: the same sequence on every rank
  // The current wait, if any.
  bool waiting = false;
  std::string what, step;
  int64_t mask = 0;
  Clock::time_point since;
};

// Never destroyed: a process that exits without distrt_comm_finalize must
// not run ~thread() on the joinable watchdog thread (std::terminate).
State &state() {
  static State &s = *new State;
  return s;
}

constexpr double kDefaultTimeout = 60;

/// DISTRT_COLLECTIVE_TIMEOUT's seconds, else 60 s.
double environmentTimeout() {
  const char *value = std::getenv("DISTRT_COLLECTIVE_TIMEOUT");
  if (value && *value) {
    char *end = nullptr;
    double seconds = std::strtod(value, &end);
    if (end && *end == '\0' && seconds >= 0)
      return seconds;
    distrt_log(DISTRT_LOG_WARN,
               "DISTRT_COLLECTIVE_TIMEOUT=%s is not a number of seconds >= 0; "
               "using %g",
               value, kDefaultTimeout);
  }
  return kDefaultTimeout;
}

/// The timeout in effect: distrt_set_collective_timeout's, else the
/// environment's, else 60 s. Called with the mutex held.
double effectiveTimeout(State &s) {
  if (s.timeout < 0)
    s.timeout = environmentTimeout(); // read (and warned about) once
  return s.timeout;
}

/// "ranks 0, 1" of the group of `mask` this rank belongs to.
std::string groupRanks(int64_t mask) {
  const Mesh &m = mesh();
  std::string text;
  int64_t count = 0;
  for (int64_t r = 0; r < m.devices; ++r) {
    if (m.indexOn(r, ~mask) != m.indexOn(m.rank, ~mask))
      continue;
    text += (count++ ? ", " : "") + std::to_string(r);
  }
  return (count == 1 ? "rank " : "ranks ") + text;
}

/// Which ranks of the group of `mask` this rank (at wait number `count`)
/// waits for, from rank 0's board.
std::string missingRanks(int64_t mask, int64_t count) {
  const Mesh &m = mesh();
  std::vector<board::Entry> table;
  if (!board::query(m.rank, table))
    return "rank 0, which keeps the ranks' progress, does not answer (it "
           "may be the one that is stopped or gone)";
  std::string text;
  int64_t behind = 0;
  for (int64_t r = 0; r < m.devices; ++r) {
    if (r == m.rank || m.indexOn(r, ~mask) != m.indexOn(m.rank, ~mask))
      continue;
    const board::Entry e = r < static_cast<int64_t>(table.size())
                               ? table[static_cast<size_t>(r)]
                               : board::Entry();
    std::string why;
    char age[64];
    std::snprintf(age, sizeof(age), "%.0f s ago", e.ageSeconds);
    if (!e.known)
      why = "never reported its progress (stopped or hung since it "
            "started)";
    else if (e.gone)
      why = "is gone (its process ended) after its wait #" +
            std::to_string(e.count) + " at " + e.step;
    else if (e.frozenSeconds > 0)
      why = "was stopped for " + std::to_string(static_cast<int64_t>(
                                     e.frozenSeconds + 0.5)) +
            " s (its process did not run) and has just continued";
    else if (e.count < count)
      why = "is behind: its last wait is #" + std::to_string(e.count) +
            " at " + e.step + ", heard from " + age +
            (e.ageSeconds > 2 ? " (stopped or hung)" : " (busy or hung)");
    else
      continue;
    text += std::string(behind++ ? "; " : "") + "rank " + std::to_string(r) +
            " " + why;
  }
  if (!behind)
    return "every rank of the group has reached this wait (#" +
           std::to_string(count) + "): the transport itself hangs";
  return text;
}

void watch() {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  Clock::time_point tick = Clock::now();
  bool first = true;
  double frozen = 0; // the last stop of this process, in seconds
  Clock::time_point frozenAt = tick;
  while (!s.stopping) {
    if (!first)
      s.wake.wait_for(lock, std::chrono::milliseconds(500));
    first = false;
    if (s.stopping)
      break;
    // A gap far beyond the tick means this process itself was stopped
    // (SIGSTOP, a debugger, a suspended VM): that time is nobody's fault.
    Clock::time_point now = Clock::now();
    if (now - tick > std::chrono::seconds(2)) {
      frozen = std::chrono::duration<double>(now - tick).count();
      frozenAt = now;
      if (s.waiting)
        s.since += now - tick;
    }
    tick = now;
    // A stop is news for a minute (the others' timeouts come within theirs).
    if (frozen > 0 && now - frozenAt > std::chrono::seconds(60))
      frozen = 0;
    int64_t count = s.count;
    std::string step = s.step;
    lock.unlock();
    board::report(mesh().rank, count, frozen, step);
    // An error NCCL found by itself (a peer's failure, the network) ends
    // the job now, with NCCL's words, rather than at the timeout.
    if (transport::Transport *active = transport::current()) {
      std::string error = active->asyncError();
      if (!error.empty())
        fatal("rank %d, at %s: %s", mesh().rank, step.c_str(), error.c_str());
    }
    lock.lock();
    double timeout = effectiveTimeout(s);
    if (!s.waiting || timeout <= 0)
      continue;
    double waited =
        std::chrono::duration<double>(Clock::now() - s.since).count();
    if (waited < timeout)
      continue;
    std::string what = s.what, at = s.step;
    int64_t mask = s.mask;
    lock.unlock();
    std::string missing = missingRanks(mask, count);
    std::fprintf(stderr,
                 "error: distrt: rank %d: %s at %s has waited %.0f s for the "
                 "other ranks of its group (%s): %s; ending the job (the "
                 "limit is --collective-timeout, %g s)\n",
                 mesh().rank, what.c_str(), at.c_str(), waited,
                 groupRanks(mask).c_str(), missing.c_str(), timeout);
    std::fflush(stderr);
    // The step lines printed so far, unless the main thread holds stdout
    // (blocked writing to a full pipe): then they are not waited for.
    if (ftrylockfile(stdout) == 0) {
      fflush_unlocked(stdout);
      funlockfile(stdout);
    }
    ::_exit(kTimeoutStatus);
  }
}

} // namespace

std::string axesText(int64_t mask) {
  std::string axes;
  for (int axis = 0; axis < kMaxDims; ++axis)
    if (mask & (int64_t(1) << axis))
      axes += (axes.empty() ? "" : ", ") + std::to_string(axis);
  return axes;
}

std::string traceArgs(int64_t mask, int64_t bytes) {
  std::string args = "\"mesh_axes\": [" + axesText(mask) + "]";
  if (bytes >= 0)
    args += ", \"bytes\": " + std::to_string(bytes);
  return args;
}

double timeoutSeconds() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return effectiveTimeout(s);
}

void start() {
  const Mesh &m = mesh();
  board::open(m.rank, static_cast<int32_t>(m.devices),
              (int64_t(1) << kMaxDims) - 1);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.running)
    return;
  s.running = true;
  s.stopping = false;
  s.thread = std::thread(watch);
}

void stop() {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.running)
      return;
    s.stopping = true;
  }
  s.wake.notify_all();
  s.thread.join();
  board::close();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.running = false;
}

Waiting::Waiting(std::string what, int64_t mask, int64_t bytes)
    : mask(mask), bytes(bytes) {
  if (trace::on()) {
    startNs = distrt_now_ns();
    this->what = what;
  }
  State &s = state();
  std::string step = distrt::stepText();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.waiting = true;
  ++s.count;
  s.what = std::move(what);
  s.step = std::move(step);
  s.mask = mask;
  s.since = Clock::now();
}

Waiting::~Waiting() {
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.waiting = false;
  }
  if (startNs && trace::on())
    trace::span(trace::Track::Collectives, what, startNs, distrt_now_ns(),
                traceArgs(mask, bytes));
}

} // namespace distrt::comm::watchdog

extern "C" int distrt_set_collective_timeout(double seconds) {
  if (!(seconds >= 0))
    return distrt::fail("distrt_set_collective_timeout: %g is not a number "
                        "of seconds >= 0 (0 turns the limit off)",
                        seconds);
  auto &s = distrt::comm::watchdog::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.timeout = seconds;
  return 0;
}
