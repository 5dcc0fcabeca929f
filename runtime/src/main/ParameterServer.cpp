//===- ParameterServer.cpp - Parameter-server mode's run ------------------===//
//
// The messages, all point to point over the job's transport (distrt_send,
// distrt_recv, distrt_recv_any for asynchronous arrivals):
//   announce (worker -> server 0): {worker, version it computed on, count}
//   push (worker -> each server): float32 loss, then the gradients of the
//     server's parameters in the server's order (summed over `count`
//     workers when a host leader pushes for its host)
//   order (server 0 -> the other servers, asynchronous only): {kind,
//     worker}: apply that worker's push, send it the parameters, or stop
//   squares (server -> server): its float64 sum of squared gradients
//   pull (server -> worker): int64 version, then its parameters
// A step line (server 0) is printed per update.
//
//===----------------------------------------------------------------------===//

#include "ParameterServer.h"
#include "DataSource.h"
#include "HostBuffers.h"
#include "Hyperparameters.h"
#include "Checkpoint.h"
#include "FileSystem.h"
#include "Job.h"
#include "ParameterServerCheckpoint.h"
#include "PushCodec.h"
#include "StepLog.h"
#include "StopSignals.h"
#include "TrainOptions.h"
#include "Weights.h"
#include "../core/Json.h"
#include "distrt/model.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace distrt::model {

