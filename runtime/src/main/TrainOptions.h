//===- TrainOptions.h - The command line of a trainer -----------*- C++ -*-===//
//
// The flags of a training executable (docs/trainer-abi.md), checked here as
// far as they can be with only the names of the model's hyperparameters
// (which add an option each), without the rest of the model or a
// checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_TRAINOPTIONS_H
#define DISTRT_MAIN_TRAINOPTIONS_H

#include "Hyperparameters.h"

#include <cstdint>
#include <string>
#include <vector>

namespace distrt::model {

/// What --nan does at a step whose loss or grad norm is NaN or infinite.
enum class NanPolicy {
  Stop, // exit (status 3) without saving that step
  Skip, // undo the step's updates; stop after kMaxSkippedSteps in a row
};

/// Consecutive skipped steps after which --nan=skip stops as --nan=stop.
constexpr int kMaxSkippedSteps = 10;
/// A run whose loss scaler has skipped this many steps in a row and still
/// skips with a scale below 1 (dynamic) or the same scale (static) has
/// diverged.
constexpr int kMaxScalerSkips = 50;

struct TrainOptions {
  int64_t steps = 0; // train until this step (total); required
  /// The values of --input, NAME=FILE.npy, split later against the model's
  /// input names (which may contain '=').
  std::vector<std::string> inputs;
  std::string data;      // --data FILE: a token or sample file
  int64_t batch = 0;     // --batch B; 0: not given
  std::string dataDtype; // --data-dtype uint16|int32; empty: not given
  bool synthetic = false;
  uint64_t syntheticSeed = 0; // of --synthetic
  /// --seed N: the value of the model's `seed` argument (its dropout masks
  /// derive from it); 0 by default, the checkpoint's on a resume.
  int64_t seed = 0;
  bool seedGiven = false;
  NanPolicy nan = NanPolicy::Stop;
  std::string logJson;
  std::string ckpt;
  int64_t saveEvery = 0; // 0: save after the last step only
  std::string resume;
  std::string weights; // empty: <executable>.safetensors
  /// The hyperparameter options given (--lr 3e-4: {"lr", 0.0003}), checked
  /// against the rule of each name; the others keep their compiled value
  /// (or on a resume, the checkpoint's).
  HparamValues hparams;
  bool allowTf32 = false; // --allow-tf32 (CUDA programs only)
  /// --collective-timeout SECONDS; < 0: not given (distrt's default).
  double collectiveTimeout = -1;
  /// --straggler-delay-ms MS[@RANK|@rotate]: that rank sleeps MS ms before
  /// each step's compute (kLastRank: the last rank; kRotate: a different
  /// rank each step, stragglerSleeps); 0: none.
  static constexpr int64_t kLastRank = -1, kRotate = -2;
  double stragglerDelayMs = 0;
  int64_t stragglerRank = kLastRank;
  /// --trace FILE (empty: none) of steps traceFirst..traceLast
  /// (--trace-steps A:B; default the first 3 steps this run takes).
  std::string trace;
  int64_t traceFirst = 0, traceLast = 0; // 0: not given
  bool help = false;
  /// Parameter-server programs only (dist-compile --parallel=ps,
  /// ParameterServer.h): --sync async (servers apply each worker's gradient
  /// as it arrives), --staleness S (-1: not given), --replay LOG (take the
  /// pushes in the order of a previous run's --log-json) and
  /// --ps-hierarchical (the workers of one host sum their gradients first).
  bool async = false;
  int64_t staleness = -1;
  std::string replay;
  bool hierarchical = false;
  /// Whether any of the parameter-server options is given.
  bool hasParameterServerOptions() const {
    return async || staleness >= 0 || !replay.empty() || hierarchical;
  }

  /// Whether any data option (--input, --data, --synthetic) is given.
  bool hasData() const { return !inputs.empty() || !data.empty() || synthetic; }
};

/// The driver's own flags (--steps, --data, ...), --help aside.
const std::vector<std::string> &trainFlags();

/// Parses argv; `--flag VALUE` and `--flag=VALUE` are both accepted. Besides
/// the driver's own flags, `hparams` names the model's hyperparameters, each
/// an option `--NAME-with-dashes VALUE` (Hyperparameters.h). On failure
/// returns false and sets `error`.
bool parseTrainOptions(int argc, char **argv,
                       const std::vector<std::string> &hparams,
                       TrainOptions &options, std::string &error);

/// The usage text for `program`, without the model's tensors.
std::string trainUsageText(const std::string &program);

/// Whether `rank` of `ranks` sleeps --straggler-delay-ms before the compute
/// of `step`: the rank given (default the last), or with @rotate rank
/// (step - 1) mod ranks, a straggler that moves (a pause here, another
/// there, as noisy neighbours make).
bool stragglerSleeps(const TrainOptions &options, int64_t rank, int64_t ranks,
                     int64_t step);

} // namespace distrt::model

#endif // DISTRT_MAIN_TRAINOPTIONS_H
