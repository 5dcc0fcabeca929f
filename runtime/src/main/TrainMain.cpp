//===- TrainMain.cpp - The training loop of a trainer ---------------------===//
//
// Everything a run needs is read and checked first (options, checkpoint,
// data, parameters); only then are outputs created (the checkpoint
// directory, the --log-json file), so a failed start leaves every existing
// file as it was. Then one call of dist_model_forward per step, with the
// step number, the next batch, and the parameters and optimizer state that
// the call updates in place.
//
// Under a mesh (Job.h) every rank does the same with its shards: it reads
// the whole tensors (weights or checkpoint, each step's whole batch) and
// hands the step its shards of the split ones (Sharding.h), and null for
// the parameters and state placed on pipeline stages other than its own.
// Rank 0 alone prints the step lines, writes the log and the checkpoints,
// which hold the whole tensors (gathered from the ranks that hold them)
// and so load under any mesh. The ranks agree after the checks, after
// creating the outputs and after each save; an error on one rank elsewhere
// ends the whole job.
//
// A model compiled for CUDA (a "cuda" target) trains on device buffers
// (DeviceBuffers.h): the parameters and optimizer state are uploaded once,
// each step uploads its inputs, step, seed and hyperparameters and
// downloads its outputs (which waits for the step), and the parameters and
// state come down only to be saved. --nan=skip keeps its copies on the
// device.
//
// A run also stops between steps: at a non-finite loss or grad norm
// (--nan=stop, or after too many skipped steps with --nan=skip: exit status
// 3, no checkpoint of that step), and on SIGINT or SIGTERM (the step's
// checkpoint is saved, exit status 128 + the signal). Under a mesh the ranks
// combine both conditions every step (a max all-reduce), so that they stop
// after the same step and save it together.
//
//===----------------------------------------------------------------------===//

#include "TrainMain.h"
#include "Checkpoint.h"
#include "DataSource.h"
#include "DeviceBuffers.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Hyperparameters.h"
#include "Job.h"
#include "Sharding.h"
#include "StepLog.h"
#include "StopSignals.h"
#include "TrainOptions.h"
#include "Weights.h"
#include "distrt/model.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <unistd.h>

