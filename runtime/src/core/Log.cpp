//===- Log.cpp - distrt's leveled log lines on stderr ---------------------===//
//
// One line per call, `[distrt r1 INFO +0.123s] message`, written with a single
// fwrite so that lines from several threads (or ranks sharing a terminal) do
// not interleave. The threshold, the rank and the start time are read once,
// on the first call.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr const char *kLevelNames[] = {"ERROR", "WARN", "INFO", "DEBUG"};

struct LogState {
  distrt_log_level threshold = DISTRT_LOG_WARN;
  uint64_t startNs = 0;
  std::string rank; // "r1 ", or "" outside a launcher
};

/// The rank a launcher (Open MPI, MPICH/PMI, torchrun) gave this process.
std::string rankFromEnvironment() {
  for (const char *variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK"}) {
    const char *value = std::getenv(variable);
    if (!value || !*value)
      continue;
    bool digits = true;
    for (const char *p = value; *p; ++p)
      digits = digits && std::isdigit(static_cast<unsigned char>(*p));
    if (digits)
      return std::string("r") + value + " ";
  }
  return "";
}

LogState makeState() {
  LogState state;
  state.startNs = distrt_now_ns();
  state.rank = rankFromEnvironment();
  const char *value = std::getenv("DISTRT_LOG_LEVEL");
  if (!value || !*value)
    return state;
  std::string lower;
  for (const char *p = value; *p; ++p)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  for (int level = DISTRT_LOG_ERROR; level <= DISTRT_LOG_DEBUG; ++level) {
    std::string name = kLevelNames[level];
    for (char &ch : name)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == name) {
      state.threshold = static_cast<distrt_log_level>(level);
      return state;
    }
  }
  // Not through distrt_log: the state is still being built.
  std::fprintf(stderr,
               "[distrt %sWARN +0.000s] DISTRT_LOG_LEVEL='%s' is not one of "
               "error, warn, info, debug; using warn\n",
               state.rank.c_str(), value);
  return state;
}

const LogState &state() {
  static const LogState logState = makeState();
  return logState;
}

distrt_log_level clamp(distrt_log_level level) {
  if (level < DISTRT_LOG_ERROR)
    return DISTRT_LOG_ERROR;
  return level > DISTRT_LOG_DEBUG ? DISTRT_LOG_DEBUG : level;
}

} // namespace

extern "C" int distrt_log_enabled(distrt_log_level level) {
  return clamp(level) <= state().threshold;
}

extern "C" void distrt_log(distrt_log_level level, const char *fmt, ...) {
  const LogState &log = state();
  level = clamp(level);
  if (level > log.threshold)
    return;
  double seconds = static_cast<double>(distrt_now_ns() - log.startNs) * 1e-9;
  char prefix[96];
  std::snprintf(prefix, sizeof(prefix), "[distrt %s%s +%.3fs] ",
                log.rank.c_str(), kLevelNames[level], seconds);
  std::string line = prefix;

  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  int length = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  if (length > 0) {
    size_t start = line.size();
    line.resize(start + static_cast<size_t>(length) + 1);
    std::vsnprintf(&line[start], static_cast<size_t>(length) + 1, fmt, again);
    line.resize(start + static_cast<size_t>(length));
  }
  va_end(again);
  if (!line.empty() && line.back() == '\n')
    line.pop_back();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}
