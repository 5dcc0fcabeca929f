//===- AsyncDataParallel.cpp - Data parallelism with delayed updates ------===//
//
// dist-compile --parallel=dp --sync=async: every rank holds the whole model
// and its optimizer state. Each step it computes the gradient of its rows
// of the batch (the workers' program), starts an all-reduce of it (with the
// loss) and goes on; the update of step t (server 0's program, the whole
// model's, on the mean gradient) is applied once step t + S has computed
// its gradient, S = --staleness. So step t's gradient is computed on the
// parameters of update t - 1 - S: at most S updates old, the bound of
// stale synchronous parallel, and a rank runs at most S steps ahead of the
// slowest before it waits. Every rank applies the same updates in the same
// order to the same parameters: the replicas stay equal and a run repeats
// bit for bit (no arrival order to replay). S = 0 is synchronous data
// parallelism (the 1-rank run within float32 rounding).
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "DataSource.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Job.h"
#include "ParameterServerJob.h"
#include "Weights.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

namespace distrt::model::ps {

namespace {

class AllReduceRank : public Process {
public:
  AllReduceRank(const Layout &layout, const TrainOptions &options,
                const Run &run, const char *argv0, int64_t index)
      : layout(layout), worker(*layout.worker), update(layout.server[0]),
        options(options), job(run), argv0(argv0), index(index),
        whole(wholeBatch(worker, layout.workers)),
        workerBuffers(worker.arguments.size() + worker.outputs.size()),
        updateBuffers(update.arguments.size() + update.outputs.size()),
        batches(worker.arguments.size()) {}

  ~AllReduceRank() override {
    if (log)
      std::fclose(log);
  }

  bool prepare(std::string &error) override {
    // The update's parameters and state: the checkpoint's, or the weights
    // file's and the initial state.
    if (job.resumed) {
      for (Role role : {Role::Param, Role::State})
        for (const TensorSpec *spec : update.withRole(role))
          if (!copyTensor(job.resumedTensor(spec->name), spec->bytes(),
                          &updateBuffers.pointers[spec - update.arguments.data()],
                          spec->name, error))
            return false;
    } else if (!loadParams(update, weightsPath(options.weights, argv0),
                           updateBuffers.pointers, error) ||
               !initialState(update, updateBuffers.pointers, error)) {
      return false;
    }
    // The gradient program's copy of the parameters.
    for (const Owned &o : layout.owned[0])
      if (!copyTensor(updateBuffers.pointers[o.serverParam], o.bytes,
                      &workerBuffers.pointers[o.workerParam],
                      worker.arguments[o.workerParam].name, error))
        return false;
    if (!allocateOthers(update, updateBuffers.pointers, error) ||
        !allocateOthers(worker, workerBuffers.pointers, error))
      return false;
    for (size_t i = 0; i < update.arguments.size(); ++i) {
      const TensorSpec &spec = update.arguments[i];
      if (spec.role == Role::Step)
        stepIndex = static_cast<long>(i);
      if (spec.role == Role::Hparam)
        *static_cast<double *>(updateBuffers.pointers[i]) =
            *findHparam(job.hparams, spec.name);
    }
    lossIndex = argumentIndex(update, "loss");
    othersIndex = argumentIndex(update, "others_grad_sq");
    if (stepIndex < 0 || lossIndex == update.arguments.size() ||
        othersIndex == update.arguments.size()) {
      error = "internal: the update program lacks its step, loss or "
              "others_grad_sq";
      return false;
    }
    *static_cast<float *>(updateBuffers.pointers[othersIndex]) = 0;
    version = job.firstStep - 1;
    // Rank 0 writes the checkpoints (it holds everything) and the log.
    if (index == 0 && !options.ckpt.empty() &&
        !makeDirectories(options.ckpt, error))
      return false;
    if (index == 0 && !options.logJson.empty() &&
        !(log = std::fopen(options.logJson.c_str(), job.resumed ? "a" : "w"))) {
      error = options.logJson + ": cannot open: " + std::strerror(errno);
      return false;
    }
    for (const TensorSpec *spec : worker.withRole(Role::Input))
      if (!(batches.pointers[spec - worker.arguments.data()] = distrt_alloc(
                kHost, spec->bytes() * static_cast<size_t>(layout.workers)))) {
        error = "input '" + spec->name + "': " + distrt_last_error();
        return false;
      }
    unit = throughputUnit(whole, unitPerStep);
    return openDataSource(whole, options,
                          job.resumed ? &job.resumed->manifest.data : nullptr,
                          data, error);
  }

