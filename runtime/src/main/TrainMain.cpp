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
// hands the step its shards of the split ones (Sharding.h). Rank 0 alone
// prints the step lines, writes the log and the checkpoints, which hold the
// whole tensors (gathered from every rank) and so load under any mesh. The
// ranks agree after the checks, after creating the outputs and after each
// save; an error on one rank elsewhere ends the whole job.
//
//===----------------------------------------------------------------------===//

#include "TrainMain.h"
#include "Checkpoint.h"
#include "DataSource.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Job.h"
#include "Sharding.h"
#include "StepLog.h"
#include "TrainOptions.h"
#include "Weights.h"
#include "distrt/model.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace distrt::model {

namespace {

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

void printHelp(const char *argv0, const Interface &model) {
  std::fputs(trainUsageText(argv0).c_str(), stdout);
  std::printf("\nThe model's tensors (arguments in order, then results):\n");
  for (const auto *list : {&model.arguments, &model.outputs})
    for (const TensorSpec &spec : *list) {
      std::string range =
          spec.range ? " (range [0, " + std::to_string(spec.range) + "))" : "";
      std::string split =
          spec.hasShards() ? " (split: " + spec.shardText() + ")" : "";
      std::printf("  %-6s %-24s %s%s%s\n", roleName(spec.role),
                  spec.typeText().c_str(), spec.name.c_str(), range.c_str(),
                  split.c_str());
    }
  if (!model.mesh.empty())
    std::printf("\nMesh: %s (one process per device: mpirun -np %lld)\n",
                model.meshText().c_str(),
                static_cast<long long>(model.devices()));
  if (!model.meta.empty()) {
    std::printf("\nHyperparameters (meta):\n");
    for (const auto &[key, value] : model.meta)
      std::printf("  %s %s\n", key.c_str(), value.c_str());
  }
}

/// One training run: set up by prepare(), then run().
class Trainer {
public:
  Trainer(const Interface &model, const TrainOptions &options,
          const char *argv0)
      : model(model), options(options), argv0(argv0),
        buffers(model.arguments.size() + model.outputs.size()),
        wholeInputs(model.arguments.size()) {}

  /// Reads and checks everything; writes nothing.
  bool prepare(std::string &error) {
    Manifest manifest;
    if (!options.resume.empty() && !readResume(manifest, error))
      return false;
    // A fresh run would mix its checkpoints with another run's, and a later
    // --resume would pick up the other run's newest.
    std::string existing;
    if (options.resume.empty() && !options.ckpt.empty() &&
        !(existing = newestCheckpoint(options.ckpt)).empty()) {
      error = "--ckpt " + options.ckpt + " already holds checkpoints (" +
              existing + "); continue them with --resume " + options.ckpt +
              ", or write elsewhere";
      return false;
    }
    if (options.steps < firstStep - 1) {
      error = "--steps " + std::to_string(options.steps) +
              " is before the checkpoint's step " +
              std::to_string(firstStep - 1) + " (" + checkpoint + ")";
      return false;
    }
    return openDataSource(model, options,
                          checkpoint.empty() ? nullptr : &manifest.data, data,
                          error) &&
           loadTensors(manifest, error) && allocateRest(error) && shard(error);
  }

  /// Creates the outputs (rank 0), then trains until --steps. On failure
  /// `together` says whether every rank knows (else the job must end).
  bool run(std::string &error, bool &together) {
    together = true;
    if (firstStep > options.steps)
      return true; // the checkpoint is already at --steps
    if (!everyRank(!isMainRank() || openOutputs(error), error))
      return false;
    int64_t perStep;
    const char *unit = throughputUnit(model, perStep);
    size_t outputs = model.arguments.size();
    for (int64_t step = firstStep; step <= options.steps; ++step) {
      uint64_t start = distrt_now_ns();
      data->next(step, dataPointers);
      for (size_t i : splitInputs)
        sliceShard(model.arguments[i], wholeInputs.pointers[i],
                   buffers.pointers[i]);
      if (stepIndex >= 0)
        *static_cast<int64_t *>(buffers.pointers[stepIndex]) = step;
      dist_model_forward(buffers.pointers.data());
      StepResult result;
      result.step = step;
      result.ms = static_cast<double>(distrt_now_ns() - start) * 1e-6;
      // Replicated: the step reduced them over the mesh.
      result.loss = *static_cast<const float *>(buffers.pointers[outputs]);
      result.gradNorm =
          *static_cast<const float *>(buffers.pointers[outputs + 1]);
      result.lr = *static_cast<const float *>(buffers.pointers[outputs + 2]);
      if (isMainRank()) {
        std::printf("%s\n",
                    stepLine(result, unit, perStep, peakMemoryMiB()).c_str());
        std::fflush(stdout);
        if (!logStep(result, error)) {
          together = false; // the other ranks go on into the next step
          return false;
        }
      }
      if (saveDue(step) && !save(step, error, together))
        return false;
    }
    return everyRank(closeLog(error), error);
  }