namespace distrt::model {

namespace {

/// Exit status of a run stopped by a non-finite loss or grad norm.
constexpr int kDivergedStatus = 3;

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

/// "the loss is nan", "the grad norm is inf", or both joined by "and".
/// --trace's file of this process: FILE itself alone, FILE.rankN.json
/// (before a .json suffix, or appended) under a mesh of several.
std::string traceFile(const std::string &path) {
  if (distrt_comm_world() <= 1)
    return path;
  std::string rank = ".rank" + std::to_string(distrt_comm_rank());
  const std::string json = ".json";
  if (path.size() > json.size() &&
      path.compare(path.size() - json.size(), json.size(), json) == 0)
    return path.substr(0, path.size() - json.size()) + rank + json;
  return path + rank;
}

std::string nonFiniteText(const StepResult &result) {
  auto value = [](float v) -> std::string {
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  };
  std::string text;
  if (!std::isfinite(result.loss))
    text = "the loss is " + value(result.loss);
  if (!std::isfinite(result.gradNorm))
    text += (text.empty() ? "" : " and ") + std::string("the grad norm is ") +
            value(result.gradNorm);
  // Under a mesh the ranks combine the condition; the values are replicated,
  // so this is for a model that breaks that rule.
  return text.empty() ? "another process's loss or grad norm is not finite"
                      : text;
}

void printHelp(const char *argv0, const Interface &model) {
  std::fputs(trainUsageText(argv0).c_str(), stdout);
  std::printf("\nThe model's tensors (arguments in order, then results):\n");
  for (const auto *list : {&model.arguments, &model.outputs})
    for (const TensorSpec &spec : *list) {
      std::string range = spec.range ? " (range " + spec.rangeText() + ")" : "";
      std::string split =
          spec.hasShards() ? " (split: " + spec.shardText() + ")" : "";
      std::string place =
          spec.placeAxis >= 0 ? " (" + spec.placeText() + ")" : "";
      std::printf("  %-6s %-24s %s%s%s%s\n", roleName(spec.role),
                  spec.typeText().c_str(), spec.name.c_str(), range.c_str(),
                  split.c_str(), place.c_str());
    }
  if (model.cuda)
    std::printf("\nCompiled for a CUDA GPU (%s): its buffers live on device "
                "0.\n",
                model.arch.c_str());
  if (!model.mesh.empty())
    std::printf("\nMesh: %s (one process per device: mpirun -np %lld)\n",
                model.meshText().c_str(),
                static_cast<long long>(model.devices()));
  std::vector<const TensorSpec *> hparams = model.withRole(Role::Hparam);
  if (!hparams.empty())
    std::printf("\nHyperparameters (run-time options, compiled defaults):\n");
  for (const TensorSpec *spec : hparams)
    std::printf("  %s %s\n", hparamFlag(spec->name).c_str(),
                numberText(spec->hparamDefault).c_str());
  // The meta entries of the hyperparameters are their defaults, shown above.
  bool header = false;
  for (const auto &[key, value] : model.meta) {
    const TensorSpec *spec = model.findArgument(key);
    if (spec && spec->role == Role::Hparam)
      continue;
    if (!header)
      std::printf("\nFixed at compile time (meta):\n");
    header = true;
    std::printf("  %s %s\n", key.c_str(), value.c_str());
  }
}

/// The advice of the message of a diverged run: the options the model has
/// for it, or what to change at compile time.
std::string divergedAdvice(const Interface &model) {
  auto has = [&](const char *name) {
    const TensorSpec *spec = model.findArgument(name);
    return spec && spec->role == Role::Hparam;
  };
  return std::string("the run diverged; lower the learning rate") +
         (has("lr") ? " (--lr)" : "") + ", or clip gradients with " +
         (has("max_grad_norm") ? "--max-grad-norm"
                               : "--max-grad-norm at compile time");
}

/// One training run: set up by prepare(), then run().
class Trainer {
public:
  Trainer(const Interface &model, const TrainOptions &options,
          const char *argv0)
      : model(model), options(options), argv0(argv0),
        buffers(model.arguments.size() + model.outputs.size()),
        wholeInputs(model.arguments.size()), device(model) {}

  /// Reads and checks everything; writes nothing.
  bool prepare(std::string &error) {
    Manifest manifest;
    seed = options.seed;
    // MFU: the compiler's count of the step's FLOPs over the GPU's peak
    // (0 for a GPU not in distrt's table: no MFU).
    if (model.cuda)
      peakFlops = distrt_cuda_peak_flops(DISTRT_F32, options.allowTf32);
    if (options.seedGiven && model.withRole(Role::Seed).empty() && isMainRank())
      distrt_log(DISTRT_LOG_INFO,
                 "--seed %lld: the model draws no random numbers (it has no "
                 "'seed' argument); the seed only goes into checkpoints",
                 static_cast<long long>(options.seed));
    if (!options.resume.empty() && !readResume(manifest, error))
      return false;
    chooseHparams(options.resume.empty() ? nullptr : &manifest);
    if (!checkFreshCheckpoints(options.ckpt, options.resume, error))
      return false;
    if (options.steps < firstStep - 1) {
      error = "--steps " + std::to_string(options.steps) +
              " is before the checkpoint's step " +
              std::to_string(firstStep - 1) + " (" + checkpoint + ")";
      return false;
    }
    return openDataSource(model, options,
                          checkpoint.empty() ? nullptr : &manifest.data, data,
                          error) &&
           loadTensors(manifest, error) && allocateRest(error) &&
           shard(error) && device.attach(buffers.pointers, error) &&
           (options.nan != NanPolicy::Skip || allocateCopies(error));
  }

