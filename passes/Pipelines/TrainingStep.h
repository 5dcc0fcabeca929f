//===- TrainingStep.h - The training step and its distribution -*- C++ -*-===//
//
// Two registered pipelines, built with addPass from these options, that
// `dist-compile --train --mesh ...` runs before the lowering and prints
// with --print-pipeline:
//   dist-training-step: loss (optional), frozen parameters, autodiff,
//     optimizer; only the step function stays;
//   dist-distribute: the device mesh, tensor and data parallelism,
//     propagation, partitioning, overlapped collectives, the plan.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_PIPELINES_TRAININGSTEP_H
#define PASSES_PIPELINES_TRAININGSTEP_H

#include "mlir/Pass/PassManager.h"
#include "passes/ExactDouble.h"

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::dist {

struct TrainingStepOptions : public PassPipelineOptions<TrainingStepOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("The model function"),
                            llvm::cl::init("forward")};
  Option<std::string> loss{
      *this, "loss",
      llvm::cl::desc("The output to differentiate (empty: the one named "
                     "loss, or the only float scalar)"),
      llvm::cl::init("")};
  Option<std::string> crossEntropyOutput{
      *this, "cross-entropy-output",
      llvm::cl::desc("Add a mean cross-entropy over this output (classes "
                     "last) as the loss"),
      llvm::cl::init("")};
  Option<std::string> crossEntropyLabels{
      *this, "cross-entropy-labels",
      llvm::cl::desc("The new int64 input of that loss's labels"),
      llvm::cl::init("labels")};
  ListOption<std::string> frozen{
      *this, "frozen",
      llvm::cl::desc("Parameters not to train, as glob patterns of their "
                     "names")};
  Option<bool> gradientsOnly{
      *this, "gradients-only",
      llvm::cl::desc("Stop at the gradient function <entry>_grad (no "
                     "optimizer)"),
      llvm::cl::init(false)};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("sgd or adamw"),
                                llvm::cl::init("sgd")};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Fold float32 attention into dist.attention "
                     "(dist-fuse-attention) after mixed precision, which "
                     "leaves bf16/fp16 products decomposed"),
      llvm::cl::init(false)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("The compute type of matrix products and convolutions: "
                     "fp32, bf16 or fp16 (mixed precision; parameters, "
                     "gradients and optimizer state stay fp32)"),
      llvm::cl::init("fp32")};
  Option<std::string> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("none, dynamic (PyTorch's GradScaler) or static "
                     "(loss-scale-value)"),
      llvm::cl::init("none")};
  Option<ExactDouble> lossScaleValue{
      *this, "loss-scale-value",
      llvm::cl::desc("The static scale, or the dynamic scale's initial "
                     "value"),
      llvm::cl::init(65536.0)};
  Option<std::string> gradCompression{
      *this, "grad-compression",
      llvm::cl::desc("none, bf16, fp16, powersgd:R or topk:F: round each "
                     "float32 gradient to this type before the update reads "
                     "it (partitioning then sums it over the data-parallel "
                     "ranks in that type), or replace it by PowerSGD's "
                     "rank-R approximation or the sum of the ranks' top "
                     "fraction F of elements, with error feedback"),
      llvm::cl::init("none")};
  Option<int64_t> dataParallelRanks{
      *this, "data-parallel-ranks",
      llvm::cl::desc("The data-parallel ranks the step will be split over "
                     "(PowerSGD and top-k keep a residual per rank)"),
      llvm::cl::init(1)};
  Option<int64_t> lossScaleGrowthInterval{
      *this, "loss-scale-growth-interval",
      llvm::cl::desc("Dynamic scaling doubles the scale after this many "
                     "clean steps in a row"),
      llvm::cl::init(2000)};
  Option<ExactDouble> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                         llvm::cl::init(1e-3)};
  Option<ExactDouble> momentum{
      *this, "momentum", llvm::cl::desc("SGD momentum"), llvm::cl::init(0.0)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("SGD with Nesterov momentum"),
                        llvm::cl::init(false)};
  Option<ExactDouble> weightDecay{*this, "weight-decay",
                                  llvm::cl::desc("Weight decay (decoupled for "
                                                 "AdamW)"),
                                  llvm::cl::init(0.0)};
  Option<ExactDouble> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                            llvm::cl::init(0.9)};
  Option<ExactDouble> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                            llvm::cl::init(0.999)};
  Option<ExactDouble> eps{*this, "eps", llvm::cl::desc("AdamW epsilon"),
                          llvm::cl::init(1e-8)};
  Option<ExactDouble> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("Clip the global gradient norm "
                     "(0: off)"),
      llvm::cl::init(0.0)};
  Option<int64_t> warmupSteps{*this, "warmup-steps",
                              llvm::cl::desc("Linear warmup steps"),
                              llvm::cl::init(0)};
  Option<int64_t> decaySteps{*this, "decay-steps",
                             llvm::cl::desc("Step where cosine decay reaches "
                                            "min-lr (0: no decay)"),
                             llvm::cl::init(0)};
  Option<ExactDouble> minLr{*this, "min-lr",
                            llvm::cl::desc("Learning rate after the decay"),
                            llvm::cl::init(0.0)};
  Option<int64_t> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("Cut the forward into this many pipeline stages "
                     "(dist-pipeline-split) before autodiff; 0 or 1: none"),
      llvm::cl::init(0)};
  Option<int64_t> pipelineMicrobatches{
      *this, "pipeline-microbatches",
      llvm::cl::desc("With pipeline-stages: micro-batches per step (the "
                     "cut's memory estimate)"),
      llvm::cl::init(1)};
  Option<std::string> pipelineSchedule{
      *this, "pipeline-schedule",
      llvm::cl::desc("With pipeline-stages: gpipe, 1f1b or interleaved (the "
                     "cut's memory estimate)"),
      llvm::cl::init("1f1b")};
  Option<ExactDouble> stageMemoryLimit{
      *this, "stage-memory-limit",
      llvm::cl::desc("With pipeline-stages: MiB a stage may hold (0: no "
                     "limit)"),
      llvm::cl::init(0.0)};
  Option<bool> explainStages{
      *this, "explain-stages",
      llvm::cl::desc("With pipeline-stages: print the stages and their cuts"),
      llvm::cl::init(false)};

  Option<int64_t> parameterServers{
      *this, "parameter-servers",
      llvm::cl::desc("Parameter-server mode with this many servers (0: "
                     "none): keep the gradient function <entry>_grad (what "
                     "the workers run) and build each server's update "
                     "ps_server_<k> (dist-ps-server-gradients, then "
                     "dist-optimizer)"),
      llvm::cl::init(0)};

  /// The function the pipeline leaves: train_step, or <entry>_grad
  /// (gradients only, or the workers' function in parameter-server mode).
  std::string stepFunction() const;
  /// Parameter-server mode: the update of server `k`.
  static std::string serverFunction(int64_t k);
};