  ~Trainer() {
    if (log)
      std::fclose(log);
  }

private:
  const Interface &model;
  const TrainOptions &options;
  const char *argv0;
  HostBuffers buffers; // what the step gets: shards of the split tensors
  /// The whole batch of each split input, which the data source fills and
  /// each step slices; null for the other arguments.
  HostBuffers wholeInputs;
  std::vector<void *> dataPointers; // per argument, for the data source
  std::vector<size_t> splitInputs;  // their argument indices
  std::unique_ptr<DataSource> data;
  std::string checkpoint; // the one resumed from
  int64_t firstStep = 1;
  long stepIndex = -1; // the step argument's index, if the model has one
  FILE *log = nullptr;

  bool readResume(Manifest &manifest, std::string &error) {
    if (!findCheckpoint(options.resume, checkpoint, error))
      return false;
    if (!readManifest(checkpoint, manifest, error) ||
        !checkManifest(model, manifest, checkpoint, error))
      return failResume(error);
    firstStep = static_cast<int64_t>(manifest.step) + 1;
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
    if (!loadParams(model, weightsPath(options.weights, argv0),
                    buffers.pointers, error))
      return false;
    for (const TensorSpec *spec : model.withRole(Role::State)) {
      void *data = distrt_alloc(kHost, spec->bytes());
      if (!data) {
        error = "state '" + spec->name + "': " + distrt_last_error();
        return false;
      }
      std::memset(data, 0, spec->bytes());
      buffers.pointers[spec - model.arguments.data()] = data;
    }
    return true;
  }

  /// The input, step and output buffers.
  bool allocateRest(std::string &error) {
    for (size_t i = 0; i < buffers.pointers.size(); ++i) {
      if (buffers.pointers[i])
        continue;
      const TensorSpec &spec = i < model.arguments.size()
                                   ? model.arguments[i]
                                   : model.outputs[i - model.arguments.size()];
      void *data = distrt_alloc(kHost, spec.bytes());
      if (!data) {
        error = std::string(roleName(spec.role)) + " '" + spec.name +
                "': " + distrt_last_error();
        return false;
      }
      std::memset(data, 0, spec.bytes());
      buffers.pointers[i] = data;
      if (spec.role == Role::Step)
        stepIndex = static_cast<long>(i);
    }
    return true;
  }

  /// Replaces the whole tensors of the split arguments by this rank's
  /// shards; the data source writes the whole batch of a split input
  /// aside, and each step slices it.
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

  /// The checkpoint of `step`: every rank gathers the whole of each split
  /// parameter and state tensor, rank 0 writes them. The ranks then agree
  /// on the outcome, which also keeps any from running ahead of the save.
  bool save(int64_t step, std::string &error, bool &together) {
    size_t count = model.arguments.size();
    std::vector<void *> whole(buffers.pointers.begin(),
                              buffers.pointers.begin() + count);
    HostBuffers gathered(count);
    for (size_t i = 0; i < count; ++i) {
      const TensorSpec &spec = model.arguments[i];
      if ((spec.role != Role::Param && spec.role != Role::State) ||
          !isSplit(spec))
        continue;
      whole[i] = gathered.pointers[i] = distrt_alloc(kHost, spec.bytes());
      if (!whole[i]) {
        error = std::string(roleName(spec.role)) + " '" + spec.name +
                "': " + distrt_last_error();
        together = false; // the other ranks wait in the gather
        return false;
      }
      gatherShards(spec, buffers.pointers[i], whole[i]);
    }
    return everyRank(!isMainRank() ||
                         saveCheckpoint(options.ckpt, model, whole, step,
                                        data->state(), error),
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
  if (!parseTrainOptions(argc, argv, options, message))
    return fail(message + " (see --help)");
  if (options.help) {
    printHelp(argv[0], model);
    return 0;
  }
  if (!joinMesh(model, message))
    return fail(message);
  Trainer trainer(model, options, argv[0]);
  bool together = true;
  bool ok = everyRank(trainer.prepare(message), message) &&
            trainer.run(message, together);
  if (ok)
    return leaveMesh(0);
  fail(message);
  if (!together && distrt_comm_world() > 1)
    distrt_comm_abort(1); // the other ranks would wait for this one
  return leaveMesh(1);
}

} // namespace distrt::model
