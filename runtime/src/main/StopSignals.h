//===- StopSignals.h - SIGINT and SIGTERM stop a run ------------*- C++ -*-===//
//
// A trainer does not die at once on SIGINT (Ctrl-C) or SIGTERM (a job
// scheduler's stop): the handlers only record the signal, and the training
// loop finishes its step, saves it (with --ckpt) and exits with status
// 128 + the signal (docs/trainer-abi.md). The first signal puts both back to
// their default action, so a second one kills at once.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_STOPSIGNALS_H
#define DISTRT_MAIN_STOPSIGNALS_H

namespace distrt::model {

/// Catches SIGINT and SIGTERM while it exists (the default actions come
/// back on destruction).
class StopSignals {
public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals &) = delete;
  StopSignals &operator=(const StopSignals &) = delete;

  /// The first signal received (SIGINT or SIGTERM), or 0.
  static int received();
};

/// "SIGINT" or "SIGTERM" (StopSignals catches no other).
const char *signalName(int signal);

} // namespace distrt::model

#endif // DISTRT_MAIN_STOPSIGNALS_H