struct DistributeOptions : public PassPipelineOptions<DistributeOptions> {
  Option<std::string> function{*this, "function",
                               llvm::cl::desc("The step to distribute"),
                               llvm::cl::init("train_step")};
  ListOption<int64_t> mesh{
      *this, "mesh",
      llvm::cl::desc("The device count of each mesh axis, e.g. 2,2")};
  ListOption<std::string> parallel{
      *this, "parallel",
      llvm::cl::desc("What each mesh axis does, in order: dp (data "
                     "parallel), tp (tensor parallel) or pp (pipeline "
                     "stages)")};
  Option<int64_t> zero{*this, "zero",
                       llvm::cl::desc("With dp: ZeRO stage 0, 1 or 2"),
                       llvm::cl::init(0)};
  Option<std::string> reducePrecision{
      *this, "reduce-precision",
      llvm::cl::desc("compute or fp32: the type in which partial sums of "
                     "mixed-precision products (data-parallel weight "
                     "gradients, row-parallel outputs) are all-reduced"),
      llvm::cl::init("compute")};
  Option<bool> overlap{*this, "overlap",
                       llvm::cl::desc("Bucket the gradient all-reduces and "
                                      "overlap them with the backward pass"),
                       llvm::cl::init(true)};
  Option<ExactDouble> bucketMb{
      *this, "bucket-mb", llvm::cl::desc("With overlap: bucket size in MiB"),
      llvm::cl::init(25.0)};
  Option<std::string> remat{
      *this, "remat",
      llvm::cl::desc("Recompute activations in the backward pass: none, "
                     "full (keep stage boundaries), selective (also keep "
                     "weight products) or auto (whole stages within "
                     "memory-budget)"),
      llvm::cl::init("none")};
  Option<ExactDouble> memoryBudget{
      *this, "memory-budget",
      llvm::cl::desc("With remat=auto: MiB of forward activations the "
                     "backward may keep"),
      llvm::cl::init(0.0)};
  Option<int64_t> microbatches{
      *this, "microbatches",
      llvm::cl::desc("With pp: micro-batches per step (each stage runs the "
                     "batch in this many pieces, one after another)"),
      llvm::cl::init(1)};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("With pp: the order of a stage's forward and backward "
                     "micro-batch steps: gpipe, 1f1b or interleaved (with "
                     "virtual-stages)"),
      llvm::cl::init("1f1b")};
  Option<int64_t> virtualStages{
      *this, "virtual-stages",
      llvm::cl::desc("With schedule=interleaved: model chunks per pipeline "
                     "rank (the forward is cut into ranks x this stages)"),
      llvm::cl::init(1)};
  Option<bool> explain{*this, "explain",
                       llvm::cl::desc("Print the step's arguments, splits "
                                      "and collectives"),
                       llvm::cl::init(false)};
  Option<std::string> deviceSpec{
      *this, "device-spec",
      llvm::cl::desc("With explain: also the step's predicted time on this "
                     "device (a built-in name such as h100-sxm, or a JSON "
                     "file)"),
      llvm::cl::init("")};
  Option<std::string> explainFormat{
      *this, "explain-format",
      llvm::cl::desc("With explain: text, or json (one object per line)"),
      llvm::cl::init("text")};
};

/// Adds dist-training-step's passes; failure (with the reason printed) for
/// options that contradict each other.
LogicalResult buildTrainingStepPipeline(OpPassManager &pm,
                                        const TrainingStepOptions &options);

/// Adds dist-distribute's passes; failure (with the reason printed) for a
/// bad mesh or parallel list. With an empty mesh only `explain` applies.
LogicalResult buildDistributePipeline(OpPassManager &pm,
                                      const DistributeOptions &options);

/// Registers dist-training-step and dist-distribute.
void registerTrainingPipelines();

} // namespace mlir::dist

#endif // PASSES_PIPELINES_TRAININGSTEP_H