  /// Creates the outputs (rank 0), then trains until --steps. Returns the
  /// exit status; when it is not 0, `error` is the message to print (empty
  /// on the ranks that stay quiet), and `together` says whether every rank
  /// knows (else the job must end).
  int run(std::string &error, bool &together) {
    together = true;
    if (firstStep > options.steps)
      return 0; // the checkpoint is already at --steps
    if (!everyRank(!isMainRank() || openOutputs(error), error))
      return 1;
    int64_t perStep;
    const char *unit = throughputUnit(model, perStep);
    size_t outputs = model.arguments.size();
    StopSignals signals;
    // The tensor peak counts the steps, not loading the weights.
    distrt_host_memory_reset_peak();
    int skipped = 0; // consecutive steps whose update --nan=skip undid
    int scalerSkips = 0; // consecutive steps the loss scaler skipped
    double lastScale = -1;
    // --straggler-delay-ms: a rank sleeps before a step's compute.
    int ranks = distrt_comm_world();
    if (options.stragglerRank >= ranks) {
      if (isMainRank())
        error = "--straggler-delay-ms: rank " +
                std::to_string(options.stragglerRank) +
                " is not one of the job's " + std::to_string(ranks) +
                " ranks (0 to " + std::to_string(ranks - 1) + ")";
      return 1;
    }
    for (int64_t step = firstStep; step <= options.steps; ++step) {
      if (options.nan == NanPolicy::Skip && !copyUpdated(false, error))
        return 1;
      uint64_t start = distrt_now_ns();
      data->next(step, dataPointers);
      for (size_t i : splitInputs)
        sliceShard(model.arguments[i], wholeInputs.pointers[i],
                   buffers.pointers[i]);
      if (stepIndex >= 0)
        *static_cast<int64_t *>(buffers.pointers[stepIndex]) = step;
      if (seedIndex >= 0)
        *static_cast<int64_t *>(buffers.pointers[seedIndex]) = seed;
      for (size_t k = 0; k < hparams.size(); ++k)
        *static_cast<double *>(buffers.pointers[hparamIndices[k]]) =
            hparams[k].second;
      if (!device.upload({Role::Input, Role::Step, Role::Seed, Role::Hparam},
                         error))
        return 1;
      distrt_set_step(step);
      if (!options.trace.empty()) {
        // Without --trace-steps: the first 3 steps this run takes.
        int64_t first = options.traceFirst ? options.traceFirst : firstStep;
        int64_t last = options.traceFirst ? options.traceLast : firstStep + 2;
        distrt_trace_record(step >= first && step <= last);
      }
      if (stragglerSleeps(options, distrt_comm_rank(), ranks, step))
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(
            options.stragglerDelayMs));
      uint64_t computeStart = distrt_now_ns();
      dist_model_forward(device.pointers());
      // On a device, waiting for the step is part of its time.
      if (!device.synchronize(error) ||
          !device.download({Role::Output}, error)) {
        error = "step " + std::to_string(step) + ": " + error;
        return 1;
      }
      StepResult result;
      result.step = step;
      result.ms = static_cast<double>(distrt_now_ns() - start) * 1e-6;
      // Stopping the recording resolves the GPU's spans: not step time.
      if (!options.trace.empty()) {
        distrt_trace_span("compute", ("step " + std::to_string(step)).c_str(),
                          computeStart, distrt_now_ns());
        distrt_trace_record(0);
      }
      result.gpuPeakMiB = device.peakMiB();
      if (!device.onDevice()) {
        int64_t tensorPeak;
        distrt_host_memory(nullptr, &tensorPeak);
        result.tensorPeakMiB = static_cast<double>(tensorPeak) / (1 << 20);
      }
      if (model.flopsPerStep > 0 && peakFlops > 0 && result.ms > 0)
        result.mfu = static_cast<double>(model.flopsPerStep) /
                     (result.ms * 1e-3) / peakFlops;
      if (device.onDevice() && isMainRank())
        distrt_log(DISTRT_LOG_DEBUG, "step %lld: %s",
                   static_cast<long long>(step), device.memoryText().c_str());
      // Replicated: the step reduced them over the mesh.
      result.loss = *static_cast<const float *>(buffers.pointers[outputs]);
      result.gradNorm =
          *static_cast<const float *>(buffers.pointers[outputs + 1]);
      result.lr = *static_cast<const float *>(buffers.pointers[outputs + 2]);
      if (model.lossScaling) {
        result.lossScale =
            *static_cast<const float *>(buffers.pointers[outputs + 3]);
        result.skipped =
            *static_cast<const float *>(buffers.pointers[outputs + 4]) != 0;
      }
      // A step the loss scaler skipped left the parameters and state as
      // they were: not a divergence, unless it keeps happening.
      // Stuck: a dynamic scale fallen below 1, or a static one, still
      // overflowing after kMaxScalerSkips tries.
      scalerSkips = result.skipped ? scalerSkips + 1 : 0;
      bool stuck = scalerSkips >= kMaxScalerSkips &&
                   (result.lossScale < 1 || result.lossScale == lastScale);
      lastScale = result.lossScale;
      bool diverged = result.skipped ? stuck
                                     : !std::isfinite(result.loss) ||
                                           !std::isfinite(result.gradNorm);
      // {the stop signal, whether the step diverged}; every rank stops
      // after the same step.
      int32_t stop[2] = {StopSignals::received(), diverged};
      if (distrt_comm_world() > 1)
        maxOverRanks(stop, 2);
      if (isMainRank()) {
        std::printf("%s\n",
                    stepLine(result, unit, perStep, peakMemoryMiB()).c_str());
        std::fflush(stdout);
        if (!logStep(result, error)) {
          together = false; // the other ranks go on into the next step
          return 1;
        }
      }
      if (stop[1] && result.skipped) {
        if (!everyRank(closeLog(error), error))
          return 1;
        if (isMainRank()) {
          char scale[32];
          std::snprintf(scale, sizeof(scale), "%g", result.lossScale);
          error = "step " + std::to_string(step) + ": the loss scaler "
                  "skipped " + std::to_string(scalerSkips) +
                  " steps in a row for inf/nan gradients (loss scale now " +
                  scale +
                  "): the gradients are not finite at this scale or any "
                  "tried before, so the model or its inputs produce "
                  "inf/NaN; " +
                  divergedAdvice(model);
        }
        return kDivergedStatus;
      }
      if (stop[1]) {
        // Nothing of this step is saved: the stop comes before any save.
        if (options.nan == NanPolicy::Stop || ++skipped == kMaxSkippedSteps)
          return stopDiverged(result, skipped, error);
        if (!copyUpdated(true, error))
          return 1;
        if (isMainRank()) {
          std::fprintf(stderr, "warning: step %lld: %s; update skipped\n",
                       static_cast<long long>(step),
                       nonFiniteText(result).c_str());
          std::fflush(stderr);
        }
      } else {
        skipped = 0;
      }
      // A signal during the last step lets the run end as it would anyway.
      bool interrupted = stop[0] && step < options.steps;
      if ((saveDue(step) || (interrupted && !options.ckpt.empty())) &&
          !save(step, error, together))
        return 1;
      if (interrupted)
        return stopInterrupted(stop[0], step, error);
    }
    return everyRank(closeLog(error), error) ? 0 : 1;
  }

