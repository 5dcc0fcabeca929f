//===- Options.cpp - The command line of a compiled model -----------------===//

#include "Options.h"

#include <algorithm>

#include <charconv>

namespace distrt::model {

namespace {

bool parseNumber(const std::string &flag, const std::string &text,
                 uint64_t &out, std::string &error) {
  const char *first = text.data(), *last = text.data() + text.size();
  auto result = std::from_chars(first, last, out);
  if (text.empty() || result.ec != std::errc() || result.ptr != last) {
    error = flag + " needs a non-negative integer, got '" + text + "'";
    return false;
  }
  return true;
}

} // namespace

std::string usageText(const std::string &program) {
  return "usage: " + program +
         " [options]\n"
         "\n"
         "Runs the compiled model once (on the GPU for a program compiled "
         "for CUDA).\n"
         "\n"
         "  --input NAME=FILE.npy  an input's value (repeatable); dtype and "
         "shape must\n"
         "                         match the model's. Inputs not given get "
         "seeded random\n"
         "                         values: floats uniform in [-1, 1), "
         "integers in {0, 1},\n"
         "                         bools random\n"
         "  --seed N               seed of the random inputs (default 0)\n"
         "  --weights FILE         safetensors file with the parameters, by "
         "name (default:\n"
         "                         this executable's path + "
         "\".safetensors\")\n"
         "  --output-dir DIR       write each output to DIR/NAME.npy ('/' in "
         "NAME becomes\n"
         "                         '_'); without it, print a summary line "
         "per output\n"
         "  --benchmark N          after one warm-up, time N runs and print "
         "the median\n"
         "  --allow-tf32           let float32 matrix products round their "
         "inputs to TF32\n"
         "                         on the GPU's tensor cores (faster, about 3 "
         "digits);\n"
         "                         programs compiled for CUDA only, others "
         "ignore it\n"
         "  --help                 print this and the model's tensors\n"
         "\n"
         "Set DISTRT_LOG_LEVEL=info (or debug) for progress messages on "
         "stderr.\n";
}

bool scanFlags(int argc, char **argv, const std::vector<std::string> &known,
               bool &help, std::string &error,
               const std::function<bool(const std::string &flag,
                                        const std::string &value)> &onFlag,
               const std::vector<Switch> &switches) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      continue;
    }
    bool isSwitch = false;
    for (const Switch &option : switches) {
      std::string flag = option.flag;
      if (arg == flag)
        isSwitch = *option.value = true;
      else if (arg.rfind(flag + "=", 0) == 0) {
        error = flag + " takes no value";
        return false;
      }
    }
    if (isSwitch)
      continue;
    if (arg.rfind("--", 0) != 0) {
      error = "unexpected argument '" + arg + "'";
      return false;
    }
    std::string flag = arg, value;
    size_t equals = arg.find('=');
    bool hasValue = equals != std::string::npos;
    if (hasValue) {
      flag = arg.substr(0, equals);
      value = arg.substr(equals + 1);
    }
    if (std::find(known.begin(), known.end(), flag) == known.end()) {
      error = "unknown option '" + flag + "'";
      return false;
    }
    if (!hasValue) {
      if (i + 1 == argc) {
        error = flag + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    if (!onFlag(flag, value))
      return false;
  }
  return true;
}

bool parseOptions(int argc, char **argv, Options &options, std::string &error) {
  return scanFlags(
      argc, argv,
      {"--input", "--seed", "--weights", "--output-dir", "--benchmark"},
      options.help, error,
      [&](const std::string &flag, const std::string &value) {
        if (flag == "--input") {
          // Caught here, or `--input x x.npy` would complain about `x.npy`.
          if (value.find('=') == std::string::npos) {
            error = "--input needs NAME=FILE.npy, got '" + value + "'";
            return false;
          }
          options.inputs.push_back(value);
        } else if (flag == "--seed") {
          if (!parseNumber(flag, value, options.seed, error))
            return false;
        } else if (flag == "--weights") {
          options.weights = value;
        } else if (flag == "--output-dir") {
          options.outputDir = value;
        } else {
          uint64_t runs;
          if (!parseNumber(flag, value, runs, error))
            return false;
          if (runs < 1 || runs > 1000000) {
            error = "--benchmark needs a run count in [1, 1000000], got '" +
                    value + "'";
            return false;
          }
          options.benchmarkRuns = static_cast<int64_t>(runs);
        }
        if (value.empty() && flag != "--seed" && flag != "--benchmark") {
          error = flag + " needs a non-empty value";
          return false;
        }
        return true;
      },
      {{"--allow-tf32", &options.allowTf32}});
}

} // namespace distrt::model
