//===- TrainOptions.h - The command line of a trainer -----------*- C++ -*-===//
//
// The flags of a training executable (docs/trainer-abi.md), checked here as
// far as they can be without the model or a checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_TRAINOPTIONS_H
#define DISTRT_MAIN_TRAINOPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace distrt::model {

struct TrainOptions {
  int64_t steps = 0; // train until this step (total); required
  /// The values of --input, NAME=FILE.npy, split later against the model's
  /// input names (which may contain '=').
  std::vector<std::string> inputs;
  std::string data;      // --data FILE: a token or sample file
  int64_t batch = 0;     // --batch B; 0: not given
  std::string dataDtype; // --data-dtype uint16|int32; empty: not given
  bool synthetic = false;
  uint64_t seed = 0; // of --synthetic
  std::string logJson;
  std::string ckpt;
  int64_t saveEvery = 0; // 0: save after the last step only
  std::string resume;
  std::string weights; // empty: <executable>.safetensors
  bool help = false;

  /// Whether any data option (--input, --data, --synthetic) is given.
  bool hasData() const { return !inputs.empty() || !data.empty() || synthetic; }
};

/// Parses argv; `--flag VALUE` and `--flag=VALUE` are both accepted. On
/// failure returns false and sets `error`.
bool parseTrainOptions(int argc, char **argv, TrainOptions &options,
                       std::string &error);

/// The usage text for `program`, without the model's tensors.
std::string trainUsageText(const std::string &program);

} // namespace distrt::model

#endif // DISTRT_MAIN_TRAINOPTIONS_H
