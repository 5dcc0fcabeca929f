//===- TrainingStep.cpp - The training step and its distribution ---------===//
//
// Built with addPass from the options, so that what runs is exactly what
// --print-pipeline prints, and dist-opt reruns it from that text.
//
//===----------------------------------------------------------------------===//

#include "passes/Pipelines/TrainingStep.h"
#include "passes/Pipelines/PipelineSteps.h"

#include "passes/Sharding/Passes.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Prints `message` as the pipeline's error; failure.
LogicalResult reject(StringRef pipeline, const Twine &message) {
  llvm::errs() << "error: " << pipeline << ": " << message << "\n";
  return failure();
}

DistExplainPlanOptions explainOptions(const DistributeOptions &options) {
  DistExplainPlanOptions explain;
  explain.deviceSpec = options.deviceSpec;
  explain.function = options.function;
  explain.format = options.explainFormat;
  return explain;
}

} // namespace

std::string TrainingStepOptions::stepFunction() const {
  return gradientsOnly || parameterServers > 0 ? entry + "_grad"
                                               : std::string("train_step");
}

std::string TrainingStepOptions::serverFunction(int64_t k) {
  return "ps_server_" + std::to_string(k);
}

LogicalResult
mlir::dist::buildTrainingStepPipeline(OpPassManager &pm,
                                      const TrainingStepOptions &options) {
  std::string loss = options.loss;
  if (!options.crossEntropyOutput.empty()) {
    if (!loss.empty())
      return reject("dist-training-step",
                    "loss and cross-entropy-output exclude each other (the "
                    "added cross-entropy is the loss)");
    DistAddLossOptions add;
    add.function = options.entry;
    add.output = options.crossEntropyOutput;
    add.labels = options.crossEntropyLabels;
    pm.addPass(createDistAddLoss(add));
    loss = "loss";
  }
  if (!options.frozen.empty()) {
    DistFreezeParametersOptions freeze;
    freeze.patterns.assign(options.frozen.begin(), options.frozen.end());
    pm.addPass(createDistFreezeParameters(freeze));
  }
  if (options.precision != "fp32" && options.precision != "bf16" &&
      options.precision != "fp16")
    return reject("dist-training-step", "unknown precision '" +
                                            options.precision +
                                            "' (fp32, bf16 or fp16)");
  if (options.precision != "fp32") {
    DistMixedPrecisionOptions mixed;
    mixed.function = options.entry;
    mixed.precision = options.precision;
    pm.addPass(createDistMixedPrecision(mixed));
  }
  // After mixed precision: attention whose products it cast stays
  // decomposed (dist.attention computes in float32).
  if (options.fuseAttention)
    pm.addNestedPass<func::FuncOp>(createDistFuseAttention());
  if (options.lossScale != "none" && options.gradientsOnly)
    return reject("dist-training-step",
                  "loss-scale scales the backward of a training step; "
                  "gradients-only returns the gradients of the loss as is");
  if (options.pipelineStages < 0)
    return reject("dist-training-step", "pipeline-stages must be >= 0");
  if (options.pipelineStages > 0) {
    // Cut before autodiff: the backward of each op inherits its stage.
    DistPipelineSplitOptions split;
    split.function = options.entry;
    split.stages = options.pipelineStages;
    split.explain = options.explainStages;
    split.microbatches = options.pipelineMicrobatches;
    split.schedule = options.pipelineSchedule;
    split.stateSlots = options.optimizer == "adamw" ? 2
                       : options.momentum > 0   ? 1
                                                : 0;
    split.memoryLimitMib = options.stageMemoryLimit;
    pm.addPass(createDistPipelineSplit(split));
  }
  DistAutodiffOptions autodiff;
  autodiff.function = options.entry;
  autodiff.loss = loss;
  autodiff.lossScaleArgument = options.lossScale != "none";
  pm.addPass(createDistAutodiff(autodiff));
  if (options.parameterServers < 0 ||
      (options.parameterServers > 0 &&
       (options.gradientsOnly || options.lossScale != "none" ||
        options.gradCompression != "none" || options.pipelineStages > 0)))
    return reject("dist-training-step",
                  "parameter-servers takes a count >= 0, and excludes "
                  "gradients-only, loss-scale, grad-compression and "
                  "pipeline-stages");
  SmallVector<std::string> kept = {options.stepFunction()};
  for (int64_t k = 0; k < options.parameterServers; ++k) {
    DistParameterServerGradientsOptions server;
    server.function = options.entry + "_grad";
    server.output = "ps_grad_" + std::to_string(k);
    server.server = k;
    server.servers = options.parameterServers;
    pm.addPass(createDistParameterServerGradients(server));
  }
  // One update per server, or the training step's.
  SmallVector<std::pair<std::string, std::string>> updates;
  if (options.parameterServers > 0)
    for (int64_t k = 0; k < options.parameterServers; ++k) {
      std::string update = TrainingStepOptions::serverFunction(k);
      updates.push_back({"ps_grad_" + std::to_string(k), update});
      kept.push_back(update);
    }
  else if (!options.gradientsOnly)
    updates.push_back({options.entry + "_grad", "train_step"});
  for (auto &[from, to] : updates) {
    DistOptimizerOptions optimizer;
    optimizer.function = from;
    optimizer.stepFunction = to;
    if (options.parameterServers > 0)
      optimizer.extraGradSquares = "others_grad_sq";
    optimizer.optimizer = options.optimizer;
    optimizer.lr = options.lr;
    optimizer.momentum = options.momentum;
    optimizer.nesterov = options.nesterov;
    optimizer.weightDecay = options.weightDecay;
    optimizer.beta1 = options.beta1;
    optimizer.beta2 = options.beta2;
    optimizer.eps = options.eps;
    optimizer.maxGradNorm = options.maxGradNorm;
    optimizer.warmupSteps = options.warmupSteps;
    optimizer.decaySteps = options.decaySteps;
    optimizer.minLr = options.minLr;
    optimizer.lossScale = options.lossScale;
    optimizer.lossScaleValue = options.lossScaleValue;
    optimizer.lossScaleGrowthInterval = options.lossScaleGrowthInterval;
    optimizer.gradCompression = options.gradCompression;
    optimizer.dataParallelRanks = options.dataParallelRanks;
    pm.addPass(createDistOptimizer(optimizer));
  }
  // Only the step stays (with the servers' updates): the lowering
  // compiles one function (one per program).
  pm.addPass(createSymbolPrivatizePass(kept));
  pm.addPass(createSymbolDCEPass());
  return success();
}

