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
// Each reduction also carries the ranks' SIGINT and SIGTERM flags, so that
// every rank learns of a signal with the same update and all stop after
// the same step; a checkpoint then holds the reductions still pending
// (async.pending, with the update each gradient was computed on) and the
// gradient program's predicted parameters, and a resumed run goes on as
// if never stopped.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "DataSource.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Job.h"
#include "ParameterServerJob.h"
#include "Weights.h"

#include "StopSignals.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <new>

namespace distrt::model::ps {

namespace {

// The checkpoint's tensors of an asynchronous run (addPendingUpdates).
const char *const kPendingName = "async.pending";
const char *const kComputedOnName = "async.computed_on";
const std::string kPredictedPrefix = "async.predicted.";

class AllReduceRank : public Process {
public:
  AllReduceRank(const Layout &layout, const TrainOptions &options,
                const Run &run, const char *argv0, int64_t index)
      : layout(layout), worker(*layout.worker), update(layout.server[0]),
        options(options), job(run), argv0(argv0), index(index),
        workerBuffers(worker.arguments.size() + worker.outputs.size()),
        updateBuffers(update.arguments.size() + update.outputs.size()),
        data(worker, layout.workers, index, options) {}

  ~AllReduceRank() override {
    if (log)
      std::fclose(log);
  }

  bool prepare(std::string &error) override {
    // Every parameter of the gradient program (the frozen ones and the
    // model's buffers too), and the update's trained ones with their
    // state: the checkpoint's, or the weights file's and the initial state.
    if (job.resumed) {
      if (!copyResumed(job, worker, {Role::Param}, workerBuffers.pointers,
                       error) ||
          !copyResumed(job, update, {Role::Param, Role::State},
                       updateBuffers.pointers, error))
        return false;
    } else {
      std::string weights = weightsPath(options.weights, argv0);
      if (!loadParams(worker, weights, workerBuffers.pointers, error) ||
          !loadParams(update, weights, updateBuffers.pointers, error,
                      /*share=*/true) ||
          !initialState(update, updateBuffers.pointers, error))
        return false;
    }
    if (!allocateOthers(update, updateBuffers.pointers, error) ||
        !allocateOthers(worker, workerBuffers.pointers, error))
      return false;
    if (!bindUpdateArguments(update, job, updateBuffers.pointers, args,
                             error))
      return false;
    *static_cast<float *>(updateBuffers.pointers[args.others]) = 0;
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
    unit = throughputUnit(data.wholeModel(), unitPerStep);
    staleness = stalenessBound(options);
    async = staleness > 0;
    count = 1;
    for (const Owned &o : layout.owned[0])
      count += o.elements;
    // S + 1 copies of the gradients: say so when they do not fit.
    try {
      slots.assign(static_cast<size_t>(staleness + 1),
                   std::vector<float>(count + 2));
    } catch (const std::bad_alloc &) {
      error = "--staleness " + std::to_string(staleness) + " keeps " +
              std::to_string(staleness + 1) + " copies of the gradients (" +
              std::to_string((count + 2) * sizeof(float) >> 20) +
              " MiB each), more than this host's memory holds: lower it";
      return false;
    }
    resumePending();
    return data.open(job, error);
  }

  void run() override {
    start = distrt_now_ns();
    size_t outputs = worker.arguments.size();
    for (int64_t step = job.firstStep; step <= options.steps; ++step) {
      data.next(step, workerBuffers.pointers);
      distrt_set_step(step);
      dist_model_forward(workerBuffers.pointers.data());
      std::vector<float> &slot = slotOf(step);
      slot[0] = *static_cast<const float *>(workerBuffers.pointers[outputs]);
      float *at = slot.data() + 1;
      for (const Owned &o : layout.owned[0]) {
        std::memcpy(at, workerBuffers.pointers[outputs + o.workerGrad],
                    o.bytes);
        at += o.elements;
      }
      int received = StopSignals::received();
      slot[count] = received == SIGINT ? 1.0f : 0.0f;
      slot[count + 1] = received == SIGTERM ? 1.0f : 0.0f;
      inFlight.push_back(
          {version, &slot,
           distrt_all_reduce_start(DISTRT_F32, DISTRT_OP_SUM, slot.data(),
                                   static_cast<int64_t>(slot.size()),
                                   kAllAxes & 1),
           false});
      // The update of step - S: the next step computes on it.
      if (static_cast<int64_t>(inFlight.size()) > staleness) {
        apply(inFlight.front(), staleness);
        inFlight.pop_front();
      }
      // A signal any rank got, learnt by all with the same update: every
      // rank stops after this step (saving it with --ckpt).
      bool interrupted = signal && step < options.steps;
      if (step < options.steps &&
          (job.saveDue(options, step) ||
           (interrupted && !options.ckpt.empty())) &&
          !save(step))
        return;
      if (interrupted) {
        waitAll(); // nothing is left under way
        stopped = signal;
        if (index == 0) {
          std::string text = interruptedText(options, signal, step);
          if (async)
            text += " (updates 1 to " + std::to_string(version) +
                    " applied and logged; " +
                    std::to_string(inFlight.size()) + " more pending" +
                    (options.ckpt.empty() ? ", lost)" : ", in the checkpoint)");
          fail(text);
        }
        return;
      }
    }
    while (!inFlight.empty()) {
      apply(inFlight.front(), static_cast<int64_t>(inFlight.size()) - 1);
      inFlight.pop_front();
    }
    // The last checkpoint holds every update (nothing pending).
    if (job.saveDue(options, options.steps) && !save(options.steps))
      return;
    if (index == 0)
      summary();
  }

private:
  /// A step's all-reduce under way: the update its gradient was computed
  /// on (the same on every rank), its buffer and request (done: waited
  /// for already, or read from a checkpoint).
  struct InFlight {
    int64_t computedOn;
    std::vector<float> *slot;
    int64_t request;
    bool done;
  };

