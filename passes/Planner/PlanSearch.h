//===- PlanSearch.h - Choose how to distribute a step (--parallel=auto) -*- C++ -*-===//
//
// The planner: on a mesh of given shape, every assignment of data, tensor
// and pipeline parallelism to its axes, with the ZeRO stages and the
// micro-batch counts each allows, is built (the same passes as a plan
// given by hand, on a copy of the model) and its step predicted by the
// cost model on a device description; the fastest wins. A plan the
// passes refuse (a batch the ranks do not divide, batch norm with
// micro-batches, ...) is ruled out with the reason the passes gave.
//
// Exhaustive over the small meshes a CPU test runs: each plan costs one
// build of the step (about a second for gpt2-tiny). Models at scale need
// the per-layer search issue 21 describes.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_PLANNER_PLANSEARCH_H
#define PASSES_PLANNER_PLANSEARCH_H

#include "passes/Pipelines/TrainingStep.h"
#include "passes/CostModel/CostModel.h"

#include <string>
#include <vector>

namespace mlir::dist::plan {

/// One way to distribute the step over the mesh.
struct Plan {
  /// The mesh the plan runs on when the search chose its shape (the layer
  /// search factors the devices into dp x pp x tp); empty: the given mesh.
  SmallVector<int64_t> mesh;
  SmallVector<std::string> parallel; ///< dp, tp or pp per mesh axis
  int64_t zero = 0;
  int64_t microbatches = 1;
  std::string schedule = "1f1b";
  /// none, selective or full (the --remat given by hand, else searched).
  std::string remat = "none";
  /// The compute type the search chose (--precision=auto: fp32 or bf16);
  /// empty: the step's own.
  std::string precision;
  /// --grad-compression as the plan applies it: the step's on a plan with
  /// a dp axis of more than one device, empty on one without (nothing is
  /// all-reduced over data).
  std::string gradCompression;
  /// "dp,tp" with " zero=1", " microbatches=4", " remat=full",
  /// " precision=bf16" or " grad-compression=bf16" as they apply.
  std::string describe() const;
};

struct Evaluated {
  Plan plan;
  /// The prediction, or why the plan cannot run.
  cost::StepPrediction predicted;
  std::string ruledOut;
};

struct SearchResult {
  /// Every plan, the runnable ones fastest first, then the ruled out.
  std::vector<Evaluated> plans;
  double seconds = 0; ///< the search's wall time
  /// How the plans were predicted, for the heading: "built and predicted"
  /// or the layer search's summary ("24 layers of 'h' solved once: ...").
  std::string method;
  /// Steps the search built (each a copy of the model through the passes).
  int64_t builds = 0;
  /// How many runnable and ruled-out plans to print (0: all).
  size_t shown = 0;
};

/// The data-parallel ranks of a plan's mesh: the size of its dp axis, 1
/// without one (TrainingStepOptions::dataParallelRanks).
int64_t dataParallelRanks(ArrayRef<std::string> parallel,
                          ArrayRef<int64_t> mesh);

/// Builds `plan`'s step on `copy` (on `mesh`) with the passes a plan given
/// by hand runs; the first error they report (with the ONNX node's name
/// where there is one), or empty.
std::string buildPlan(ModuleOp copy, const TrainingStepOptions &step,
                      const DistributeOptions &dist, ArrayRef<int64_t> mesh,
                      const Plan &plan);

/// Builds and predicts every plan of `mesh` for `model` (the imported
/// model, not changed), with the training step `step` and the other
/// distribution options of `base` (overlap, buckets, ...). A plan whose
/// tensors would hold more than `memoryLimit` bytes per device (0: the
/// device's memory) is ruled out. When no plan can run, the first is
/// ruled out too. With `step.precision` "auto", each plan is tried in fp32
/// and bf16.
SearchResult searchPlans(ModuleOp model, const TrainingStepOptions &step,
                         const DistributeOptions &base, ArrayRef<int64_t> mesh,
                         const cost::DeviceSpec &spec, double memoryLimit = 0);

/// The search by repeated layers, for meshes too large to build every plan
/// (LayerSearch.cpp): the devices of `mesh` factored into dp x pp x tp
/// (tp inside a host), each layer's cost solved once per tensor-parallel
/// size, micro-batch size and remat policy from copies of the model with
/// one and two layers, and every plan's step composed from them. Fails
/// with `whyNot` when the model has no repeated layers.
FailureOr<SearchResult>
searchPlansByLayer(ModuleOp model, const TrainingStepOptions &step,
                   const DistributeOptions &base, ArrayRef<int64_t> mesh,
                   const cost::DeviceSpec &spec, double memoryLimit,
                   std::string &whyNot);

/// The compute types a search tries for `precision` (the step's option):
/// fp32 and bf16 for "auto", else the one given (as an empty string).
SmallVector<std::string> precisionsToTry(StringRef precision);

/// The search as --explain=json prints it: one object, every plan with its
/// prediction or why it was ruled out, fastest first.
void printSearchJson(const SearchResult &result, ArrayRef<int64_t> mesh,
                     const cost::DeviceSpec &spec, raw_ostream &os);

/// The search as --explain prints it.
void printSearch(const SearchResult &result, ArrayRef<int64_t> mesh,
                 const cost::DeviceSpec &spec, raw_ostream &os);

} // namespace mlir::dist::plan

#endif // PASSES_PLANNER_PLANSEARCH_H