LogicalResult
mlir::dist::buildDistributePipeline(OpPassManager &pm,
                                    const DistributeOptions &options) {
  constexpr StringLiteral name = "dist-distribute";
  if (options.remat != "none" && options.remat != "full" &&
      options.remat != "selective" && options.remat != "auto" &&
      options.remat != "cheap")
    return reject(name, "unknown remat '" + options.remat +
                            "' (none, full, selective, auto or cheap)");
  if (!std::isfinite(options.memoryBudget) || options.memoryBudget > 1e12)
    return reject(name, "memory-budget must be a finite number of MiB");
  if ((options.remat == "auto") != (options.memoryBudget > 0))
    return reject(name, options.remat == "auto"
                            ? "remat=auto needs memory-budget (MiB, > 0)"
                            : "memory-budget is for remat=auto");
  // Rematerialization comes last, on the per-rank step: the forward it
  // recomputes is the one that runs (with its collectives kept). With
  // pipeline stages it runs on the step of one micro-batch before the
  // schedule, which places each recomputation in its stage's backward slot.
  auto addRemat = [&] {
    if (options.remat == "none")
      return;
    DistRematOptions remat;
    remat.function = options.function;
    remat.mode = options.remat;
    remat.memoryBudget = options.memoryBudget;
    remat.explain = options.explain && options.explainFormat == "text";
    pm.addPass(createDistRemat(remat));
  };
  if (options.mesh.empty()) {
    if (!options.parallel.empty() || options.zero != 0)
      return reject(name, "parallel and zero split a step over a mesh: "
                          "give mesh too");
    addRemat();
    if (options.explain)
      pm.addPass(createDistExplainPlan(explainOptions(options)));
    return success();
  }
  if (options.parallel.size() != options.mesh.size())
    return reject(name, "parallel names " + Twine(options.parallel.size()) +
                            " kinds of parallelism for a mesh of " +
                            Twine(options.mesh.size()) +
                            " axes: one per axis, in order");
  for (StringRef kind : options.parallel) {
    if (kind != "dp" && kind != "tp" && kind != "pp")
      return reject(name, "unknown kind of parallelism '" + kind +
                              "' (dp: data parallel, tp: tensor parallel, "
                              "pp: pipeline stages)");
    if (llvm::count(options.parallel, kind) > 1)
      return reject(name, kind + " names more than one mesh axis");
  }
  if (options.zero < 0 || options.zero > 2)
    return reject(name,
                  "zero=" + Twine(options.zero) + ": the stage is 0, 1 or 2");
  auto dpAxis = llvm::find(options.parallel, "dp");
  auto tpAxis = llvm::find(options.parallel, "tp");
  auto ppAxis = llvm::find(options.parallel, "pp");
  bool dp = dpAxis != options.parallel.end();
  bool pp = ppAxis != options.parallel.end();
  if (pp && options.zero > 1)
    return reject(name, "zero=2 with pp: a stage accumulates each gradient "
                        "whole over its micro-batches; use zero=1 (each "
                        "stage's optimizer state split over dp)");
  if (options.microbatches < 1)
    return reject(name, "microbatches must be >= 1");
  if (options.schedule != "gpipe" && options.schedule != "1f1b" &&
      options.schedule != "interleaved")
    return reject(name, "schedule=" + options.schedule +
                            ": gpipe, 1f1b or interleaved");
  if ((options.schedule == "interleaved") != (options.virtualStages > 1) ||
      options.virtualStages < 1)
    return reject(name, "virtual-stages > 1 goes with schedule=interleaved, "
                        "and interleaved needs virtual-stages >= 2");
  if (options.zero > 0 && !dp)
    return reject(name, "zero splits optimizer state over the data-parallel "
                        "axis: add dp to parallel");
  if (options.bucketMb <= 0)
    return reject(name, "bucket-mb must be positive");
  if (options.reducePrecision != "compute" && options.reducePrecision != "fp32")
    return reject(name, "reduce-precision=" + options.reducePrecision +
                            ": compute or fp32");

  DistCreateMeshOptions mesh;
  mesh.shape.assign(options.mesh.begin(), options.mesh.end());
  pm.addPass(createDistCreateMesh(mesh));
  // Tensor parallelism annotates parameters first; data parallelism keeps
  // those and annotates the rest.
  if (tpAxis != options.parallel.end()) {
    DistTensorParallelOptions tp;
    tp.function = options.function;
    tp.axis = tpAxis - options.parallel.begin();
    pm.addPass(createDistTensorParallel(tp));
  }
  if (dp) {
    DistDataParallelOptions data;
    data.function = options.function;
    data.axis = dpAxis - options.parallel.begin();
    // With pipeline stages, ZeRO-1 splits each stage's state after the
    // schedule (dist-pipeline-zero): while the step is partitioned, the
    // data-parallel axis also holds the micro-batches.
    data.zero = pp ? 0 : options.zero;
    pm.addPass(createDistDataParallel(data));
  }
  if (pp) {
    DistPipelineMicrobatchOptions micro;
    micro.function = options.function;
    micro.microbatches = options.microbatches;
    pm.addPass(createDistPipelineMicrobatch(micro));
  }
  pm.addPass(createDistPropagateSharding());
  DistPartitionOptions partition;
  partition.reduceScatter = options.zero != 1;
  partition.reduceWidened = options.reducePrecision == "fp32";
  pm.addPass(createDistPartition(partition));
  // CSE merges the collectives partitioning repeats (the backward's softmax
  // recomputes the forward's all-reduced maximum), so buckets and the plan
  // see what runs.
  pm.addPass(createCSEPass());
  if (pp) {
    addRemat();
    DistPipelineScheduleOptions schedule;
    schedule.function = options.function;
    schedule.pipelineAxis = ppAxis - options.parallel.begin();
    schedule.schedule = options.schedule;
    schedule.virtualStages = options.virtualStages;
    pm.addPass(createDistPipelineSchedule(schedule));
    if (options.zero > 0) {
      DistPipelineZeroOptions zero;
      zero.axis = dpAxis - options.parallel.begin();
      pm.addPass(createDistPipelineZero(zero));
    }
  }
  if (options.overlap) {
    DistOverlapCollectivesOptions overlap;
    overlap.bucketMb = options.bucketMb;
    pm.addNestedPass<func::FuncOp>(createDistOverlapCollectives(overlap));
  }
  if (!pp)
    addRemat();
  if (options.explain)
    pm.addPass(createDistExplainPlan(explainOptions(options)));
  return success();
}

void mlir::dist::registerTrainingPipelines() {
  PassPipelineRegistration<TrainingStepOptions>(
      "dist-training-step",
      "Build the training step train_step from the model function: loss, "
      "frozen parameters, autodiff, optimizer; only the step stays",
      [](OpPassManager &pm, const TrainingStepOptions &options) {
        buildOrReject(pm, options, buildTrainingStepPipeline);
      });
  PassPipelineRegistration<DistributeOptions>(
      "dist-distribute",
      "Split the step over a device mesh: the mesh, tensor and data "
      "parallelism, propagation, partitioning, overlapped collectives",
      [](OpPassManager &pm, const DistributeOptions &options) {
        buildOrReject(pm, options, buildDistributePipeline);
      });
}
