//===- StopSignals.cpp - SIGINT and SIGTERM stop a run between steps ------===//

#include "StopSignals.h"

#include <csignal>

namespace distrt::model {

namespace {

volatile std::sig_atomic_t firstSignal = 0;

void setAction(int signal, void (*handler)(int)) {
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  // Writes and reads in progress go on: the loop looks at the flag between
  // steps.
  action.sa_flags = SA_RESTART;
  sigaction(signal, &action, nullptr);
}

/// Async-signal-safe: records the signal and restores the default actions
/// (sigaction is async-signal-safe), so that a second signal kills.
void onStopSignal(int signal) {
  if (!firstSignal)
    firstSignal = signal;
  setAction(SIGINT, SIG_DFL);
  setAction(SIGTERM, SIG_DFL);
}

} // namespace

StopSignals::StopSignals() {
  firstSignal = 0;
  setAction(SIGINT, onStopSignal);
  setAction(SIGTERM, onStopSignal);
}

StopSignals::~StopSignals() {
  setAction(SIGINT, SIG_DFL);
  setAction(SIGTERM, SIG_DFL);
}

int StopSignals::received() { return firstSignal; }

const char *signalName(int signal) {
  return signal == SIGINT ? "SIGINT" : "SIGTERM";
}

} // namespace distrt::model
