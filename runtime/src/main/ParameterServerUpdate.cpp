//===- ParameterServerUpdate.cpp - A server of parameter-server mode ------===//
//
// A server owns whole parameters and their optimizer state, and runs its
// compiled update (dist_ps_server) on the workers' pushes: synchronous, one
// update per step on their sum in worker order; asynchronous, one per push
// in the order server 0 takes them (as they arrive, or --replay's), under
// the clock bound. Server 0 prints the step lines and writes --log-json.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "DataSource.h"
#include "HostBuffers.h"
#include "Job.h"
#include "ParameterServerJob.h"
#include "StepLog.h"
#include "Weights.h"
#include "../core/Json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace distrt::model::ps {

namespace {

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

class Server : public Process {
public:
  Server(const Layout &layout, const TrainOptions &options, const Run &run,
         const char *argv0, int64_t index)
      : layout(layout), model(layout.server[index]), options(options),
        job(run), argv0(argv0), index(index),
        buffers(model.arguments.size() + model.outputs.size()) {}

  bool prepare(std::string &error) override {
    if (job.resumed) {
      if (!copyResumed(job, model, {Role::Param, Role::State},
                       buffers.pointers, error))
        return false;
    } else if (!loadParams(model, weightsPath(options.weights, argv0),
                           buffers.pointers, error, /*share=*/true) ||
               !initialState(model, buffers.pointers, error)) {
      return false;
    }
    if (!allocateOthers(model, buffers.pointers, error))
      return false;
    version = job.firstStep - 1;
    if (!bindUpdateArguments(model, job, buffers.pointers, args, error))
      return false;
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

  void run() override {
    // The throughput unit of an update: the whole batch, or one worker's
    // part of it when each update is one worker's push.
    unit = throughputUnit(wholeBatch(*layout.worker, layout.workers),
                          unitPerStep);
    if (stalenessBound(options) > 0)
      unitPerStep /= layout.workers;
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
  UpdateArguments args;
  std::vector<char> incoming, outgoing; // a push, a reply
  std::vector<int64_t> replay;
  FILE *log = nullptr;
  int64_t staleness = 0, version = 0;
  uint64_t start = 0, last = 0;
  int64_t stalenessSum = 0, stalenessMax = 0;
  /// The asynchronous update's fields of its --log-json line.
  std::string jsonExtra;
  const char *unit = "samples";
  int64_t unitPerStep = 1;

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
    *static_cast<float *>(buffers.pointers[args.loss]) = loss;
    *static_cast<float *>(buffers.pointers[args.others]) =
        static_cast<float>(others);
    *static_cast<int64_t *>(buffers.pointers[args.step]) = ++version;
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



  /// Sends worker `w` this server's parameters and the version (-1 with
  /// `stop`: the worker stops).
  void reply(int64_t w, bool stop = false) {
    std::vector<char> &message = outgoing;
    message.resize(layout.pullBytes(index));
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

  /// Server 0: prints and logs an update (with `extra` text and jsonExtra
  /// fields for asynchronous updates).
  void report(const StepResult &result, const std::string &extra) {
    reportUpdate(result, unit, unitPerStep, extra,
                 extra.empty() ? std::string() : jsonExtra, log);
  }

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
        if (waiting[w]) {
          // Its parameters are held back by the bound: it cannot push.
          fail("--replay " + options.replay + ": update " +
               std::to_string(applied + 1) + " is from worker " +
               std::to_string(w) + ", which --staleness " +
               std::to_string(staleness) +
               " holds back at that point: the log is of a run with "
               "another --staleness (or another log)");
          distrt_comm_abort(1);
        }
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
    std::printf("%s\n", staleness > 0
                            ? stalenessSummary(stalenessSum, stalenessMax,
                                               updates,
                                               ", workers at most " +
                                                   std::to_string(staleness) +
                                                   " steps apart")
                                  .c_str()
                            : "");
    std::fflush(stdout);
  }
};

} // namespace

std::unique_ptr<Process> makeServer(const Layout &layout,
                                    const TrainOptions &options,
                                    const Run &run, const char *argv0,
                                    int64_t index) {
  return std::make_unique<Server>(layout, options, run, argv0, index);
}

} // namespace distrt::model::ps