  /// Step `step`'s reduction buffer: the loss, the gradients, then the
  /// SIGINT and SIGTERM flags.
  std::vector<float> &slotOf(int64_t step) {
    return slots[static_cast<size_t>(step % (staleness + 1))];
  }

  /// Waits for every all-reduce under way (they are applied later).
  void waitAll() {
    for (InFlight &f : inFlight)
      if (!f.done) {
        distrt_wait(f.request);
        f.done = true;
      }
  }

  /// Waits for `f`'s all-reduce and applies its mean as the next update.
  /// The gradient program then computes on the parameters predicted
  /// `ahead` updates on (the updates still in flight when it runs), as
  /// SpecTrain does for a pipeline's stale weights: the new parameters plus
  /// `ahead` times this update's change, w + ahead * (w - w_before). It
  /// keeps the loss of delayed updates close to the synchronous run's (on
  /// gpt2-tiny at lr 1e-3 and S = 2: 7% above it instead of 30%;
  /// docs/parallelism.md); the update itself is exact.
  void apply(const InFlight &f, int64_t ahead) {
    if (!f.done)
      distrt_wait(f.request);
    const std::vector<float> &sum = *f.slot;
    if (sum[count + 1] > 0)
      signal = SIGTERM;
    else if (sum[count] > 0 && !signal)
      signal = SIGINT;
    // The gradient program's copy holds a prediction: w_before first.
    if (ahead > 0)
      for (const Owned &o : layout.owned[0])
        std::memcpy(workerBuffers.pointers[o.workerParam],
                    updateBuffers.pointers[o.serverParam], o.bytes);
    float mean = static_cast<float>(1.0 / static_cast<double>(layout.workers));
    updateWith(sum.data(), mean, f.computedOn);
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
    *static_cast<float *>(updateBuffers.pointers[args.loss]) =
        message[0] * factor;
    int64_t stale = version - computedOn;
    *static_cast<int64_t *>(updateBuffers.pointers[args.step]) = ++version;
    distrt_set_step(version);
    layout.update[0](updateBuffers.pointers.data());
    stalenessMax = std::max(stalenessMax, stale);
    stalenessSum += stale;
    ++applied;
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

  /// The checkpoint after `step` (every rank calls it): rank 0 holds every
  /// parameter and the whole optimizer state, and writes them in the
  /// trainer's format; asynchronous, with the reductions still pending
  /// (waited for first, applied later) and the predicted parameters.
  bool save(int64_t step) {
    waitAll();
    std::string error;
    bool ok = true;
    if (index == 0) {
      const Interface &ckpt = job.checkpoint;
      std::vector<void *> pointers(ckpt.arguments.size(), nullptr);
      // The parameters no update changes (frozen, buffers) from the
      // gradient program; the trained ones and their state from the
      // update (the gradient program's may be a prediction).
      for (const TensorSpec *spec : worker.withRole(Role::Param))
        pointers[argumentIndex(ckpt, spec->name)] =
            workerBuffers.pointers[spec - worker.arguments.data()];
      for (Role role : {Role::Param, Role::State})
        for (const TensorSpec *spec : update.withRole(role))
          pointers[argumentIndex(ckpt, spec->name)] =
              updateBuffers.pointers[spec - update.arguments.data()];
      std::vector<float> pending;
      std::vector<int64_t> computedOn(static_cast<size_t>(staleness), -1);
      if (staleness > 0) {
        pending.assign(static_cast<size_t>(staleness) * count, 0.0f);
        for (size_t k = 0; k < inFlight.size(); ++k) {
          std::memcpy(pending.data() + k * count, inFlight[k].slot->data(),
                      count * sizeof(float));
          computedOn[k] = inFlight[k].computedOn;
        }
        pointers[argumentIndex(ckpt, kPendingName)] = pending.data();
        pointers[argumentIndex(ckpt, kComputedOnName)] = computedOn.data();
        for (const Owned &o : layout.owned[0])
          pointers[argumentIndex(
              ckpt, kPredictedPrefix + worker.arguments[o.workerParam].name)] =
              workerBuffers.pointers[o.workerParam];
      }
      ok = saveCheckpoint(options.ckpt, ckpt, pointers, step, job.seed,
                          job.hparams, data.state(), error);
      if (!ok)
        fail(error);
    }
    failed = !everyRank(ok, error);
    return !failed;
  }

  /// A resumed asynchronous run: the pending reductions of the checkpoint
  /// (the last steps before it, oldest first) and the predicted parameters.
  void resumePending() {
    if (!job.resumed || staleness == 0)
      return;
    const auto *pending =
        static_cast<const float *>(job.resumedTensor(kPendingName));
    const auto *computedOn =
        static_cast<const int64_t *>(job.resumedTensor(kComputedOnName));
    int64_t n = 0;
    while (n < staleness && computedOn[n] >= 0)
      ++n;
    int64_t last = job.firstStep - 1;
    for (int64_t k = 0; k < n; ++k) {
      std::vector<float> &slot = slotOf(last - n + 1 + k);
      std::memcpy(slot.data(), pending + static_cast<size_t>(k) * count,
                  count * sizeof(float));
      inFlight.push_back({computedOn[k], &slot, -1, true});
    }
    version -= n;
    if (n > 0)
      for (const Owned &o : layout.owned[0])
        std::memcpy(workerBuffers.pointers[o.workerParam],
                    job.resumedTensor(kPredictedPrefix +
                                      worker.arguments[o.workerParam].name),
                    o.bytes);
  }

  void summary() {
    double seconds = static_cast<double>(distrt_now_ns() - start) * 1e-9;
    int64_t updates = applied;
    std::printf("data parallelism (%s): %lld updates from %lld ranks in "
                "%.3f s: %.1f %s/s",
                staleness > 0 ? "asynchronous" : "synchronous",
                static_cast<long long>(updates),
                static_cast<long long>(layout.workers), seconds,
                static_cast<double>(unitPerStep * updates) / seconds, unit);
    std::printf("%s\n", staleness > 0
                            ? stalenessSummary(stalenessSum, stalenessMax,
                                               updates,
                                               " (--staleness " +
                                                   std::to_string(staleness) +
                                                   ")")
                                  .c_str()
                            : "");
    std::fflush(stdout);
  }

  const Layout &layout;
  const Interface &worker, &update;
  const TrainOptions &options;
  const Run &job;
  const char *argv0;
  int64_t index;
  HostBuffers workerBuffers, updateBuffers;
  WorkerData data;
  UpdateArguments args;
  int64_t version = 0;
  FILE *log = nullptr;
  const char *unit = "samples";
  int64_t unitPerStep = 1;
  uint64_t start = 0, last = 0;
  int64_t stalenessSum = 0, stalenessMax = 0;
  int64_t applied = 0; // updates this run applied
  int64_t staleness = 0; // --staleness S
  bool async = false;     // S > 0
  size_t count = 0;       // a reduction's loss and gradients
  std::vector<std::vector<float>> slots; // S + 1 reduction buffers
  std::deque<InFlight> inFlight;
  int32_t signal = 0; // learnt from an applied reduction
};

} // namespace

void addPendingUpdates(Interface &checkpoint, const Layout &layout,
                       int64_t staleness) {
  if (staleness == 0)
    return;
  int64_t count = 1;
  for (const Owned &o : layout.owned[0])
    count += static_cast<int64_t>(o.elements);
  TensorSpec pending;
  pending.role = Role::State;
  pending.dtype = DISTRT_F32;
  pending.rank = 2;
  pending.shape[0] = staleness;
  pending.shape[1] = count;
  pending.name = kPendingName;
  checkpoint.arguments.push_back(pending);
  TensorSpec computedOn;
  computedOn.role = Role::State;
  computedOn.dtype = DISTRT_I64;
  computedOn.rank = 1;
  computedOn.shape[0] = staleness;
  computedOn.name = kComputedOnName;
  checkpoint.arguments.push_back(computedOn);
  for (const Owned &o : layout.owned[0]) {
    TensorSpec predicted = layout.worker->arguments[o.workerParam];
    predicted.role = Role::State;
    predicted.name = kPredictedPrefix + predicted.name;
    checkpoint.arguments.push_back(predicted);
  }
}

std::unique_ptr<Process> makeAllReduceRank(const Layout &layout,
                                           const TrainOptions &options,
                                           const Run &run, const char *argv0,
                                           int64_t index) {
  return std::make_unique<AllReduceRank>(layout, options, run, argv0, index);
}

} // namespace distrt::model::ps