  ~Trainer() {
    if (log)
      std::fclose(log);
  }

private:
  const Interface &model;
  const TrainOptions &options;
  const char *argv0;
  HostBuffers buffers; // the step's buffers on the host: shards of the split
                       // tensors
  /// The whole batch of each split input, which the data source fills and
  /// each step slices; null for the other arguments.
  HostBuffers wholeInputs;
  std::vector<void *> dataPointers; // per argument, for the data source
  std::vector<size_t> splitInputs;  // their argument indices
  std::unique_ptr<DataSource> data;
  std::string checkpoint; // the one resumed from
  int64_t firstStep = 1;
  long stepIndex = -1; // the step argument's index, if the model has one
  long seedIndex = -1; // the seed argument's index, if the model has one
  int64_t seed = 0;    // --seed, or the checkpoint's
  /// The value of each hyperparameter (chooseHparams), and its argument's
  /// index.
  HparamValues hparams;
  std::vector<size_t> hparamIndices;
  /// --nan=skip: a copy of this rank's parameters and optimizer state (its
  /// shards) from before the step, by argument index, on the model's
  /// device; null for others.
  std::vector<void *> beforeStep;
  /// What the step gets: `buffers`, or their mirrors on the model's device.
  /// Declared last, so destroyed first.
  DeviceBuffers device;
  FILE *log = nullptr;
  /// The GPU's peak rate (FLOP/s) for the step's dtype; 0 when unknown.
  double peakFlops = 0;

