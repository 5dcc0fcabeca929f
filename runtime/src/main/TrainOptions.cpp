//===- TrainOptions.cpp - The command line of a trainer -------------------===//

#include "TrainOptions.h"
#include "Options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

namespace distrt::model {

namespace {

/// A positive integer that fits in int64.
bool parsePositive(const std::string &flag, const std::string &text,
                   int64_t &out, std::string &error) {
  const char *first = text.data(), *last = text.data() + text.size();
  auto result = std::from_chars(first, last, out);
  if (text.empty() || *first == '-' || *first == '+' ||
      result.ec != std::errc() || result.ptr != last || out < 1) {
    error = flag + " needs a positive integer, got '" + text + "'";
    return false;
  }
  return true;
}

/// A signed integer that fits in int64 (--seed).
bool parseInteger(const std::string &flag, const std::string &text,
                  int64_t &out, std::string &error) {
  const char *first = text.data(), *last = text.data() + text.size();
  auto result = std::from_chars(first, last, out);
  if (text.empty() || result.ec != std::errc() || result.ptr != last) {
    error = flag + " needs an integer (signed, 64-bit), got '" + text + "'";
    return false;
  }
  return true;
}

/// A finite number of seconds >= 0 (--collective-timeout).
bool parseSeconds(const std::string &flag, const std::string &text,
                  double &out, std::string &error) {
  char *end = nullptr;
  out = std::strtod(text.c_str(), &end);
  if (text.empty() || !end || *end != '\0' || !std::isfinite(out) ||
      out < 0) {
    error = flag + " needs a number of seconds >= 0 (0: no limit), got '" +
            text + "'";
    return false;
  }
  return true;
}

bool parseSeed(const std::string &text, uint64_t &out, std::string &error) {
  const char *first = text.data(), *last = text.data() + text.size();
  auto result = std::from_chars(first, last, out);
  if (text.empty() || result.ec != std::errc() || result.ptr != last) {
    error =
        "--synthetic needs a seed, a non-negative integer, got '" + text + "'";
    return false;
  }
  return true;
}

bool setValue(TrainOptions &options, const std::vector<std::string> &hparams,
              const std::string &flag, const std::string &value,
              std::string &error) {
  for (const std::string &name : hparams)
    if (flag == hparamFlag(name)) {
      double number;
      if (!parseHparamOption(name, value, number, error))
        return false;
      options.hparams.emplace_back(name, number);
      return true;
    }
  if (flag == "--input") {
    // Caught here, or `--input x x.npy` would complain about `x.npy`.
    if (value.find('=') == std::string::npos) {
      error = "--input needs NAME=FILE.npy, got '" + value + "'";
      return false;
    }
    options.inputs.push_back(value);
  } else if (flag == "--steps") {
    return parsePositive(flag, value, options.steps, error);
  } else if (flag == "--data") {
    options.data = value;
  } else if (flag == "--batch") {
    return parsePositive(flag, value, options.batch, error);
  } else if (flag == "--data-dtype") {
    if (value != "uint16" && value != "int32") {
      error = "--data-dtype needs uint16 or int32, got '" + value + "'";
      return false;
    }
    options.dataDtype = value;
  } else if (flag == "--synthetic") {
    options.synthetic = true;
    return parseSeed(value, options.syntheticSeed, error);
  } else if (flag == "--seed") {
    options.seedGiven = true;
    return parseInteger(flag, value, options.seed, error);
  } else if (flag == "--nan") {
    if (value != "stop" && value != "skip") {
      error = "--nan needs stop or skip, got '" + value + "'";
      return false;
    }
    options.nan = value == "skip" ? NanPolicy::Skip : NanPolicy::Stop;
  } else if (flag == "--log-json") {
    options.logJson = value;
  } else if (flag == "--ckpt") {
    options.ckpt = value;
  } else if (flag == "--save-every") {
    return parsePositive(flag, value, options.saveEvery, error);
  } else if (flag == "--resume") {
    options.resume = value;
  } else if (flag == "--weights") {
    options.weights = value;
  } else if (flag == "--collective-timeout") {
    return parseSeconds(flag, value, options.collectiveTimeout, error);
  } else if (flag == "--straggler-delay-ms") {
    size_t at = value.find('@');
    std::string ms = value.substr(0, at);
    std::string who = at == std::string::npos ? "" : value.substr(at + 1);
    char *end = nullptr;
    options.stragglerDelayMs = std::strtod(ms.c_str(), &end);
    if (who == "rotate")
      options.stragglerRank = TrainOptions::kRotate;
    if (ms.empty() || !end || *end != '\0' ||
        !std::isfinite(options.stragglerDelayMs) ||
        options.stragglerDelayMs <= 0 || options.stragglerDelayMs > 3.6e6 ||
        (at != std::string::npos && who != "rotate" &&
         (!parseInteger(flag, who, options.stragglerRank, error) ||
          options.stragglerRank < 0))) {
      error = "--straggler-delay-ms needs MS[@RANK|@rotate]: milliseconds > "
              "0 (at most an hour) and a rank >= 0, got '" +
              value + "'";
      return false;
    }
  } else if (flag == "--sync") {
    if (value != "sync" && value != "async") {
      error = "--sync needs sync or async, got '" + value + "'";
      return false;
    }
    options.async = value == "async";
  } else if (flag == "--staleness") {
    if (!parseInteger(flag, value, options.staleness, error))
      return false;
    if (options.staleness < 0) {
      error = "--staleness needs an integer >= 0, got '" + value + "'";
      return false;
    }
  } else if (flag == "--replay") {
    options.replay = value;
  } else if (flag == "--trace") {
    options.trace = value;
  } else if (flag == "--trace-steps") {
    size_t colon = value.find(':');
    if (colon == std::string::npos ||
        !parsePositive(flag, value.substr(0, colon), options.traceFirst,
                       error) ||
        !parsePositive(flag, value.substr(colon + 1), options.traceLast,
                       error) ||
        options.traceLast < options.traceFirst) {
      error = "--trace-steps needs FIRST:LAST, two step numbers >= 1 with "
              "FIRST <= LAST, got '" +
              value + "'";
      return false;
    }
  }
  return true;
}

/// The checks that need no model: required flags, and flags that only make
/// sense with others.
bool checkCombinations(const TrainOptions &options, std::string &error) {
  int sources =
      !options.inputs.empty() + !options.data.empty() + options.synthetic;
  if (options.steps == 0)
    error = "--steps N is required";
  else if (sources > 1)
    error = "give one data source: --input, --data or --synthetic";
  else if ((options.batch || !options.dataDtype.empty()) &&
           options.data.empty())
    error = std::string(options.batch ? "--batch" : "--data-dtype") +
            " needs --data FILE";
  else if (!options.dataDtype.empty() && options.data.size() >= 12 &&
           options.data.compare(options.data.size() - 12, 12, ".safetensors") ==
               0)
    error = "--data-dtype is for token files, not " + options.data;
  else if (options.saveEvery && options.ckpt.empty())
    error = "--save-every needs --ckpt DIR";
  else if (options.traceFirst && options.trace.empty())
    error = "--trace-steps needs --trace FILE";
  else if (!options.resume.empty() && !options.weights.empty())
    error = "--weights and --resume both give the parameters; use one";
  else if (options.staleness >= 0 && !options.async)
    error = "--staleness bounds the asynchronous updates: add --sync async";
  else if (!options.replay.empty() && !options.async)
    error = "--replay reproduces an asynchronous run: add --sync async";
  else if (options.hierarchical && options.async)
    error = "--ps-hierarchical sums each host's gradients in step with the "
            "other hosts: it does not combine with asynchronous updates";
  else
    return true;
  return false;
}

} // namespace

std::string trainUsageText(const std::string &program) {
  return "usage: " + program +
         " --steps N [data] [--log-json FILE] [--ckpt DIR [--save-every K]]\n"
         "       [--resume DIR] [--weights FILE] [--seed N] [--nan stop|skip]\n"
         "       [--allow-tf32]\n"
         "       [--HYPERPARAMETER VALUE]...\n"
         "\n"
         "Trains the compiled model: one call of its train step per step.\n"
         "\n"
         "  --steps N                train until step N (counting the steps "
         "before a\n"
         "                           resume)\n"
         "data, one of:\n"
         "  --input NAME=FILE.npy    every input's value (repeat per input): "
         "the same\n"
         "                           batch at every step\n"
         "  --data FILE              a token file (raw little-endian ids; "
         "ids and\n"
         "                           targets are windows of it) or a sample "
         "file\n"
         "                           (FILE.safetensors: one tensor per input, "
         "N samples)\n"
         "  --batch B                must equal the compiled batch, if given\n"
         "  --data-dtype T           a token file's ids: uint16 (default) or "
         "int32\n"
         "  --synthetic SEED         fresh seeded inputs every step: floats in "
         "[-1, 1),\n"
         "                           integers in their range\n"
         "output and checkpoints:\n"
         "  --log-json FILE          one JSON line per step (appended to on "
         "--resume)\n"
         "  --ckpt DIR               write DIR/step-NNNNNNNN/ after the last "
         "step\n"
         "  --save-every K           ... and after every step divisible by K\n"
         "  --resume DIR             continue from the newest checkpoint in "
         "DIR (or\n"
         "                           from DIR itself, a step-* directory)\n"
         "  --weights FILE           initial parameters (default: this "
         "executable's\n"
         "                           path + \".safetensors\")\n"
         "training:\n"
         "  --seed N                 the seed of the model's random numbers "
         "(dropout):\n"
         "                           a signed 64-bit integer (default 0; on "
         "--resume,\n"
         "                           the checkpoint's)\n"
         "  --nan stop|skip          at a step whose loss or grad norm is NaN "
         "or\n"
         "                           infinite: stop (default, exit status 3), "
         "or undo\n"
         "                           its update and go on (stop after " +
         std::to_string(kMaxSkippedSteps) +
         " in a row;\n"
         "                           keeps a copy of the parameters and "
         "optimizer state)\n"
         "  --allow-tf32             let float32 matrix products round "
         "their inputs to\n"
         "                           TF32 on the GPU's tensor cores (faster, "
         "about 3\n"
         "                           digits); programs compiled for CUDA "
         "only, others\n"
         "                           ignore it\n"
         "  --collective-timeout S   under a mesh: a process that waits "
         "longer than S\n"
         "                           seconds in one collective (another "
         "rank died, hangs\n"
         "                           or was stopped) says what it waited "
         "for and ends the\n"
         "                           job, exit status 4 (default 60; 0: "
         "wait forever)\n"
         "  --trace FILE             write a Chrome/Perfetto trace of some "
         "steps: steps,\n"
         "                           gemm calls and collectives per rank "
         "(FILE.rankN.json\n"
         "                           per rank under a mesh; "
         "scripts/merge-traces.py joins them)\n"
         "  --trace-steps A:B        the steps --trace records (default: "
         "the first 3)\n"
         "  --straggler-delay-ms MS[@RANK|@rotate]\n"
         "                           slow one rank (default the last): it "
         "sleeps MS ms\n"
         "                           before each step's compute, to "
         "measure a straggler;\n"
         "                           @rotate: rank (step-1) mod ranks, a "
         "different one\n"
         "                           each step\n"
         "  --NAME VALUE             a hyperparameter of the model (listed "
         "below, e.g.\n"
         "                           --lr 3e-4): default its compiled value; "
         "on --resume,\n"
         "                           the checkpoint's\n"
         "  --help                   print this, the model's tensors and "
         "hyperparameters\n"
         "\n"
         "SIGINT and SIGTERM stop the run after the current step, saving its "
         "checkpoint\n"
         "with --ckpt (exit status 130 and 143).\n"
         "\n"
         "Set DISTRT_LOG_LEVEL=info (or debug) for progress messages on "
         "stderr.\n";
}

const std::vector<std::string> &trainFlags() {
  static const std::vector<std::string> flags = {
      "--steps",     "--input",    "--data", "--batch",      "--data-dtype",
      "--synthetic", "--log-json", "--ckpt", "--save-every", "--resume",
      "--weights",   "--seed",     "--nan",  "--allow-tf32",
      "--collective-timeout", "--trace", "--trace-steps",
      "--straggler-delay-ms", "--sync", "--staleness", "--replay"};
  return flags;
}

bool parseTrainOptions(int argc, char **argv,
                       const std::vector<std::string> &hparams,
                       TrainOptions &options, std::string &error) {
  std::vector<std::string> known = trainFlags();
  for (const std::string &name : hparams)
    known.push_back(hparamFlag(name));
  std::set<std::string> seen;
  bool ok = scanFlags(argc, argv, known, options.help, error,
                      [&](const std::string &flag, const std::string &value) {
                        // A second value of a single-valued flag is more likely
                        // a mistake than an override.
                        if (flag != "--input" && !seen.insert(flag).second) {
                          error = flag + " is given twice";
                          return false;
                        }
                        if (value.empty()) {
                          error = flag + " needs a non-empty value";
                          return false;
                        }
                        return setValue(options, hparams, flag, value, error);
                      },
                      {{"--allow-tf32", &options.allowTf32},
                       {"--ps-hierarchical", &options.hierarchical}});
  return ok && (options.help || checkCombinations(options, error));
}

bool stragglerSleeps(const TrainOptions &options, int64_t rank, int64_t ranks,
                     int64_t step) {
  if (options.stragglerDelayMs <= 0 || ranks < 1)
    return false;
  if (options.stragglerRank == TrainOptions::kRotate)
    return (step - 1) % ranks == rank;
  if (options.stragglerRank == TrainOptions::kLastRank)
    return rank == ranks - 1;
  return rank == options.stragglerRank;
}

} // namespace distrt::model
