//===- ParameterServerJob.h - What a parameter-server job shares -*- C++ -*-===//
//
// The pieces of parameter-server mode (ParameterServer.h) that its workers
// (ParameterServerWorker.cpp) and servers (ParameterServerUpdate.cpp)
// share: who owns which parameter, the messages, and where the run starts.
//
// The messages, all point to point over the job's transport (distrt_send,
// distrt_recv, distrt_recv_any for asynchronous arrivals):
//   announce (worker -> server 0): {worker, version it computed on, count}
//   push (worker -> each server): float32 loss, then the gradients of the
//     server's parameters in the server's order, encoded (PushCodec.h;
//     summed over `count` workers when a host leader pushes for its host)
//   order (server 0 -> the other servers): the workers whose pushes a
//     hierarchical step sums; asynchronous: {kind, worker}: apply that
//     worker's push, drop it, send it the parameters or stop, or end
//   squares (server -> server): its float64 sum of squared gradients
//   pull (server -> worker): int64 version (-1: stop), then its parameters
//   save (server -> worker 0): its parameters and optimizer state
// Server 0 prints a step line per update.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_PARAMETERSERVERJOB_H
#define DISTRT_MAIN_PARAMETERSERVERJOB_H

#include "DataSource.h"
#include "HostBuffers.h"
#include "Hyperparameters.h"
#include "ModelInterface.h"
#include "ParameterServerCheckpoint.h"
#include "PushCodec.h"
#include "StepLog.h"
#include "TrainOptions.h"
#include "distrt/model.h"

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace distrt::model::ps {

constexpr int32_t kAnnounceTag = 7101, kPushTag = 7102, kPullTag = 7103,
                  kOrderTag = 7104, kSquaresTag = 7105, kHostTag = 7106,
                  kSaveTag = 7107;
constexpr int64_t kAllAxes = (int64_t(1) << DISTRT_MAX_MESH_DIMS) - 1;
/// Orders of server 0 to the others (asynchronous updates).
enum Order : int64_t {
  kApply = 1,      // apply the worker's push
  kReply = 2,      // send the worker the parameters
  kDrop = 3,       // receive the worker's push and drop it (budget spent)
  kStopWorker = 4, // tell the worker to stop
  kStop = 5,       // end
};

/// Prints `error: <message>` on stderr; returns 1.
int fail(const std::string &message);

/// A parameter a server owns: where it is in the workers' program and in
/// the server's.
struct Owned {
  size_t workerParam, workerGrad; // argument index, output index
  size_t serverParam, serverGrad; // argument indices
  size_t bytes, elements;
  size_t encoded; // its gradient's bytes in a push
};

/// The programs of the job and who owns what.
struct Layout {
  int64_t workers = 0, servers = 0;
  const Interface *worker = nullptr;
  std::vector<Interface> server;
  std::vector<dist_model_entry> update;
  std::vector<std::vector<Owned>> owned; // per server
  PushCodec codec; // --grad-compression of the pushes
  /// Asynchronous data parallelism (distrt/model.h, dist_ps_allreduce): no
  /// servers run; every worker runs server 0's update (the whole model's).
  bool allReduce = false;

  /// A push to server `s`: the loss, then each gradient, encoded.
  size_t pushBytes(int64_t s) const {
    size_t bytes = sizeof(float);
    for (const Owned &o : owned[s])
      bytes += o.encoded;
    return bytes;
  }
  /// A reply of server `s`: the version, then each parameter.
  size_t pullBytes(int64_t s) const {
    size_t bytes = sizeof(int64_t);
    for (const Owned &o : owned[s])
      bytes += o.bytes;
    return bytes;
  }
};

/// The index of argument `name` of `model` (arguments.size() if none).
size_t argumentIndex(const Interface &model, const std::string &name);

/// The programs of this executable (distrt/model.h) and who owns what;
/// false with `error` set if they do not fit together.
bool buildLayout(const Interface &worker, Layout &layout, std::string &error);

/// What every process of the run knows besides the programs: where the run
/// starts (a fresh one, or --resume's checkpoint) and the hyperparameters.
struct Run {
  Interface checkpoint; // checkpointModel(): what checkpoints hold
  std::unique_ptr<Resumed> resumed;
  int64_t firstStep = 1;
  int64_t seed = 0;
  HparamValues hparams; // --NAME, the checkpoint's, or the compiled value
  /// Whether a checkpoint is due after `step`.
  bool saveDue(const TrainOptions &options, int64_t step) const {
    return !options.ckpt.empty() &&
           (step == options.steps ||
            (options.saveEvery && step % options.saveEvery == 0));
  }
  /// A tensor of the checkpoint resumed from, by name; null if none.
  const void *resumedTensor(const std::string &name) const {
    return resumed ? resumed->find(checkpoint, name) : nullptr;
  }
};

/// Synchronous runs: the signal (SIGINT or SIGTERM) any process got, 0 if
/// none; every process calls it after each step, so all stop after the
/// same one.
int32_t stopSignal();

/// What a run stopped by `signal` after `step` says (the trainer's words).
std::string interruptedText(const TrainOptions &options, int32_t signal,
                            int64_t step);

/// Copies `bytes` of `from` into a new host buffer at `*to`.
bool copyTensor(const void *from, size_t bytes, void **to,
                const std::string &name, std::string &error);

/// The bound of asynchronous updates: --staleness (default 1); 0 for a
/// synchronous run (--staleness 0 is one).
int64_t stalenessBound(const TrainOptions &options);

/// A worker's data (parameter-server workers, asynchronous data-parallel
/// ranks): the data source fills whole batches (wholeBatch's interface),
/// of which each step takes the worker's rows.
class WorkerData {
public:
  WorkerData(const Interface &worker, int64_t workers, int64_t index,
             const TrainOptions &options);
  /// Allocates the whole batches and opens the source, at `run`'s resumed
  /// position; false with `error` set.
  bool open(const Run &run, std::string &error);
  /// Step `step`'s batch: this worker's rows into `pointers` (the gradient
  /// program's arguments); then, when this worker is the step's
  /// --straggler-delay-ms, it sleeps.
  void next(int64_t step, std::vector<void *> &pointers);
  /// The source's position (for a checkpoint).
  const DataState &state() const { return source->state(); }
  /// The interface with whole batches.
  const Interface &wholeModel() const { return whole; }

private:
  const Interface &worker;
  int64_t workers, index;
  const TrainOptions &options;
  Interface whole;
  HostBuffers batches; // whole batches of the inputs; null for the others
  std::unique_ptr<DataSource> source;
};

/// An update program's (dist_ps_server's) arguments the runtime sets: its
/// step, "loss" and "others_grad_sq".
struct UpdateArguments {
  size_t step = 0, loss = 0, others = 0;
};

/// Finds `model`'s UpdateArguments and sets its hyperparameters in
/// `pointers` to `run`'s values; false with `error` set if one is missing.
bool bindUpdateArguments(const Interface &model, const Run &run,
                         std::vector<void *> &pointers, UpdateArguments &out,
                         std::string &error);

/// Copies the tensors of `roles` of `model` from `run`'s checkpoint into
/// new host buffers at their indices of `pointers`; false with `error` set.
bool copyResumed(const Run &run, const Interface &model,
                 std::initializer_list<Role> roles,
                 std::vector<void *> &pointers, std::string &error);

/// The end of an asynchronous run's last line: the mean and largest
/// staleness of its `updates`, then `bound` (what bounds it, from its
/// leading separator on).
std::string stalenessSummary(int64_t sum, int64_t max, int64_t updates,
                             const std::string &bound);

/// Prints an update's step line (with `text` appended) and writes its
/// --log-json line to `log` (may be null; with `json`, ", \"key\": value"
/// fields, appended); ends the job (exit 3) on a non-finite loss or grad
/// norm.
void reportUpdate(const StepResult &result, const char *unit,
                  int64_t unitPerStep, const std::string &text,
                  const std::string &json, FILE *log);

/// One process of the job: a worker or a server.
class Process {
public:
  virtual ~Process() = default;
  /// Reads and allocates what it needs; false with `error` set.
  virtual bool prepare(std::string &error) = 0;
  /// Trains to the end (or until stopped).
  virtual void run() = 0;
  /// Whether a checkpoint could not be written (the run stopped).
  bool failed = false;
  /// The signal the run stopped for (SIGINT, SIGTERM), or 0.
  int32_t stopped = 0;
};

/// Worker `index` (ParameterServerWorker.cpp), server `index`
/// (ParameterServerUpdate.cpp).
std::unique_ptr<Process> makeWorker(const Layout &layout,
                                    const TrainOptions &options,
                                    const Run &run, const char *argv0,
                                    int64_t index);
std::unique_ptr<Process> makeServer(const Layout &layout,
                                    const TrainOptions &options,
                                    const Run &run, const char *argv0,
                                    int64_t index);
/// Asynchronous data parallelism with S = `staleness` > 0: adds to
/// `checkpoint` (checkpointModel's) the reductions still pending after a
/// step and the gradient program's predicted parameters.
void addPendingUpdates(Interface &checkpoint, const Layout &layout,
                       int64_t staleness);
/// Rank `index` of asynchronous data parallelism (AsyncDataParallel.cpp).
std::unique_ptr<Process> makeAllReduceRank(const Layout &layout,
                                           const TrainOptions &options,
                                           const Run &run, const char *argv0,
                                           int64_t index);

} // namespace distrt::model::ps

#endif // DISTRT_MAIN_PARAMETERSERVERJOB_H