  /// --nan=skip: room for a copy of every parameter and state shard this
  /// rank holds.
  bool allocateCopies(std::string &error) {
    beforeStep.assign(model.arguments.size(), nullptr);
    for (size_t i = 0; i < model.arguments.size(); ++i) {
      const TensorSpec &spec = model.arguments[i];
      if ((spec.role != Role::Param && spec.role != Role::State) ||
          !holds(spec))
        continue;
      if (!(beforeStep[i] = device.allocate(shardBytes(spec), error))) {
        error = "--nan skip: no memory for a copy of " +
                std::string(roleName(spec.role)) + " '" + spec.name +
                "': " + error;
        return false;
      }
    }
    return true;
  }

  /// --nan=skip: with `restore` false, copies the parameters and optimizer
  /// state aside before a step; with `restore` true, puts the copies back,
  /// undoing the step's in-place updates. On the model's device.
  bool copyUpdated(bool restore, std::string &error) {
    for (size_t i = 0; i < model.arguments.size(); ++i) {
      void *copy = beforeStep[i];
      if (!copy)
        continue;
      size_t bytes = shardBytes(model.arguments[i]);
      void *current = device.pointers()[i];
      if (!(restore ? device.copy(current, copy, bytes, error)
                    : device.copy(copy, current, bytes, error))) {
        error = "--nan skip: " + error;
        return false;
      }
    }
    return true;
  }

  /// The end of a run whose step `result` diverged (the `skipped`th in a
  /// row with --nan=skip): rank 0 says so; no checkpoint of it is written.
  int stopDiverged(const StepResult &result, int skipped, std::string &error) {
    if (!everyRank(closeLog(error), error))
      return 1;
    if (isMainRank())
      error = "step " + std::to_string(result.step) + ": " +
              nonFiniteText(result) +
              (skipped ? ", the " + std::to_string(skipped) +
                             "th step in a row (--nan skip)"
                       : std::string()) +
              " (" + divergedAdvice(model) + ")";
    return kDivergedStatus;
  }

  /// The end of a run stopped by `signal` after `step` (whose checkpoint
  /// was saved with --ckpt): rank 0 says how to go on.
  int stopInterrupted(int signal, int64_t step, std::string &error) {
    if (!everyRank(closeLog(error), error))
      return 1;
    if (isMainRank())
      error =
          std::string("interrupted by ") + signalName(signal) + " after step " +
          std::to_string(step) + "; " +
          (options.ckpt.empty()
               ? std::string("no --ckpt was given, so the progress is "
                             "lost")
               : "checkpoint " + checkpointPath(options.ckpt, step) +
                     " written (continue with --resume " + options.ckpt + ")");
    return 128 + signal;
  }

  /// Each hyperparameter's value: its option if given, else on a resume the
  /// checkpoint's, else the compiled default. Rank 0 logs an option that
  /// changes the checkpoint's value, and the values.
  void chooseHparams(const Manifest *resumed) {
    std::string values;
    for (const TensorSpec *spec : model.withRole(Role::Hparam)) {
      std::string flag = hparamFlag(spec->name);
      const double *given = findHparam(options.hparams, spec->name);
      const double *saved =
          resumed ? findHparam(resumed->hparams, spec->name) : nullptr;
      double value = given ? *given : saved ? *saved : spec->hparamDefault;
      if (resumed && isMainRank()) {
        if (given && saved && *given != *saved)
          distrt_log(DISTRT_LOG_INFO, "%s %s overrides the checkpoint's %s",
                     flag.c_str(), numberText(*given).c_str(),
                     numberText(*saved).c_str());
        else if (!given && saved && *saved != spec->hparamDefault)
          distrt_log(DISTRT_LOG_WARN,
                     "using the checkpoint's %s %s, not this executable's "
                     "compiled %s; pass %s to change it",
                     flag.c_str(), numberText(*saved).c_str(),
                     numberText(spec->hparamDefault).c_str(), flag.c_str());
        else if (!given && !saved)
          distrt_log(DISTRT_LOG_INFO,
                     "%s records no value of %s (an older checkpoint); "
                     "using the compiled %s",
                     checkpoint.c_str(), flag.c_str(),
                     numberText(value).c_str());
      }
      hparams.emplace_back(spec->name, value);
      hparamIndices.push_back(
          static_cast<size_t>(spec - model.arguments.data()));
      values += (values.empty() ? "" : ", ") + flag + " " + numberText(value);
    }
    if (!isMainRank())
      return;
    if (resumed)
      for (const auto &[name, value] : resumed->hparams)
        if (!findHparam(hparams, name))
          distrt_log(DISTRT_LOG_WARN,
                     "%s has hyperparameter %s = %s, which the model lacks; "
                     "ignored",
                     checkpoint.c_str(), name.c_str(),
                     numberText(value).c_str());
    if (!values.empty())
      distrt_log(DISTRT_LOG_INFO, "hyperparameters: %s", values.c_str());
  }

