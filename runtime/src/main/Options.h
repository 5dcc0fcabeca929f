//===- Options.h - The command line of a compiled model ---------*- C++ -*-===//

#ifndef DISTRT_MAIN_OPTIONS_H
#define DISTRT_MAIN_OPTIONS_H

#include <cstdint>
#include <functional>
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
  bool allowTf32 = false;    // --allow-tf32 (CUDA programs only)
  bool help = false;
};

/// A flag without a value (--allow-tf32), and what it sets.
struct Switch {
  const char *flag;
  bool *value;
};

/// Calls `onFlag(flag, value)` for each `--flag VALUE` or `--flag=VALUE` of
/// argv whose flag is in `known` (every one takes a value), sets `help`
/// for --help or -h, and sets the value of each of `switches` given. Stops
/// with false and `error` set at an unknown flag, a flag without its value,
/// a switch with one, or a false return of `onFlag`.
bool scanFlags(int argc, char **argv, const std::vector<std::string> &known,
               bool &help, std::string &error,
               const std::function<bool(const std::string &flag,
                                        const std::string &value)> &onFlag,
               const std::vector<Switch> &switches = {});

/// Parses argv; `--flag VALUE` and `--flag=VALUE` are both accepted. On
/// failure returns false and sets `error`.
bool parseOptions(int argc, char **argv, Options &options, std::string &error);

/// The usage text for `program`, without the model's tensors.
std::string usageText(const std::string &program);

} // namespace distrt::model

#endif // DISTRT_MAIN_OPTIONS_H
