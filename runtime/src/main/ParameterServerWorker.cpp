//===- ParameterServerWorker.cpp - A worker of parameter-server mode ------===//
//
// Each step: the batch's rows of this worker, the gradient function, a
// push of each server's gradients (encoded), then the servers' new
// parameters (synchronous: after every step but the last; asynchronous:
// until the servers say stop). With --ps-hierarchical the lowest worker of
// each host sums its host's gradients and pushes for it.
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
#include <cstring>
#include <unistd.h>

namespace distrt::model::ps {

namespace {

//===----------------------------------------------------------------------===//
// Workers
//===----------------------------------------------------------------------===//

class Worker : public Process {
public:
  Worker(const Layout &layout, const TrainOptions &options, const Run &run,
         const char *argv0, int64_t index)
      : layout(layout), model(*layout.worker), options(options), job(run),
        argv0(argv0), index(index),
        buffers(model.arguments.size() + model.outputs.size()),
        data(model, layout.workers, index, options) {}

  bool prepare(std::string &error) override {
    if (job.resumed) {
      if (!copyResumed(job, model, {Role::Param}, buffers.pointers, error))
        return false;
    } else if (!loadParams(model, weightsPath(options.weights, argv0),
                           buffers.pointers, error)) {
      return false;
    }
    // Worker 0 writes the checkpoints: their directory now.
    if (index == 0 && !options.ckpt.empty() &&
        !makeDirectories(options.ckpt, error))
      return false;
    if (!allocateOthers(model, buffers.pointers, error))
      return false;
    return data.open(job, error);
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

  void run() override {
    leader = index;
    if (options.hierarchical)
      findHost();
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
    std::vector<char> other;     // a host member's push (hierarchical)
    TopKScratch scratch;         // top-k's selection
    int64_t version = 0;
    bool stop = false;
    size_t outputs = model.arguments.size();
    // Synchronous: --steps steps. Asynchronous: until the servers say
    // stop (after W x --steps updates from whichever workers).
    bool async = stalenessBound(options) > 0;
    for (int64_t step = job.firstStep; async || step <= options.steps;
         ++step) {
      data.next(step, buffers.pointers);
      distrt_set_step(step);
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
              o.elements, residuals[s][i].data(), scratch, at);
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
                          job.hparams, data.state(), error);
      if (!ok)
        fail(error);
    }
    failed = !everyRank(ok, error);
    return !failed;
  }


private:
  const Layout &layout;
  const Interface &model;
  const TrainOptions &options;
  const Run &job;
  const char *argv0;
  int64_t index;
  HostBuffers buffers;
  WorkerData data;
  int64_t leader = -1;          // this worker's host leader (itself if none)
  std::vector<int64_t> members; // a leader's other workers
};

} // namespace

std::unique_ptr<Process> makeWorker(const Layout &layout,
                                    const TrainOptions &options,
                                    const Run &run, const char *argv0,
                                    int64_t index) {
  return std::make_unique<Worker>(layout, options, run, argv0, index);
}

} // namespace distrt::model::ps