  void run() override {
    int64_t staleness = stalenessBound(options);
    async = staleness > 0;
    size_t count = 1; // the loss, then every gradient
    for (const Owned &o : layout.owned[0])
      count += o.elements;
    // One reduction buffer per step in flight: S + 1.
    std::vector<std::vector<float>> slots(
        static_cast<size_t>(staleness + 1), std::vector<float>(count));
    std::deque<InFlight> inFlight;
    start = distrt_now_ns();
    size_t outputs = worker.arguments.size();
    for (int64_t step = job.firstStep; step <= options.steps; ++step) {
      data->next(step, batches.pointers);
      for (size_t i = 0; i < worker.arguments.size(); ++i)
        if (batches.pointers[i]) {
          size_t bytes = worker.arguments[i].bytes();
          std::memcpy(workerBuffers.pointers[i],
                      static_cast<char *>(batches.pointers[i]) +
                          bytes * static_cast<size_t>(index),
                      bytes);
        }
      distrt_set_step(step);
      if (stragglerSleeps(options, index, layout.workers, step))
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(
            options.stragglerDelayMs));
      dist_model_forward(workerBuffers.pointers.data());
      std::vector<float> &slot =
          slots[static_cast<size_t>(step % (staleness + 1))];
      slot[0] = *static_cast<const float *>(workerBuffers.pointers[outputs]);
      float *at = slot.data() + 1;
      for (const Owned &o : layout.owned[0]) {
        std::memcpy(at, workerBuffers.pointers[outputs + o.workerGrad],
                    o.bytes);
        at += o.elements;
      }
      inFlight.push_back(
          {version, &slot,
           distrt_all_reduce_start(DISTRT_F32, DISTRT_OP_SUM, slot.data(),
                                   static_cast<int64_t>(count),
                                   kAllAxes & 1)});
      // The update of step - S: the next step computes on it.
      if (static_cast<int64_t>(inFlight.size()) > staleness) {
        apply(inFlight.front(), staleness);
        inFlight.pop_front();
      }
      if (!async && !afterSynchronousStep(step))
        return;
    }
    for (; !inFlight.empty(); inFlight.pop_front())
      apply(inFlight.front(), static_cast<int64_t>(inFlight.size()) - 1);
    if (index == 0)
      summary(staleness);
  }

private:
  /// A step's all-reduce under way: the update its gradient was computed
  /// on (the same on every rank), its buffer and request.
  struct InFlight {
    int64_t computedOn;
    std::vector<float> *slot;
    int64_t request;
  };

  /// Waits for `f`'s all-reduce and applies its mean as the next update.
  /// The gradient program then computes on the parameters predicted
  /// `ahead` updates on (the updates still in flight when it runs), as
  /// SpecTrain does for a pipeline's stale weights: the new parameters plus
  /// `ahead` times this update's change, w + ahead * (w - w_before). It
  /// keeps the loss of delayed updates close to the synchronous run's (on
  /// gpt2-tiny at lr 1e-3 and S = 2: 7% above it instead of 30%;
  /// docs/parallelism.md); the update itself is exact.
  void apply(const InFlight &f, int64_t ahead) {
    distrt_wait(f.request);
    // The gradient program's copy holds a prediction: w_before first.
    if (ahead > 0)
      for (const Owned &o : layout.owned[0])
        std::memcpy(workerBuffers.pointers[o.workerParam],
                    updateBuffers.pointers[o.serverParam], o.bytes);
    float mean = static_cast<float>(1.0 / static_cast<double>(layout.workers));
    updateWith(f.slot->data(), mean, f.computedOn);
    auto k = static_cast<float>(ahead);
    for (const Owned &o : layout.owned[0]) {
      auto *w = static_cast<float *>(workerBuffers.pointers[o.workerParam]);
      const auto *now =
          static_cast<const float *>(updateBuffers.pointers[o.serverParam]);
      for (size_t e = 0; e < o.elements; ++e)
        w[e] = ahead > 0 ? now[e] + k * (now[e] - w[e]) : now[e];
    }
  }