namespace {

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

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

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

size_t argumentIndex(const Interface &model, const std::string &name) {
  const TensorSpec *spec = model.findArgument(name);
  return spec ? static_cast<size_t>(spec - model.arguments.data())
              : model.arguments.size();
}

bool buildLayout(const Interface &worker, Layout &layout,
                 std::string &error) {
  layout.workers = dist_ps_workers;
  layout.servers = dist_ps_servers;
  layout.worker = &worker;
  if (!PushCodec::parse(&dist_ps_grad_compression != nullptr
                            ? dist_ps_grad_compression
                            : "none",
                        layout.codec, error)) {
    error = "internal: " + error;
    return false;
  }
  for (int64_t k = 0; k < layout.servers; ++k) {
    const char *text = nullptr;
    dist_model_entry entry = dist_ps_server(k, &text);
    Interface model;
    if (!entry || !text || !parseInterface(text, model, error) ||
        !model.train) {
      error = "internal: server " + std::to_string(k) +
              "'s program is malformed: " + error;
      return false;
    }
    layout.server.push_back(std::move(model));
    layout.update.push_back(entry);
  }
  for (int64_t k = 0; k < layout.servers; ++k) {
    const Interface &server = layout.server[k];
    std::vector<Owned> owned;
    for (const TensorSpec *param : server.withRole(Role::Param)) {
      Owned o;
      o.serverParam = argumentIndex(server, param->name);
      o.serverGrad = argumentIndex(server, param->name + ".grad");
      o.workerParam = argumentIndex(worker, param->name);
      o.workerGrad = worker.outputs.size();
      for (size_t i = 0; i < worker.outputs.size(); ++i)
        if (worker.outputs[i].name == param->name + ".grad")
          o.workerGrad = i;
      o.bytes = param->bytes();
      o.elements = static_cast<size_t>(param->elements());
      o.encoded = layout.codec.encodedBytes(o.elements);
      if (o.serverGrad == server.arguments.size() ||
          o.workerParam == worker.arguments.size() ||
          o.workerGrad == worker.outputs.size() ||
          param->dtype != DISTRT_F32) {
        error = "internal: parameter '" + param->name +
                "' of server " + std::to_string(k) +
                " has no float32 gradient in the workers' program";
        return false;
      }
      owned.push_back(o);
    }
    layout.owned.push_back(std::move(owned));
  }
  return true;
}

void printHelp(const char *argv0, const Layout &layout) {
  std::fputs(trainUsageText(argv0).c_str(), stdout);
  std::printf(
      "\nparameter-server mode (this program: %lld workers, %lld servers; "
      "run it with\nmpirun -np %lld, ranks %lld.. are the servers):\n"
      "  --sync sync|async        sync (default): each step sums every "
      "worker's\n"
      "                           gradient; async: the servers apply each "
      "worker's\n"
      "                           gradient as it arrives\n"
      "  --staleness S            async: a worker runs at most S steps "
      "ahead of the\n"
      "                           slowest (default 1; 0 is sync)\n"
      "  --replay LOG             async: take the updates in the order of "
      "a previous\n"
      "                           run's --log-json (reproduces it bit for "
      "bit)\n"
      "  --ps-hierarchical        sync: the workers of one host sum their "
      "gradients\n"
      "                           first; one of them talks to the servers\n",
      static_cast<long long>(layout.workers),
      static_cast<long long>(layout.servers),
      static_cast<long long>(layout.workers + layout.servers),
      static_cast<long long>(layout.workers));
  std::printf("\nThe workers' tensors (each worker: 1/%lld of the batch):\n",
              static_cast<long long>(layout.workers));
  for (const auto *list : {&layout.worker->arguments, &layout.worker->outputs})
    for (const TensorSpec &spec : *list)
      std::printf("  %-6s %-24s %s\n", roleName(spec.role),
                  spec.typeText().c_str(), spec.name.c_str());
  for (int64_t k = 0; k < layout.servers; ++k) {
    std::printf("\nServer %lld (rank %lld) owns:", static_cast<long long>(k),
                static_cast<long long>(layout.workers + k));
    for (const TensorSpec *spec : layout.server[k].withRole(Role::Param))
      std::printf(" %s", spec->name.c_str());
    std::printf("\n");
  }
  std::vector<const TensorSpec *> hparams =
      layout.server[0].withRole(Role::Hparam);
  if (!hparams.empty())
    std::printf("\nHyperparameters (run-time options, compiled defaults):\n");
  for (const TensorSpec *spec : hparams)
    std::printf("  %s %s\n", hparamFlag(spec->name).c_str(),
                numberText(spec->hparamDefault).c_str());
}

int64_t stalenessBound(const TrainOptions &options);

/// The options parameter-server mode does not take yet.
bool checkOptions(const TrainOptions &options, const Layout &layout,
                  std::string &error) {
  if (options.hierarchical && layout.codec.kind != PushCodec::Float32)
    error = "--ps-hierarchical with compressed pushes: a host leader would "
            "have to decode and compress its host's sum again; run this "
            "program without --ps-hierarchical (or compile it without "
            "--grad-compression)";
  else if (stalenessBound(options) > 0 &&
           (!options.ckpt.empty() || !options.resume.empty()))
    error = "asynchronous parameter-server runs do not write or resume "
            "checkpoints yet (their workers are at different steps): drop "
            "--ckpt / --resume, or run synchronously";
  else if (options.nan == NanPolicy::Skip)
    error = "parameter-server mode stops at a non-finite loss or grad norm: "
            "drop --nan skip";
  else if (!options.trace.empty())
    error = "parameter-server mode does not write traces yet: drop --trace";
  else
    return true;
  return false;
}

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
int32_t stopSignal() {
  int32_t signal = StopSignals::received();
  maxOverRanks(&signal, 1);
  return signal;
}

/// What a run stopped by `signal` after `step` says (the trainer's words).
std::string interruptedText(const TrainOptions &options, int32_t signal,
                            int64_t step) {
  return std::string("interrupted by ") + signalName(signal) + " after step " +
         std::to_string(step) + "; " +
         (options.ckpt.empty()
              ? std::string("no --ckpt was given, so the progress is lost")
              : "checkpoint " + checkpointPath(options.ckpt, step) +
                    " written (continue with --resume " + options.ckpt + ")");
}

/// Copies `bytes` of `from` into a new host buffer at `*to`.
bool copyTensor(const void *from, size_t bytes, void **to,
                const std::string &name, std::string &error) {
  if (!(*to = distrt_alloc(kHost, bytes))) {
    error = "'" + name + "': " + distrt_last_error();
    return false;
  }
  std::memcpy(*to, from, bytes);
  return true;
}

/// The bound of asynchronous updates: --staleness (default 1); 0 for a
/// synchronous run (--staleness 0 is one).
int64_t stalenessBound(const TrainOptions &options) {
  if (!options.async)
    return 0;
  return options.staleness < 0 ? 1 : options.staleness;
}

/// The workers' interface with whole batches: what the data source reads.
Interface wholeBatch(const Interface &worker, int64_t workers) {
  Interface whole = worker;
  for (TensorSpec &spec : whole.arguments)
    if (spec.role == Role::Input && spec.rank >= 1)
      spec.shape[0] *= workers;
  return whole;
}

void sleepMs(double ms) {
  if (ms > 0)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

//===----------------------------------------------------------------------===//
// Workers
//===----------------------------------------------------------------------===//

class Worker {
public:
  Worker(const Layout &layout, const TrainOptions &options, const Run &run,
         const char *argv0, int64_t index)
      : layout(layout), model(*layout.worker), options(options), job(run),
        argv0(argv0), index(index),
        whole(wholeBatch(model, layout.workers)),
        buffers(model.arguments.size() + model.outputs.size()),
        batches(model.arguments.size()) {}

  bool prepare(std::string &error) {
    if (job.resumed) {
      for (const TensorSpec *spec : model.withRole(Role::Param))
        if (!copyTensor(job.resumedTensor(spec->name), spec->bytes(),
                        &buffers.pointers[spec - model.arguments.data()],
                        spec->name, error))
          return false;
    } else if (!loadParams(model, weightsPath(options.weights, argv0),
                           buffers.pointers, error)) {
      return false;
    }
    // Worker 0 writes the checkpoints: their directory now.
    if (index == 0 && !options.ckpt.empty() &&
        !makeDirectories(options.ckpt, error))
      return false;
    for (size_t i = 0; i < buffers.pointers.size(); ++i) {
      if (buffers.pointers[i])
        continue;
      const TensorSpec &spec =
          i < model.arguments.size()
              ? model.arguments[i]
              : model.outputs[i - model.arguments.size()];
      if (!(buffers.pointers[i] = distrt_alloc(kHost, spec.bytes()))) {
        error = "'" + spec.name + "': " + distrt_last_error();
        return false;
      }
      if (spec.role == Role::Input &&
          !(batches.pointers[i] = distrt_alloc(
                kHost, spec.bytes() * static_cast<size_t>(layout.workers)))) {
        error = "'" + spec.name + "': " + distrt_last_error();
        return false;
      }
    }
    return openDataSource(whole, options,
                          job.resumed ? &job.resumed->manifest.data : nullptr,
                          data, error);
  }

  /// Hierarchical mode: this worker's host leader and, for a leader, the
  /// others of its host (found by host name).
  void findHost() {
    char name[256] = {};
    ::gethostname(name, sizeof(name) - 1);
    std::vector<std::string> hosts(layout.workers);
    hosts[index] = name;
    // Every worker learns every worker's host, through worker 0.
    if (index != 0) {
      distrt_send(DISTRT_U8, name, sizeof(name), 0, kHostTag);
      std::vector<char> all(sizeof(name) * layout.workers);
      distrt_recv(DISTRT_U8, all.data(), static_cast<int64_t>(all.size()), 0,
                  kHostTag);
      for (int64_t w = 0; w < layout.workers; ++w)
        hosts[w] = std::string(all.data() + w * sizeof(name));
    } else {
      std::vector<char> all(sizeof(name) * layout.workers);
      std::memcpy(all.data(), name, sizeof(name));
      for (int64_t w = 1; w < layout.workers; ++w) {
        distrt_recv(DISTRT_U8, all.data() + w * sizeof(name), sizeof(name),
                    static_cast<int32_t>(w), kHostTag);
        hosts[w] = std::string(all.data() + w * sizeof(name));
      }
      for (int64_t w = 1; w < layout.workers; ++w)
        distrt_send(DISTRT_U8, all.data(), static_cast<int64_t>(all.size()),
                    static_cast<int32_t>(w), kHostTag);
    }
    leader = index;
    for (int64_t w = 0; w < layout.workers; ++w)
      if (hosts[w] == hosts[index]) {
        leader = std::min(leader, w);
        if (w != index)
          members.push_back(w);
      }
    if (leader != index)
      members.clear();
  }

  void run() {
    leader = index;
    if (options.hierarchical)
      findHost();
    int64_t slow = options.stragglerRank >= 0 ? options.stragglerRank
                                              : layout.workers - 1;
    bool straggler = options.stragglerDelayMs > 0 && slow == index;
    std::vector<std::vector<char>> push(layout.servers), pull(layout.servers);
    // Top-k's error feedback: what each gradient's pushes left out.
    std::vector<std::vector<std::vector<float>>> residuals(layout.servers);
    for (int64_t s = 0; s < layout.servers; ++s) {
      push[s].resize(layout.pushBytes(s));
      pull[s].resize(layout.pullBytes(s));
      for (const Owned &o : layout.owned[s])
        residuals[s].emplace_back(
            layout.codec.kind == PushCodec::TopK ? o.elements : 0, 0.0f);
    }
    int64_t version = 0;
    bool stop = false;
    size_t outputs = model.arguments.size();
    // Synchronous: --steps steps. Asynchronous: until the servers say
    // stop (after W x --steps updates from whichever workers).
    bool async = stalenessBound(options) > 0;
    for (int64_t step = job.firstStep; async || step <= options.steps;
         ++step) {
      data->next(step, batches.pointers);
      for (size_t i = 0; i < model.arguments.size(); ++i)
        if (batches.pointers[i]) {
          size_t bytes = model.arguments[i].bytes();
          std::memcpy(buffers.pointers[i],
                      static_cast<char *>(batches.pointers[i]) +
                          bytes * static_cast<size_t>(index),
                      bytes);
        }
      distrt_set_step(step);
      if (straggler)
        sleepMs(options.stragglerDelayMs);
      dist_model_forward(buffers.pointers.data());
      for (int64_t s = 0; s < layout.servers; ++s) {
        char *at = push[s].data();
        std::memcpy(at, buffers.pointers[outputs], sizeof(float));
        at += sizeof(float);
        for (size_t i = 0; i < layout.owned[s].size(); ++i) {
          const Owned &o = layout.owned[s][i];
          layout.codec.encode(
              static_cast<const float *>(
                  buffers.pointers[outputs + o.workerGrad]),
              o.elements, residuals[s][i].data(), at);
          at += o.encoded;
        }
      }
      int64_t count = 1;
      if (leader != index) {
        // A host's other worker: its leader pushes for it.
        for (int64_t s = 0; s < layout.servers; ++s)
          distrt_send(DISTRT_U8, push[s].data(),
                      static_cast<int64_t>(push[s].size()),
                      static_cast<int32_t>(leader), kPushTag);
      } else {
        // A leader adds its host's gradients, in worker order.
        for (int64_t member : members) {
          std::vector<char> other;
          for (int64_t s = 0; s < layout.servers; ++s) {
            other.resize(push[s].size());
            distrt_recv(DISTRT_U8, other.data(),
                        static_cast<int64_t>(other.size()),
                        static_cast<int32_t>(member), kPushTag);
            float *to = reinterpret_cast<float *>(push[s].data());
            const float *from = reinterpret_cast<const float *>(other.data());
            for (size_t e = 0; e < push[s].size() / sizeof(float); ++e)
              to[e] += from[e];
          }
          ++count;
        }
        int64_t announce[3] = {index, version, count};
        distrt_send(DISTRT_I64, announce, 3,
                    static_cast<int32_t>(layout.workers), kAnnounceTag);
        for (int64_t s = 0; s < layout.servers; ++s)
          distrt_send(DISTRT_U8, push[s].data(),
                      static_cast<int64_t>(push[s].size()),
                      static_cast<int32_t>(layout.workers + s), kPushTag);
      }
      // Synchronous runs stop together after a step on SIGINT/SIGTERM
      // (saving it with --ckpt); asynchronous ones do not catch them.
      int32_t signal = async ? 0 : stopSignal();
      bool interrupted = signal && step < options.steps;
      if ((job.saveDue(options, step) ||
           (interrupted && !options.ckpt.empty())) &&
          !save(step))
        return;
      if (interrupted) {
        stopped = signal;
        if (index == 0)
          fail(interruptedText(options, signal, step));
        return;
      }
      if (!async && step == options.steps)
        return; // no parameters after the last push
      for (int64_t s = 0; s < layout.servers; ++s) {
        if (leader == index) {
          distrt_recv(DISTRT_U8, pull[s].data(),
                      static_cast<int64_t>(pull[s].size()),
                      static_cast<int32_t>(layout.workers + s), kPullTag);
          for (int64_t member : members)
            distrt_send(DISTRT_U8, pull[s].data(),
                        static_cast<int64_t>(pull[s].size()),
                        static_cast<int32_t>(member), kPullTag);
        } else {
          distrt_recv(DISTRT_U8, pull[s].data(),
                      static_cast<int64_t>(pull[s].size()),
                      static_cast<int32_t>(leader), kPullTag);
        }
        const char *at = pull[s].data();
        std::memcpy(&version, at, sizeof(version));
        if (version < 0)
          stop = true; // every server says so
        at += sizeof(int64_t);
        for (const Owned &o : layout.owned[s]) {
          std::memcpy(buffers.pointers[o.workerParam], at, o.bytes);
          at += o.bytes;
        }
      }
      if (stop)
        return;
    }
  }

  /// The checkpoint after `step` (synchronous runs): worker 0 receives
  /// each server's parameters and state and writes it; then every process
  /// learns whether it did. False when it failed (the run stops).
  bool save(int64_t step) {
    std::string error;
    bool ok = true;
    if (index == 0) {
      const Interface &ckpt = job.checkpoint;
      std::vector<void *> pointers(ckpt.arguments.size(), nullptr);
      std::vector<std::vector<char>> received(layout.servers);
      for (const TensorSpec *spec : ckpt.withRole(Role::Param))
        pointers[spec - ckpt.arguments.data()] =
            buffers.pointers[argumentIndex(model, spec->name)];
      for (int64_t s = 0; s < layout.servers; ++s) {
        const Interface &server = layout.server[s];
        size_t bytes = 0;
        for (const TensorSpec *spec : server.withRole(Role::Param))
          bytes += spec->bytes();
        for (const TensorSpec *spec : server.withRole(Role::State))
          bytes += spec->bytes();
        received[s].resize(bytes);
        distrt_recv(DISTRT_U8, received[s].data(),
                    static_cast<int64_t>(bytes),
                    static_cast<int32_t>(layout.workers + s), kSaveTag);
        char *at = received[s].data();
        for (Role role : {Role::Param, Role::State})
          for (const TensorSpec *spec : server.withRole(role)) {
            pointers[argumentIndex(ckpt, spec->name)] = at;
            at += spec->bytes();
          }
      }
      ok = saveCheckpoint(options.ckpt, ckpt, pointers, step, job.seed,
                          job.hparams, data->state(), error);
      if (!ok)
        fail(error);
    }
    failed = !everyRank(ok, error);
    return !failed;
  }

  /// Whether the last save failed (every process knows, and stops).
  bool failed = false;
  /// The signal the run stopped for (SIGINT, SIGTERM), or 0.
  int32_t stopped = 0;

private:
  const Layout &layout;
  const Interface &model;
  const TrainOptions &options;
  const Run &job;
  const char *argv0;
  int64_t index;
  Interface whole; // whole batches, for the data source
  HostBuffers buffers;
  HostBuffers batches; // whole batches of the inputs; null for the others
  std::unique_ptr<DataSource> data;
  int64_t leader = -1;          // this worker's host leader (itself if none)
  std::vector<int64_t> members; // a leader's other workers
};

//===----------------------------------------------------------------------===//
// Servers
//===----------------------------------------------------------------------===//

/// The worker order of a previous run's --log-json: each line's "worker".
bool readReplay(const std::string &path, std::vector<int64_t> &order,
                int64_t workers, std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = "--replay " + path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    json::Value value;
    std::string why;
    uint64_t worker;
    const json::Value *field = nullptr;
    if (!json::parse(line, value, why) || !(field = value.find("worker")) ||
        !field->asUint64(worker) || worker >= static_cast<uint64_t>(workers)) {
      error = "--replay " + path + ":" + std::to_string(n) +
              ": not an update line of an asynchronous run with " +
              std::to_string(workers) + " workers (no \"worker\" of 0 to " +
              std::to_string(workers - 1) + ")" +
              (why.empty() ? "" : ": " + why);
      return false;
    }
    order.push_back(static_cast<int64_t>(worker));
  }
  return true;
}

class Server {
public:
  Server(const Layout &layout, const TrainOptions &options, const Run &run,
         const char *argv0, int64_t index)
      : layout(layout), model(layout.server[index]), options(options),
        job(run), argv0(argv0), index(index),
        buffers(model.arguments.size() + model.outputs.size()) {}