  bool readResume(Manifest &manifest, std::string &error) {
    if (!findCheckpoint(options.resume, checkpoint, error))
      return false;
    if (!readManifest(checkpoint, manifest, error) ||
        !checkManifest(model, manifest, checkpoint, error))
      return failResume(error);
    firstStep = static_cast<int64_t>(manifest.step) + 1;
    if (options.seedGiven && options.seed != manifest.seed) {
      error = "--seed " + std::to_string(options.seed) +
              " differs from the seed of the checkpoint " + checkpoint + " (" +
              std::to_string(manifest.seed) +
              "); leave --seed out to continue with it";
      return false;
    }
    seed = manifest.seed;
    if (isMainRank())
      distrt_log(DISTRT_LOG_INFO, "resuming from %s at step %lld",
                 checkpoint.c_str(), static_cast<long long>(firstStep));
    return true;
  }

  /// Resume never falls back to an older checkpoint by itself: a damaged
  /// newest one is for the user to look at. Says how to pick another.
  bool failResume(std::string &error) const {
    if (checkpoint != options.resume)
      error += " (the newest checkpoint in " + options.resume +
               "; to resume from an older one, pass its step-* directory)";
    return false;
  }

  /// Parameters from the checkpoint or --weights; optimizer state from the
  /// checkpoint, or zero.
  bool loadTensors(const Manifest &manifest, std::string &error) {
    if (!checkpoint.empty())
      return loadCheckpoint(model, checkpoint, manifest, buffers.pointers,
                            error) ||
             failResume(error);
    return loadParams(model, weightsPath(options.weights, argv0),
                      buffers.pointers, error) &&
           initialState(model, buffers.pointers, error);
  }

  /// The input, step and output buffers.
  bool allocateRest(std::string &error) {
    if (!allocateOthers(model, buffers.pointers, error))
      return false;
    for (size_t i = 0; i < model.arguments.size(); ++i) {
      if (model.arguments[i].role == Role::Step)
        stepIndex = static_cast<long>(i);
      if (model.arguments[i].role == Role::Seed)
        seedIndex = static_cast<long>(i);
    }
    return true;
  }

  /// Replaces the whole tensors of the split arguments by this rank's
  /// shards, and drops the placed ones it does not hold (the step gets
  /// null for them); the data source writes the whole batch of a split
  /// input aside, and each step slices it.
  bool shard(std::string &error) {
    if (!shardArguments(model, buffers.pointers, &wholeInputs.pointers, error))
      return false;
    dataPointers.assign(buffers.pointers.begin(),
                        buffers.pointers.begin() + model.arguments.size());
    for (size_t i = 0; i < model.arguments.size(); ++i)
      if (wholeInputs.pointers[i]) {
        dataPointers[i] = wholeInputs.pointers[i];
        splitInputs.push_back(i);
      }
    return true;
  }

  /// The checkpoint of `step`: the whole of each parameter and state
  /// tensor comes to rank 0 (the holders of a split one gather it, and a
  /// holder sends a placed one rank 0 does not hold: collectWhole, in
  /// argument order on every rank), and rank 0 writes them. The ranks then
  /// agree on the outcome, which also keeps any from running ahead of the
  /// save.
  bool save(int64_t step, std::string &error, bool &together) {
    if (!device.download({Role::Param, Role::State}, error))
      return false;
    size_t count = model.arguments.size();
    std::vector<void *> whole(buffers.pointers.begin(),
                              buffers.pointers.begin() + count);
    HostBuffers gathered(count);
    for (size_t i = 0; i < count; ++i) {
      const TensorSpec &spec = model.arguments[i];
      if (spec.role != Role::Param && spec.role != Role::State)
        continue;
      if (needsWholeBuffer(spec)) {
        whole[i] = gathered.pointers[i] = distrt_alloc(kHost, spec.bytes());
        if (!whole[i]) {
          error = std::string(roleName(spec.role)) + " '" + spec.name +
                  "': " + distrt_last_error();
          together = false; // the other ranks wait in the gather
          return false;
        }
      }
      collectWhole(spec, buffers.pointers[i], whole[i]);
    }
    return everyRank(!isMainRank() ||
                         saveCheckpoint(options.ckpt, model, whole, step, seed,
                                        hparams, data->state(), error),
                     error);
  }

