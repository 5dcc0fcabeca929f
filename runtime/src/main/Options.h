//===- Options.h - The command line of a compiled model ---------*- C++ -*-===//

#ifndef DISTRT_MAIN_OPTIONS_H
#define DISTRT_MAIN_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace distrt::model {

struct Options {
  /// The values of --input, NAME=FILE.npy, split later against the model's
  /// input names (which may contain '=').
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  std::string weights; // empty: <executable>.safetensors
  std::string outputDir;
  int64_t benchmarkRuns = 0; // 0: no benchmark
  bool help = false;
};

/// Parses argv; `--flag VALUE` and `--flag=VALUE` are both accepted. On
/// failure returns false and sets `error`.
bool parseOptions(int argc, char **argv, Options &options, std::string &error);

/// The usage text for `program`, without the model's tensors.
std::string usageText(const std::string &program);

} // namespace distrt::model

#endif // DISTRT_MAIN_OPTIONS_H