  bool prepare(std::string &error) {
    if (job.resumed) {
      for (Role role : {Role::Param, Role::State})
        for (const TensorSpec *spec : model.withRole(role))
          if (!copyTensor(job.resumedTensor(spec->name), spec->bytes(),
                          &buffers.pointers[spec - model.arguments.data()],
                          spec->name, error))
            return false;
    } else if (!loadParams(model, weightsPath(options.weights, argv0),
                           buffers.pointers, error, /*share=*/true)) {
      return false;
    }
    version = job.firstStep - 1;
    for (size_t i = 0; i < buffers.pointers.size(); ++i) {
      if (buffers.pointers[i])
        continue;
      const TensorSpec &spec =
          i < model.arguments.size()
              ? model.arguments[i]
              : model.outputs[i - model.arguments.size()];
      if (!(buffers.pointers[i] = distrt_alloc(kHost, spec.bytes()))) {
        error = "'" + spec.name + "': " + distrt_last_error();
        return false;
      }
      std::memset(buffers.pointers[i], 0, spec.bytes());
      if (spec.role == Role::State && spec.init != 0) {
        for (int64_t e = 0; e < spec.elements(); ++e) {
          if (spec.dtype == DISTRT_F32)
            static_cast<float *>(buffers.pointers[i])[e] =
                static_cast<float>(spec.init);
          else
            static_cast<double *>(buffers.pointers[i])[e] = spec.init;
        }
      }
      if (spec.role == Role::Step)
        stepIndex = static_cast<long>(i);
      if (spec.role == Role::Hparam)
        *static_cast<double *>(buffers.pointers[i]) =
            *findHparam(job.hparams, spec.name);
    }
    lossIndex = argumentIndex(model, "loss");
    othersIndex = argumentIndex(model, "others_grad_sq");
    if (stepIndex < 0 || lossIndex == model.arguments.size() ||
        othersIndex == model.arguments.size()) {
      error = "internal: server " + std::to_string(index) +
              "'s program lacks its step, loss or others_grad_sq";
      return false;
    }
    if (index == 0 && !options.replay.empty() &&
        !readReplay(options.replay, replay, layout.workers, error))
      return false;
    if (index == 0 && !options.logJson.empty() &&
        !(log = std::fopen(options.logJson.c_str(), job.resumed ? "a" : "w"))) {
      error = options.logJson + ": cannot open: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  ~Server() {
    if (log)
      std::fclose(log);
  }

  void run() {
    incoming.resize(layout.pushBytes(index));
    staleness = stalenessBound(options);
    start = distrt_now_ns();
    if (staleness > 0)
      runAsync();
    else
      runSync();
    if (index == 0 && !stopped && !failed)
      summary();
  }

private:
  const Layout &layout;
  const Interface &model;
  const TrainOptions &options;
  const Run &job;
  const char *argv0;
  int64_t index;
  HostBuffers buffers;
  long stepIndex = -1;
  size_t lossIndex = 0, othersIndex = 0;
  std::vector<char> incoming;
  std::vector<int64_t> replay;
  FILE *log = nullptr;
  int64_t staleness = 0, version = 0;
  uint64_t start = 0, last = 0;
  int64_t stalenessSum = 0, stalenessMax = 0;

  int32_t serverRank(int64_t s) const {
    return static_cast<int32_t>(layout.workers + s);
  }

  /// Receives worker `w`'s push; adds it to the gradient inputs (or
  /// replaces them, `first`). Returns its loss.
  float receivePush(int64_t w, bool first) {
    distrt_recv(DISTRT_U8, incoming.data(),
                static_cast<int64_t>(incoming.size()),
                static_cast<int32_t>(w), kPushTag);
    const char *at = incoming.data() + sizeof(float);
    for (const Owned &o : layout.owned[index]) {
      layout.codec.decodeAdd(
          at, o.elements, static_cast<float *>(buffers.pointers[o.serverGrad]),
          first);
      at += o.encoded;
    }
    float loss;
    std::memcpy(&loss, incoming.data(), sizeof(float));
    return loss;
  }

  /// Multiplies the gradient inputs by `factor`.
  void scaleGradients(float factor) {
    for (const Owned &o : layout.owned[index]) {
      float *g = static_cast<float *>(buffers.pointers[o.serverGrad]);
      for (size_t e = 0; e < o.bytes / sizeof(float); ++e)
        g[e] *= factor;
    }
  }

  /// The update: the others' squared gradients, then this server's step.
  /// Returns the step's outputs (loss, grad norm, lr) on server 0.
  StepResult apply(float loss) {
    double own = 0;
    for (const Owned &o : layout.owned[index]) {
      const float *g = static_cast<const float *>(buffers.pointers[o.serverGrad]);
      for (size_t e = 0; e < o.bytes / sizeof(float); ++e)
        own += static_cast<double>(g[e]) * g[e];
    }
    std::vector<double> squares(layout.servers, 0);
    squares[index] = own;
    for (int64_t s = 0; s < layout.servers; ++s)
      if (s != index)
        distrt_send(DISTRT_F64, &own, 1, serverRank(s), kSquaresTag);
    for (int64_t s = 0; s < layout.servers; ++s)
      if (s != index)
        distrt_recv(DISTRT_F64, &squares[s], 1, serverRank(s), kSquaresTag);
    double others = 0;
    for (int64_t s = 0; s < layout.servers; ++s)
      if (s != index)
        others += squares[s];
    *static_cast<float *>(buffers.pointers[lossIndex]) = loss;
    *static_cast<float *>(buffers.pointers[othersIndex]) =
        static_cast<float>(others);
    *static_cast<int64_t *>(buffers.pointers[stepIndex]) = ++version;
    distrt_set_step(version);
    layout.update[index](buffers.pointers.data());
    size_t out = model.arguments.size();
    StepResult result;
    result.step = version;
    result.loss = *static_cast<const float *>(buffers.pointers[out]);
    result.gradNorm = *static_cast<const float *>(buffers.pointers[out + 1]);
    result.lr = *static_cast<const float *>(buffers.pointers[out + 2]);
    uint64_t now = distrt_now_ns();
    result.ms = static_cast<double>(now - (last ? last : start)) * 1e-6;
    last = now;
    return result;
  }

  /// Sends worker 0 (which writes the checkpoint) this server's
  /// parameters and state; false when the save failed.
  bool save() {
    std::vector<char> message;
    for (Role role : {Role::Param, Role::State})
      for (const TensorSpec *spec : model.withRole(role)) {
        const char *at = static_cast<const char *>(
            buffers.pointers[spec - model.arguments.data()]);
        message.insert(message.end(), at, at + spec->bytes());
      }
    distrt_send(DISTRT_U8, message.data(),
                static_cast<int64_t>(message.size()), 0, kSaveTag);
    std::string error;
    failed = !everyRank(true, error);
    return !failed;
  }

public:
  /// Whether a checkpoint could not be written (the run stopped).
  bool failed = false;
  /// The signal the run stopped for (SIGINT, SIGTERM), or 0.
  int32_t stopped = 0;

private:

  /// Sends worker `w` this server's parameters and the version (-1 with
  /// `stop`: the worker stops).
  void reply(int64_t w, bool stop = false) {
    std::vector<char> message(layout.pullBytes(index));
    char *at = message.data();
    int64_t header = stop ? -1 : version;
    std::memcpy(at, &header, sizeof(header));
    at += sizeof(version);
    for (const Owned &o : layout.owned[index]) {
      std::memcpy(at, buffers.pointers[o.serverParam], o.bytes);
      at += o.bytes;
    }
    distrt_send(DISTRT_U8, message.data(),
                static_cast<int64_t>(message.size()), static_cast<int32_t>(w),
                kPullTag);
  }

  /// Server 0: prints and logs an update; ends the job on a non-finite
  /// loss or grad norm (with `extra` JSON fields for asynchronous updates).
  void report(const StepResult &result, const std::string &extra) {
    int64_t unitPerStep;
    Interface whole = wholeBatch(*layout.worker, layout.workers);
    const char *unit = throughputUnit(whole, unitPerStep);
    if (staleness > 0)
      unitPerStep /= layout.workers;
    std::string line = stepLine(result, unit, unitPerStep, peakMemoryMiB());
    std::printf("%s%s\n", line.c_str(), extra.empty() ? "" : extra.c_str());
    std::fflush(stdout);
    if (log) {
      std::string json = stepJson(result);
      if (!extra.empty())
        json = json.substr(0, json.size() - 1) + jsonExtra + "}";
      std::fprintf(log, "%s\n", json.c_str());
      std::fflush(log);
    }
    if (!std::isfinite(result.loss) || !std::isfinite(result.gradNorm)) {
      std::fflush(stdout);
      std::fprintf(stderr,
                   "error: update %lld: the loss or grad norm is not finite; "
                   "the run diverged; lower the learning rate (--lr), or "
                   "clip gradients with --max-grad-norm\n",
                   static_cast<long long>(result.step));
      std::fflush(stderr);
      distrt_comm_abort(3);
    }
  }
  std::string jsonExtra;

  void runSync() {
    // Every worker pushes, in worker order; with --ps-hierarchical only the
    // host leaders do (server 0 learns which from their announces, each
    // saying how many workers' gradients its push holds, and tells the
    // other servers), and the sum still runs in worker order.
    std::vector<int64_t> pushers;
    for (int64_t w = 0; w < layout.workers; ++w)
      pushers.push_back(w);
    for (int64_t step = job.firstStep; step <= options.steps; ++step) {
      if (options.hierarchical && index == 0) {
        pushers.clear();
        for (int64_t counted = 0; counted < layout.workers;) {
          int64_t announce[3];
          pushers.push_back(
              distrt_recv_any(DISTRT_I64, announce, 3, kAnnounceTag));
          counted += announce[2];
        }
        std::sort(pushers.begin(), pushers.end());
        int64_t n = static_cast<int64_t>(pushers.size());
        for (int64_t s = 1; s < layout.servers; ++s) {
          distrt_send(DISTRT_I64, &n, 1, serverRank(s), kOrderTag);
          distrt_send(DISTRT_I64, pushers.data(), n, serverRank(s),
                      kOrderTag);
        }
      } else if (options.hierarchical) {
        int64_t n;
        distrt_recv(DISTRT_I64, &n, 1, serverRank(0), kOrderTag);
        pushers.resize(n);
        distrt_recv(DISTRT_I64, pushers.data(), n, serverRank(0), kOrderTag);
      } else if (index == 0) {
        for (int64_t w : pushers) {
          int64_t announce[3];
          distrt_recv(DISTRT_I64, announce, 3, static_cast<int32_t>(w),
                      kAnnounceTag);
        }
      }
      float loss = 0;
      for (size_t k = 0; k < pushers.size(); ++k)
        loss += receivePush(pushers[k], k == 0);
      float mean = static_cast<float>(1.0 / static_cast<double>(layout.workers));
      scaleGradients(mean);
      StepResult result = apply(loss * mean);
      if (index == 0)
        report(result, "");
      int32_t signal = stopSignal();
      bool interrupted = signal && step < options.steps;
      if ((job.saveDue(options, step) ||
           (interrupted && !options.ckpt.empty())) &&
          !save())
        return;
      if (interrupted) {
        stopped = signal;
        return;
      }
      if (step < options.steps)
        for (int64_t w : pushers)
          reply(w);
    }
  }

  /// Asynchronous updates. The budget is the synchronous run's samples:
  /// W x --steps pushes, from whichever workers make them (a slow worker
  /// makes fewer). Then every worker is told to stop, the pushes under way
  /// received and dropped first.
  void runAsync() {
    int64_t total = layout.workers * options.steps;
    if (index == 0 && !replay.empty() &&
        static_cast<int64_t>(replay.size()) < total) {
      fail("--replay " + options.replay + " holds " +
           std::to_string(replay.size()) + " updates; this run makes " +
           std::to_string(total) + " (--steps " +
           std::to_string(options.steps) + " of " +
           std::to_string(layout.workers) + " workers)");
      distrt_comm_abort(1);
    }
    if (index != 0)
      return followOrders();
    // Per worker: its pushes applied (its clock), and whether it waits for
    // parameters (its push applied, the reply held back by the bound).
    std::vector<int64_t> clock(layout.workers, 0);
    std::vector<bool> waiting(layout.workers, false);
    auto order = [&](int64_t kind, int64_t w) {
      int64_t message[2] = {kind, w};
      for (int64_t s = 1; s < layout.servers; ++s)
        distrt_send(DISTRT_I64, message, 2, serverRank(s), kOrderTag);
    };
    for (int64_t applied = 0; applied < total; ++applied) {
      int64_t announce[3];
      int64_t w;
      if (!replay.empty()) {
        w = replay[applied];
        distrt_recv(DISTRT_I64, announce, 3, static_cast<int32_t>(w),
                    kAnnounceTag);
      } else {
        w = distrt_recv_any(DISTRT_I64, announce, 3, kAnnounceTag);
      }
      order(kApply, w);
      float loss = receivePush(w, true);
      int64_t before = version;
      StepResult result = apply(loss);
      int64_t stale = before - announce[1];
      stalenessSum += stale;
      stalenessMax = std::max(stalenessMax, stale);
      jsonExtra = ", \"worker\": " + std::to_string(w) +
                  ", \"computed_on\": " + std::to_string(announce[1]) +
                  ", \"staleness\": " + std::to_string(stale);
      report(result, " | worker " + std::to_string(w) + " | staleness " +
                         std::to_string(stale));
      ++clock[w];
      waiting[w] = true;
      if (applied + 1 == total)
        break;
      // Stale synchronous parallel: a worker starts its next step only
      // while at most `staleness` steps ahead of the slowest.
      int64_t slowest = *std::min_element(clock.begin(), clock.end());
      for (int64_t v = 0; v < layout.workers; ++v)
        if (waiting[v] && clock[v] - slowest <= staleness) {
          waiting[v] = false;
          order(kReply, v);
          reply(v);
        }
    }
    // The budget is spent: the workers still computing push once more
    // (dropped); then each is told to stop.
    for (int64_t w = 0; w < layout.workers; ++w) {
      if (!waiting[w]) {
        int64_t announce[3];
        distrt_recv(DISTRT_I64, announce, 3, static_cast<int32_t>(w),
                    kAnnounceTag);
        order(kDrop, w);
        receivePush(w, true);
      }
      order(kStopWorker, w);
      reply(w, /*stop=*/true);
    }
    order(kStop, 0);
  }

  /// The servers but the first, in asynchronous mode: server 0's orders.
  void followOrders() {
    for (;;) {
      int64_t message[2];
      distrt_recv(DISTRT_I64, message, 2, serverRank(0), kOrderTag);
      switch (message[0]) {
      case kStop:
        return;
      case kApply:
        apply(receivePush(message[1], true));
        break;
      case kDrop:
        receivePush(message[1], true);
        break;
      case kReply:
      case kStopWorker:
        reply(message[1], message[0] == kStopWorker);
        break;
      }
    }
  }

  void summary() {
    double seconds = static_cast<double>(distrt_now_ns() - start) * 1e-9;
    int64_t perStep;
    const char *unit =
        throughputUnit(wholeBatch(*layout.worker, layout.workers), perStep);
    double processed =
        static_cast<double>(perStep * (options.steps - job.firstStep + 1));
    int64_t updates = version - (job.firstStep - 1);
    std::printf("parameter servers: %lld updates from %lld workers in "
                "%.3f s: %.1f %s/s",
                static_cast<long long>(updates),
                static_cast<long long>(layout.workers), seconds,
                processed / seconds, unit);
    if (staleness > 0)
      std::printf(", staleness (updates since a gradient's parameters) mean "
                  "%.2f max %lld, workers at most %lld steps apart",
                  static_cast<double>(stalenessSum) /
                      static_cast<double>(std::max<int64_t>(updates, 1)),
                  static_cast<long long>(stalenessMax),
                  static_cast<long long>(staleness));
    std::printf("\n");
    std::fflush(stdout);
  }
};

} // namespace

bool isParameterServerProgram() {
  return &dist_ps_workers != nullptr && &dist_ps_servers != nullptr &&
         dist_ps_server != nullptr;
}

/// Where the run starts and with which hyperparameters: a fresh run, or
/// --resume's checkpoint (checked against the model). Every process reads
/// the checkpoint itself.
bool startRun(const Layout &layout, const TrainOptions &options, Run &run,
              std::string &error) {
  run.checkpoint =
      checkpointModel(*layout.worker, layout.workers, layout.server);
  run.seed = options.seed;
  std::string existing;
  if (options.resume.empty() && !options.ckpt.empty() &&
      !(existing = newestCheckpoint(options.ckpt)).empty()) {
    error = "--ckpt " + options.ckpt + " already holds checkpoints (" +
            existing + "); continue them with --resume " + options.ckpt +
            ", or write elsewhere";
    return false;
  }
  if (!options.resume.empty()) {
    run.resumed = std::make_unique<Resumed>(run.checkpoint.arguments.size());
    if (!readResume(options.resume, run.checkpoint, *run.resumed, error))
      return false;
    const Manifest &manifest = run.resumed->manifest;
    run.firstStep = static_cast<int64_t>(manifest.step) + 1;
    if (options.seedGiven && options.seed != manifest.seed) {
      error = "--seed " + std::to_string(options.seed) +
              " differs from the seed of the checkpoint " +
              run.resumed->checkpoint + " (" + std::to_string(manifest.seed) +
              "); leave --seed out to continue with it";
      return false;
    }
    run.seed = manifest.seed;
    if (options.steps < run.firstStep - 1) {
      error = "--steps " + std::to_string(options.steps) +
              " is before the checkpoint's step " +
              std::to_string(run.firstStep - 1) + " (" +
              run.resumed->checkpoint + ")";
      return false;
    }
  }
  for (const TensorSpec *spec : run.checkpoint.withRole(Role::Hparam)) {
    const double *given = findHparam(options.hparams, spec->name);
    const double *saved =
        run.resumed ? findHparam(run.resumed->manifest.hparams, spec->name)
                    : nullptr;
    run.hparams.emplace_back(spec->name, given   ? *given
                                         : saved ? *saved
                                                 : spec->hparamDefault);
  }
  return true;
}

int parameterServerMain(int argc, char **argv, const Interface &worker) {
  Layout layout;
  std::string message;
  if (!buildLayout(worker, layout, message))
    return fail(message);
  TrainOptions options;
  std::vector<std::string> hparams;
  for (const TensorSpec *spec : layout.server[0].withRole(Role::Hparam))
    hparams.push_back(spec->name);
  if (!parseTrainOptions(argc, argv, hparams, options, message))
    return fail(message + " (see --help)");
  if (options.help) {
    printHelp(argv[0], layout);
    return 0;
  }
  if (!checkOptions(options, layout, message))
    return fail(message);
  if (options.collectiveTimeout >= 0)
    distrt_set_collective_timeout(options.collectiveTimeout);
  int64_t ranks = layout.workers + layout.servers;
  if (distrt_comm_init(1, &ranks) != 0)
    return fail(std::string(distrt_last_error()) + " (" +
                std::to_string(layout.workers) + " workers and " +
                std::to_string(layout.servers) + " servers)");
  int64_t rank = distrt_comm_rank();
  if (options.stragglerDelayMs > 0 && options.stragglerRank >= layout.workers) {
    if (rank == 0)
      fail("--straggler-delay-ms: rank " +
           std::to_string(options.stragglerRank) +
           " is not a worker (ranks 0 to " +
           std::to_string(layout.workers - 1) + ")");
    return leaveMesh(1);
  }
  Run run;
  bool ok = startRun(layout, options, run, message);
  if (!everyRank(ok, message)) {
    if (!ok && rank == 0)
      fail(message);
    return leaveMesh(1);
  }
  if (run.firstStep > options.steps)
    return leaveMesh(0); // the checkpoint is at --steps already
  std::unique_ptr<Worker> asWorker;
  std::unique_ptr<Server> asServer;
  if (rank < layout.workers) {
    asWorker = std::make_unique<Worker>(layout, options, run, argv[0], rank);
    ok = asWorker->prepare(message);
  } else {
    asServer = std::make_unique<Server>(layout, options, run, argv[0],
                                        rank - layout.workers);
    ok = asServer->prepare(message);
  }
  if (!everyRank(ok, message)) {
    if (!ok)
      fail(message);
    return leaveMesh(1);
  }
  if (rank == 0)
    distrt_log(DISTRT_LOG_INFO,
               "parameter-server mode: %lld workers, %lld servers, %s",
               static_cast<long long>(layout.workers),
               static_cast<long long>(layout.servers),
               options.async ? "asynchronous" : "synchronous");
  // Synchronous runs stop after a step on SIGINT/SIGTERM.
  std::unique_ptr<StopSignals> signals;
  if (stalenessBound(options) == 0)
    signals = std::make_unique<StopSignals>();
  if (asWorker)
    asWorker->run();
  else
    asServer->run();
  if (asWorker ? asWorker->failed : asServer->failed)
    return leaveMesh(1); // a checkpoint could not be written (said above)
  if (int32_t signal = asWorker ? asWorker->stopped : asServer->stopped) {
    // Together, once worker 0 has said so: a process that ended first
    // would make mpirun end the others.
    distrt_barrier(kAllAxes & 1);
    return leaveMesh(128 + signal);
  }
  // Nobody leaves before every message is through.
  distrt_barrier(kAllAxes & 1);
  return leaveMesh(0);
}

} // namespace distrt::model