  /// One update with the loss and gradients at `message` times `factor`,
  /// computed on (predicted from) update `computedOn`. Rank 0 reports it.
  void updateWith(const float *message, float factor, int64_t computedOn) {
    const float *at = message + 1;
    for (const Owned &o : layout.owned[0]) {
      float *g = static_cast<float *>(updateBuffers.pointers[o.serverGrad]);
      for (size_t e = 0; e < o.elements; ++e)
        g[e] = at[e] * factor;
      at += o.elements;
    }
    *static_cast<float *>(updateBuffers.pointers[lossIndex]) =
        message[0] * factor;
    int64_t stale = version - computedOn;
    *static_cast<int64_t *>(updateBuffers.pointers[stepIndex]) = ++version;
    distrt_set_step(version);
    layout.update[0](updateBuffers.pointers.data());
    stalenessMax = std::max(stalenessMax, stale);
    stalenessSum += stale;
    if (index != 0)
      return;
    size_t out = update.arguments.size();
    StepResult result;
    result.step = version;
    result.loss = *static_cast<const float *>(updateBuffers.pointers[out]);
    result.gradNorm =
        *static_cast<const float *>(updateBuffers.pointers[out + 1]);
    result.lr = *static_cast<const float *>(updateBuffers.pointers[out + 2]);
    uint64_t now = distrt_now_ns();
    result.ms = static_cast<double>(now - (last ? last : start)) * 1e-6;
    last = now;
    reportUpdate(result, unit, unitPerStep,
                 async ? " | staleness " + std::to_string(stale) : "",
                 async ? ", \"computed_on\": " + std::to_string(computedOn) +
                             ", \"staleness\": " + std::to_string(stale)
                       : "",
                 log);
  }

  /// Synchronous runs: a checkpoint when due, and the stop of SIGINT or
  /// SIGTERM (every rank after the same step). False when the run stops.
  bool afterSynchronousStep(int64_t step) {
    int32_t signal = stopSignal();
    bool interrupted = signal && step < options.steps;
    if ((job.saveDue(options, step) ||
         (interrupted && !options.ckpt.empty())) &&
        !save(step))
      return false;
    if (interrupted) {
      stopped = signal;
      if (index == 0)
        fail(interruptedText(options, signal, step));
      return false;
    }
    return true;
  }

  /// The checkpoint after `step`: rank 0 holds every parameter and the
  /// whole optimizer state, and writes it in the trainer's format.
  bool save(int64_t step) {
    std::string error;
    bool ok = true;
    if (index == 0) {
      const Interface &ckpt = job.checkpoint;
      std::vector<void *> pointers(ckpt.arguments.size(), nullptr);
      for (Role role : {Role::Param, Role::State})
        for (const TensorSpec *spec : update.withRole(role))
          pointers[argumentIndex(ckpt, spec->name)] =
              updateBuffers.pointers[spec - update.arguments.data()];
      ok = saveCheckpoint(options.ckpt, ckpt, pointers, step, job.seed,
                          job.hparams, data->state(), error);
      if (!ok)
        fail(error);
    }
    failed = !everyRank(ok, error);
    return !failed;
  }

  void summary(int64_t staleness) {
    double seconds = static_cast<double>(distrt_now_ns() - start) * 1e-9;
    int64_t updates = version - (job.firstStep - 1);
    std::printf("data parallelism (%s): %lld updates from %lld ranks in "
                "%.3f s: %.1f %s/s",
                staleness > 0 ? "asynchronous" : "synchronous",
                static_cast<long long>(updates),
                static_cast<long long>(layout.workers), seconds,
                static_cast<double>(unitPerStep * updates) / seconds, unit);
    if (staleness > 0)
      std::printf(", staleness (updates since a gradient's parameters) mean "
                  "%.2f max %lld (--staleness %lld)",
                  static_cast<double>(stalenessSum) /
                      static_cast<double>(std::max<int64_t>(updates, 1)),
                  static_cast<long long>(stalenessMax),
                  static_cast<long long>(staleness));
    std::printf("\n");
    std::fflush(stdout);
  }

  const Layout &layout;
  const Interface &worker, &update;
  const TrainOptions &options;
  const Run &job;
  const char *argv0;
  int64_t index;
  Interface whole; // whole batches, for the data source
  HostBuffers workerBuffers, updateBuffers;
  HostBuffers batches; // whole batches of the inputs; null for the others
  std::unique_ptr<DataSource> data;
  long stepIndex = -1;
  size_t lossIndex = 0, othersIndex = 0;
  int64_t version = 0;
  FILE *log = nullptr;
  const char *unit = "samples";
  int64_t unitPerStep = 1;
  uint64_t start = 0, last = 0;
  int64_t stalenessSum = 0, stalenessMax = 0;
  bool async = false; // --staleness S > 0
};

} // namespace

std::unique_ptr<Process> makeAllReduceRank(const Layout &layout,
                                           const TrainOptions &options,
                                           const Run &run, const char *argv0,
                                           int64_t index) {
  return std::make_unique<AllReduceRank>(layout, options, run, argv0, index);
}

} // namespace distrt::model::ps
