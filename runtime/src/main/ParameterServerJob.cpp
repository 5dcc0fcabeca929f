//===- ParameterServerJob.cpp - What a parameter-server job shares --------===//

#include "ParameterServerJob.h"
#include "Checkpoint.h"
#include "HostBuffers.h"
#include "Job.h"
#include "StopSignals.h"

#include "StepLog.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <cstdio>
#include <cstring>

namespace distrt::model::ps {

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

size_t argumentIndex(const Interface &model, const std::string &name) {
  const TensorSpec *spec = model.findArgument(name);
  return spec ? static_cast<size_t>(spec - model.arguments.data())
              : model.arguments.size();
}

bool buildLayout(const Interface &worker, Layout &layout,
                 std::string &error) {
  layout.workers = dist_ps_workers;
  layout.servers = dist_ps_servers;
  layout.allReduce = &dist_ps_allreduce != nullptr && dist_ps_allreduce != 0;
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

WorkerData::WorkerData(const Interface &worker, int64_t workers,
                       int64_t index, const TrainOptions &options)
    : worker(worker), workers(workers), index(index), options(options),
      whole(wholeBatch(worker, workers)), batches(worker.arguments.size()) {}

bool WorkerData::open(const Run &run, std::string &error) {
  for (const TensorSpec *spec : worker.withRole(Role::Input))
    if (!(batches.pointers[spec - worker.arguments.data()] = distrt_alloc(
              kHost, spec->bytes() * static_cast<size_t>(workers)))) {
      error = "input '" + spec->name + "': " + distrt_last_error();
      return false;
    }
  return openDataSource(whole, options,
                        run.resumed ? &run.resumed->manifest.data : nullptr,
                        source, error);
}

void WorkerData::next(int64_t step, std::vector<void *> &pointers) {
  source->next(step, batches.pointers);
  for (size_t i = 0; i < worker.arguments.size(); ++i)
    if (batches.pointers[i]) {
      size_t bytes = worker.arguments[i].bytes();
      std::memcpy(pointers[i],
                  static_cast<char *>(batches.pointers[i]) +
                      bytes * static_cast<size_t>(index),
                  bytes);
    }
  if (stragglerSleeps(options, index, workers, step))
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(
        options.stragglerDelayMs));
}

bool copyResumed(const Run &run, const Interface &model,
                 std::initializer_list<Role> roles,
                 std::vector<void *> &pointers, std::string &error) {
  for (Role role : roles)
    for (const TensorSpec *spec : model.withRole(role))
      if (!copyTensor(run.resumedTensor(spec->name), spec->bytes(),
                      &pointers[spec - model.arguments.data()], spec->name,
                      error))
        return false;
  return true;
}

std::string stalenessSummary(int64_t sum, int64_t max, int64_t updates,
                             const std::string &bound) {
  char text[160];
  std::snprintf(text, sizeof(text),
                ", staleness (updates since a gradient's parameters) mean "
                "%.2f max %lld",
                static_cast<double>(sum) /
                    static_cast<double>(std::max<int64_t>(updates, 1)),
                static_cast<long long>(max));
  return text + bound;
}

bool bindUpdateArguments(const Interface &model, const Run &run,
                         std::vector<void *> &pointers, UpdateArguments &out,
                         std::string &error) {
  out.step = model.arguments.size();
  for (size_t i = 0; i < model.arguments.size(); ++i) {
    const TensorSpec &spec = model.arguments[i];
    if (spec.role == Role::Step)
      out.step = i;
    if (spec.role == Role::Hparam)
      *static_cast<double *>(pointers[i]) = *findHparam(run.hparams, spec.name);
  }
  out.loss = argumentIndex(model, "loss");
  out.others = argumentIndex(model, "others_grad_sq");
  if (out.step == model.arguments.size() ||
      out.loss == model.arguments.size() ||
      out.others == model.arguments.size()) {
    error = "internal: an update program lacks its step, loss or "
            "others_grad_sq";
    return false;
  }
  return true;
}

void reportUpdate(const StepResult &result, const char *unit,
                  int64_t unitPerStep, const std::string &text,
                  const std::string &json, FILE *log) {
  std::string line = stepLine(result, unit, unitPerStep, peakMemoryMiB());
  std::printf("%s%s\n", line.c_str(), text.c_str());
  std::fflush(stdout);
  if (log) {
    std::string record = stepJson(result);
    if (!json.empty())
      record = record.substr(0, record.size() - 1) + json + "}";
    std::fprintf(log, "%s\n", record.c_str());
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

} // namespace distrt::model::ps
