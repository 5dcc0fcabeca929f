//===- ParameterServer.cpp - Parameter-server mode's run ------------------===//
//
// The command line, the checks, where the run starts (startRun), and each
// process's part: a worker (ranks 0..W-1) or a server (W..W+K-1);
// ParameterServerJob.h describes the messages between them.
//
//===----------------------------------------------------------------------===//

#include "ParameterServer.h"
#include "Checkpoint.h"
#include "Job.h"
#include "ParameterServerJob.h"
#include "StopSignals.h"

#include <cstdio>
#include <memory>

namespace distrt::model {

using namespace ps;

namespace {

void printHparams(const Layout &layout) {
  std::vector<const TensorSpec *> hparams =
      layout.server[0].withRole(Role::Hparam);
  if (!hparams.empty())
    std::printf("\nHyperparameters (run-time options, compiled defaults):\n");
  for (const TensorSpec *spec : hparams)
    std::printf("  %s %s\n", hparamFlag(spec->name).c_str(),
                numberText(spec->hparamDefault).c_str());
}

void printHelp(const char *argv0, const Layout &layout) {
  std::fputs(trainUsageText(argv0).c_str(), stdout);
  if (layout.allReduce) {
    std::printf(
        "\nasynchronous data parallelism (this program: %lld ranks; run it "
        "with\nmpirun -np %lld; each rank takes 1/%lld of the batch):\n"
        "  --staleness S            each step's update is applied S steps "
        "later: a\n"
        "                           step's gradient is at most S updates "
        "old, and a\n"
        "                           rank runs at most S steps ahead "
        "(default 1)\n"
        "  --sync sync              the same as --staleness 0: synchronous "
        "data\n"
        "                           parallelism\n",
        static_cast<long long>(layout.workers),
        static_cast<long long>(layout.workers),
        static_cast<long long>(layout.workers));
    printHparams(layout);
    return;
  }
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
  printHparams(layout);
}

/// The options parameter-server mode does not take yet.
bool checkOptions(const TrainOptions &options, const Layout &layout,
                  std::string &error) {
  if (layout.allReduce && options.hierarchical)
    error = "--ps-hierarchical groups a host's workers before the "
            "parameter servers; asynchronous data parallelism has no "
            "servers: drop it";
  else if (layout.allReduce && stalenessBound(options) > options.steps)
    error = "--staleness " + std::to_string(stalenessBound(options)) +
            " is more than --steps " + std::to_string(options.steps) +
            ": every update would wait until after the last step; give at "
            "most --steps (each step in flight holds a copy of the "
            "gradients)";
  else if (layout.allReduce && !options.replay.empty())
    error = "--replay reproduces the arrival order of an asynchronous "
            "parameter-server run; asynchronous data parallelism applies "
            "the updates in step order on every rank, so a run repeats bit "
            "for bit without it: drop --replay";
  else if (options.hierarchical && layout.codec.kind != PushCodec::Float32)
    error = "--ps-hierarchical with compressed pushes: a host leader would "
            "have to decode and compress its host's sum again; run this "
            "program without --ps-hierarchical (or compile it without "
            "--grad-compression)";
  else if (!layout.allReduce && stalenessBound(options) > 0 &&
           (!options.ckpt.empty() || !options.resume.empty()))
    error = "asynchronous parameter-server runs do not write or resume "
            "checkpoints yet (their workers are at different steps): drop "
            "--ckpt / --resume, or run synchronously";
  else if (layout.codec.kind == PushCodec::TopK &&
           (!options.ckpt.empty() || !options.resume.empty()))
    error = "checkpoints of a run with top-k pushes would not hold the "
            "residuals each worker keeps (a resumed run would not continue "
            "the same): drop --ckpt / --resume, or compile without "
            "--grad-compression=topk";
  else if (options.async && options.staleness == 0 && !options.replay.empty())
    error = "--staleness 0 is the synchronous run, which --replay does not "
            "change: drop --replay, or give the staleness of the run that "
            "wrote the log";
  else if (options.nan == NanPolicy::Skip)
    error = std::string(layout.allReduce ? "asynchronous data parallelism"
                                         : "parameter-server mode") +
            " stops at a non-finite loss or grad norm: drop --nan skip";
  else if (!options.trace.empty())
    error = std::string(layout.allReduce ? "asynchronous data parallelism"
                                         : "parameter-server mode") +
            " does not write traces yet: drop --trace";
  else
    return true;
  return false;
}

/// The --staleness of the asynchronous data-parallel run that wrote the
/// checkpoint `path` names (0: none pending); -1 if it cannot be read
/// (the resume says why).
int64_t savedStaleness(const std::string &path) {
  std::string dir, error;
  Manifest manifest;
  if (!findCheckpoint(path, dir, error) || !readManifest(dir, manifest, error))
    return -1;
  for (const TensorSpec &spec : manifest.state)
    if (spec.name == "async.pending")
      return spec.shape[0];
  return 0;
}

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
  if (layout.allReduce)
    addPendingUpdates(run.checkpoint, layout, stalenessBound(options));
  run.seed = options.seed;
  if (!checkFreshCheckpoints(options.ckpt, options.resume, error))
    return false;
  if (!options.resume.empty()) {
    run.resumed = std::make_unique<Resumed>(run.checkpoint.arguments.size());
    if (!readResume(options.resume, run.checkpoint, *run.resumed, error)) {
      // Asynchronous data parallelism: a checkpoint holds the S updates
      // pending, so it resumes with the same S.
      if (layout.allReduce && !run.resumed->manifest.state.empty()) {
        int64_t saved = savedStaleness(options.resume);
        if (saved >= 0 && saved != stalenessBound(options))
          error = run.resumed->checkpoint +
                  " holds the updates pending in a run with --staleness " +
                  std::to_string(saved) + ": resume it with --staleness " +
                  std::to_string(saved);
      }
      return false;
    }
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
  // Compiled with --sync=async: asynchronous unless --sync sync.
  options.async = layout.allReduce;
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
  int64_t ranks = layout.workers + (layout.allReduce ? 0 : layout.servers);
  if (distrt_comm_init(1, &ranks) != 0)
    return fail(std::string(distrt_last_error()) +
                (layout.allReduce
                     ? " (asynchronous data parallelism on " +
                           std::to_string(layout.workers) + " ranks)"
                     : " (" + std::to_string(layout.workers) +
                           " workers and " + std::to_string(layout.servers) +
                           " servers)"));
  int64_t rank = distrt_comm_rank();
  if (options.stragglerDelayMs > 0 && options.stragglerRank >= layout.workers) {
    if (rank == 0)
      fail("--straggler-delay-ms: rank " +
           std::to_string(options.stragglerRank) +
           (layout.allReduce ? " is not one of the job's " +
                                   std::to_string(layout.workers) + " ranks"
                             : std::string(" is not a worker")) +
           " (ranks 0 to " + std::to_string(layout.workers - 1) + ")");
    return leaveMesh(1);
  }
  // Asynchronous data parallelism resumes with the --staleness of its
  // checkpoint (whose pending updates are part of it) unless given.
  if (layout.allReduce && !options.resume.empty() && options.async &&
      options.staleness < 0)
    options.staleness = savedStaleness(options.resume);
  Run run;
  bool ok = startRun(layout, options, run, message);
  if (!everyRank(ok, message)) {
    if (!ok && rank == 0)
      fail(message);
    return leaveMesh(1);
  }
  if (run.firstStep > options.steps)
    return leaveMesh(0); // the checkpoint is at --steps already
  std::unique_ptr<Process> process =
      layout.allReduce ? makeAllReduceRank(layout, options, run, argv[0], rank)
      : rank < layout.workers
          ? makeWorker(layout, options, run, argv[0], rank)
          : makeServer(layout, options, run, argv[0], rank - layout.workers);
  ok = process->prepare(message);
  run.resumed.reset(); // the process has its tensors (and the data state)
  if (!everyRank(ok, message)) {
    if (!ok)
      fail(message);
    return leaveMesh(1);
  }
  if (rank == 0 && layout.allReduce)
    distrt_log(DISTRT_LOG_INFO,
               "data parallelism on %lld ranks, updates %lld steps late",
               static_cast<long long>(layout.workers),
               static_cast<long long>(stalenessBound(options)));
  else if (rank == 0)
    distrt_log(DISTRT_LOG_INFO,
               "parameter-server mode: %lld workers, %lld servers, %s",
               static_cast<long long>(layout.workers),
               static_cast<long long>(layout.servers),
               options.async ? "asynchronous" : "synchronous");
  // Synchronous runs (and every data-parallel one) stop after a step on
  // SIGINT/SIGTERM.
  std::unique_ptr<StopSignals> signals;
  if (stalenessBound(options) == 0 || layout.allReduce)
    signals = std::make_unique<StopSignals>();
  process->run();
  if (process->failed)
    return leaveMesh(1); // a checkpoint could not be written (said above)
  if (int32_t signal = process->stopped) {
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