  /// The checkpoint directory (mkdir -p), then the log: a resumed run
  /// appends to it, a fresh one starts it anew. The log's directory is
  /// checked before anything is created.
  bool openOutputs(std::string &error) {
    if (!options.logJson.empty() &&
        (!isDirectory(parentDirectory(options.logJson)) ||
         isDirectory(options.logJson))) {
      error = "--log-json " + options.logJson + ": " +
              (isDirectory(options.logJson)
                   ? "a directory"
                   : "no directory " + parentDirectory(options.logJson));
      return false;
    }
    if (!options.ckpt.empty() && (!makeDirectories(options.ckpt, error) ||
                                  !writable(options.ckpt, error)))
      return false;
    if (options.logJson.empty())
      return true;
    log = std::fopen(options.logJson.c_str(), checkpoint.empty() ? "w" : "a");
    if (!log) {
      error = options.logJson + ": cannot open: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  /// Finds out now, not at the first save, that `dir` is read-only.
  static bool writable(const std::string &dir, std::string &error) {
    if (::access(dir.c_str(), W_OK | X_OK) == 0)
      return true;
    error = dir + ": cannot write checkpoints there: " + std::strerror(errno);
    return false;
  }

  bool logStep(const StepResult &result, std::string &error) {
    if (!log)
      return true;
    // One flushed line per step: a killed run leaves whole lines.
    if (std::fprintf(log, "%s\n", stepJson(result).c_str()) < 0 ||
        std::fflush(log) != 0) {
      error = options.logJson + ": write error: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  bool closeLog(std::string &error) {
    if (!log)
      return true;
    int status = std::fclose(log);
    log = nullptr;
    if (status != 0) {
      error = options.logJson + ": write error: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  bool saveDue(int64_t step) const {
    return !options.ckpt.empty() &&
           (step == options.steps ||
            (options.saveEvery && step % options.saveEvery == 0));
  }
};

} // namespace

int trainMain(int argc, char **argv, const Interface &model) {
  TrainOptions options;
  std::string message;
  std::vector<std::string> hparams;
  for (const TensorSpec *spec : model.withRole(Role::Hparam))
    hparams.push_back(spec->name);
  if (!parseTrainOptions(argc, argv, hparams, options, message))
    return fail(message + " (see --help)");
  if (options.help) {
    printHelp(argv[0], model);
    return 0;
  }
  if (options.hasParameterServerOptions())
    return fail("--sync, --staleness, --replay and --ps-hierarchical are for "
                "parameter-server programs (dist-compile --parallel=ps) and "
                "asynchronous data parallelism (dist-compile --parallel=dp "
                "--sync=async)");
  if (int status = openModelDevice(model, options.allowTf32))
    return status;
  if (options.collectiveTimeout >= 0)
    distrt_set_collective_timeout(options.collectiveTimeout);
  if (!joinMesh(model, message))
    return fail(message);
  // Every rank opens its trace file or none goes on.
  bool traceOpen = options.trace.empty() ||
                   distrt_trace_start(traceFile(options.trace).c_str()) == 0;
  if (!traceOpen)
    message = distrt_last_error();
  if (!everyRank(traceOpen, message))
    return leaveMesh(fail(message));
  Trainer trainer(model, options, argv[0]);
  bool together = true;
  int status = everyRank(trainer.prepare(message), message)
                   ? trainer.run(message, together)
                   : 1;
  if (!options.trace.empty() && distrt_trace_finish() != 0) {
    if (message.empty())
      message = distrt_last_error();
    status = status ? status : 1;
  }
  if (status == 0)
    return leaveMesh(0);
  if (!message.empty())
    fail(message);
  if (!together && distrt_comm_world() > 1)
    distrt_comm_abort(1); // the other ranks would wait for this one
  return leaveMesh(status);
}

} // namespace distrt::model
