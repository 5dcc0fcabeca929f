//===- LayerSearch.cpp - Plan a large mesh one repeated layer at a time ---===//
//
// Building every plan of a 64-GPU mesh on a 48-layer model would take
// hours; but a transformer's layers are alike, so their cost is solved
// once. For each tensor-parallel size t, micro-batch size b, remat policy
// and ZeRO stage, the model is cut to one and to two layers
// (RepeatedLayers.h) and each copy built by the real passes on a mesh of
// B/b data-parallel ranks by t, then predicted by the cost model. The
// difference of the two is one layer, the rest is the embeddings, head
// and loss. A plan of d x t devices without pipeline stages is exactly
// such a build with L layers (b = B/d): its time and memory are the rest
// plus L layers, the build's own overlap of the gradient buckets
// included. A plan with p pipeline stages and M micro-batches is composed
// as Megatron-LM's analysis does, from builds priced without the
// data-parallel collectives:
//
//   stage time per micro-batch  t_mb = (L/p) layer + rest + 2 sends
//   compute                     M (L/p layer + rest) + the update
//   exposed                     M (tensor-parallel + sends) + the
//                               gradient all-reduce over d after the
//                               schedule (ZeRO-1: and an all-gather)
//   bubble                      (p - 1) t_mb
//   memory                      parameters, gradients, state (ZeRO-1
//                               divides it by d) + the activations the
//                               backward reads, of the micro-batches in
//                               flight (1F1B: min(M, p)) + one
//                               micro-batch's working set beyond them
//
// Gradient accumulation (p = 1, M > 1: a pipeline of one stage) is
// composed the same way, without bubble or sends.
//
// where the optimizer update (once per step, not per micro-batch) is the
// roofline of its bytes: parameter and gradient read, parameter written,
// each state read and written.
//
//===----------------------------------------------------------------------===//

#include "passes/Planner/PlanSearch.h"

#include "passes/Transforms/RepeatedLayers.h"

#include "dialects/Dist/IR/DistParameters.h"
#include "passes/Sharding/OpCost.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::plan;

namespace {

/// One build's figures, per rank: with the data-parallel collectives left
/// out (compute, exposed), and priced as the build's own mesh runs them
/// (computeAll, exposedAll: the plan itself when it has no pipeline).
struct Built {
  double compute = 0, exposed = 0, peak = 0;
  /// Forward activations the backward reads (cost::heldForBackwardBytes),
  /// and every argument (parameters, state, inputs).
  double held = 0, arguments = 0;
  double params = 0, state = 0;
  double computeAll = 0, exposedAll = 0;
};

/// One layer and the rest of the model at one (t, b, remat).
struct Summary {
  std::string error; ///< why the passes refused it
  Built layer, rest;
  /// What one micro-batch holds for its backward (a layer's, the rest's),
  /// and the most the step needs beyond that at once (the working set:
  /// a recomputed layer, the logits' gradient).
  double layerHeld = 0, restHeld = 0, transient = 0;
};

double updateSeconds(const cost::DeviceSpec &spec, double params,
                     double state) {
  return cost::computeSeconds(spec, cost::Precision::fp32, 0,
                              3 * params + 2 * state);
}

struct LayerSearch {
  ModuleOp model;
  const TrainingStepOptions &step;
  const DistributeOptions &base;
  const cost::DeviceSpec &spec;
  RepeatedLayers layers;
  int64_t batch = 0;
  double boundaryBytes = 0; ///< a layer's output, whole batch
  int64_t builds = 0;
  std::map<std::tuple<int64_t, int64_t, std::string, int64_t, std::string>,
           Summary>
      cache;

  /// Builds the model cut to `keep` layers with t-way tensor parallelism,
  /// micro-batches of b (on B/b data-parallel ranks) and ZeRO `zero`.
  FailureOr<Built> build(int64_t keep, int64_t t, int64_t b,
                         StringRef remat, int64_t zero, StringRef precision,
                         std::string &error) {
    OwningOpRef<ModuleOp> copy = model.clone();
    auto fn = copy->lookupSymbol<func::FuncOp>(step.entry.getValue());
    std::string whyNot;
    FailureOr<RepeatedLayers> found = findRepeatedLayers(fn, whyNot);
    if (failed(found) || failed(shrinkLayers(*copy, fn, *found, keep))) {
      error = "cutting the model to " + std::to_string(keep) +
              " layers failed: " + whyNot;
      return failure();
    }
    Plan plan;
    SmallVector<int64_t> mesh;
    if (batch / b > 1) {
      mesh.push_back(batch / b);
      plan.parallel.push_back("dp");
    }
    if (t > 1) {
      mesh.push_back(t);
      plan.parallel.push_back("tp");
    }
    plan.remat = remat.str();
    plan.zero = batch / b > 1 ? zero : 0;
    plan.precision = precision.str();
    ++builds;
    error = buildPlan(*copy, step, base, mesh, plan);
    if (!error.empty())
      return failure();
    auto fn2 = copy->lookupSymbol<func::FuncOp>(step.stepFunction());
    if (!fn2) {
      error = "no step to predict";
      return failure();
    }
    // The data-parallel axis priced as one rank: its collectives run once
    // per step over the plan's own d, composed below.
    SmallVector<int64_t> priced;
    for (StringRef kind : plan.parallel)
      priced.push_back(kind == "tp" ? t : 1);
    cost::StepPrediction p = cost::predictFunction(fn2, priced, spec);
    cost::StepPrediction all = cost::predictFunction(fn2, mesh, spec);
    Built built;
    built.compute = p.compute;
    built.exposed = p.exposed;
    built.computeAll = all.compute;
    built.exposedAll = all.exposed;
    built.peak = cost::peakBytes(fn2);
    built.held = cost::heldForBackwardBytes(fn2);
    for (unsigned i = 0; i < fn2.getNumArguments(); ++i) {
      StringRef what = describeArgument(fn2, i).first;
      double bytes =
          static_cast<double>(tensorBytes(fn2.getArgument(i).getType()));
      built.arguments += bytes;
      if (what == "param")
        built.params += bytes;
      else if (what == "state")
        built.state += bytes;
    }
    return built;
  }

  const Summary &summary(int64_t t, int64_t b, StringRef remat, int64_t zero,
                         StringRef precision) {
    auto key = std::make_tuple(t, b, remat.str(), zero, precision.str());
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    Summary &s = cache[key];
    FailureOr<Built> one = build(1, t, b, remat, zero, precision, s.error);
    if (failed(one))
      return s;
    FailureOr<Built> two = build(2, t, b, remat, zero, precision, s.error);
    if (failed(two))
      return s;
    auto minus = [](const Built &a, const Built &c) {
      Built d;
      d.compute = a.compute - c.compute;
      d.exposed = a.exposed - c.exposed;
      d.peak = a.peak - c.peak;
      d.held = a.held - c.held;
      d.params = a.params - c.params;
      d.state = a.state - c.state;
      d.computeAll = a.computeAll - c.computeAll;
      d.exposedAll = a.exposedAll - c.exposedAll;
      return d;
    };
    s.layer = minus(*two, *one);
    s.rest = minus(*one, s.layer);
    s.layerHeld = std::max(0.0, s.layer.held);
    s.restHeld = std::max(0.0, one->held - s.layerHeld);
    // What the peak holds besides the arguments and the held activations:
    // the gradients made so far and the working set (an upper bound for
    // the working set, since the composition adds every gradient).
    auto beyondHeld = [](const Built &x) {
      return x.peak - x.arguments - x.held;
    };
    s.transient = std::max({0.0, beyondHeld(*one), beyondHeld(*two)});
    return s;
  }

  /// Plan `plan` (mesh d x p x t) predicted from the summaries; the reason
  /// when it cannot run.
  std::string compose(const Plan &plan, int64_t d, int64_t p, int64_t t,
                      cost::StepPrediction &out) {
    int64_t m = plan.microbatches;
    int64_t b = batch / (d * m);
    double perStage = static_cast<double>(layers.count / p);
    out = cost::StepPrediction();
    if (p == 1 && m == 1) {
      // The builds ran this plan with fewer layers: extrapolate.
      const Summary &s = summary(t, b, plan.remat, plan.zero, plan.precision);
      if (!s.error.empty())
        return s.error;
      out.compute = perStage * s.layer.computeAll + s.rest.computeAll;
      out.exposed = perStage * s.layer.exposedAll + s.rest.exposedAll;
      out.peakBytes = perStage * s.layer.peak + s.rest.peak;
      return "";
    }
    const Summary &s = summary(t, b, plan.remat, 0, plan.precision);
    if (!s.error.empty())
      return s.error;
    double M = static_cast<double>(m);
    // Per rank: the bottleneck stage holds L/p layers and the rest.
    double params = perStage * s.layer.params + s.rest.params;
    double state = perStage * s.layer.state + s.rest.state;
    double update = updateSeconds(spec, params, state);
    double layerUpdate = updateSeconds(spec, s.layer.params, s.layer.state);
    double restUpdate = updateSeconds(spec, s.rest.params, s.rest.state);
    double fwdBwd = perStage * std::max(0.0, s.layer.compute - layerUpdate) +
                    std::max(0.0, s.rest.compute - restUpdate);
    double tensorComm = perStage * s.layer.exposed + s.rest.exposed;
    SmallVector<int64_t> mesh = plan.mesh;
    SmallVector<cost::Link> links = cost::meshLinks(spec, mesh);
    auto linkOf = [&](StringRef kind) {
      auto at = llvm::find(plan.parallel, kind);
      return links[at - plan.parallel.begin()];
    };
    double sends = 0;
    if (p > 1)
      sends = 2 * cost::collectiveSeconds(
                      cost::Collective::pointToPoint, 2,
                      boundaryBytes * static_cast<double>(b) / batch,
                      linkOf("pp"));
    double gradientSync = 0;
    if (d > 1)
      gradientSync = cost::collectiveSeconds(cost::Collective::allReduce, d,
                                             params, linkOf("dp"));
    // ZeRO-1 in stages all-reduces the gradients, then all-gathers the
    // updated parameters.
    if (d > 1 && plan.zero)
      gradientSync += cost::collectiveSeconds(cost::Collective::allGather, d,
                                              params, linkOf("dp"));
    double slot = fwdBwd + tensorComm + sends;
    out.compute = M * fwdBwd + (plan.zero ? update / d : update);
    out.communication = M * (tensorComm + sends) + gradientSync;
    // Pipelines reduce the gradients after the schedule.
    out.exposed = M * (tensorComm + sends) + gradientSync;
    out.bubble = static_cast<double>(p - 1) * slot;
    // 1F1B: the first stage holds min(M, p) micro-batches' activations
    // for their backward, and one micro-batch's working set on top.
    double inFlight = std::min<double>(M, p);
    out.peakBytes = 2 * params + (plan.zero >= 1 ? state / d : state) +
                    inFlight * (perStage * s.layerHeld + s.restHeld) +
                    s.transient;
    return "";
  }
};

/// Gradient accumulation's pp axis of one device, after dp (the axis of
/// a one-device plan).
void addAccumulationAxis(Plan &plan) {
  if (plan.mesh == ArrayRef<int64_t>{1}) {
    plan.parallel = {"pp"};
    return;
  }
  auto dp = llvm::find(plan.parallel, "dp");
  size_t at = dp == plan.parallel.end() ? 0 : dp - plan.parallel.begin() + 1;
  plan.mesh.insert(plan.mesh.begin() + at, 1);
  plan.parallel.insert(plan.parallel.begin() + at, "pp");
}

SmallVector<int64_t> divisors(int64_t n) {
  SmallVector<int64_t> out;
  for (int64_t k = 1; k <= n; ++k)
    if (n % k == 0)
      out.push_back(k);
  return out;
}

} // namespace

FailureOr<SearchResult> mlir::dist::plan::searchPlansByLayer(
    ModuleOp model, const TrainingStepOptions &step,
    const DistributeOptions &base, ArrayRef<int64_t> mesh,
    const cost::DeviceSpec &spec, double memoryLimit, std::string &whyNot) {
  auto start = std::chrono::steady_clock::now();
  if (memoryLimit <= 0)
    memoryLimit = spec.memoryBytes;
  auto forward = model.lookupSymbol<func::FuncOp>(step.entry.getValue());
  if (!forward) {
    whyNot = "no function @" + step.entry.getValue();
    return failure();
  }
  LayerSearch search{model, step, base, spec, {}, 0, 0, 0, {}};
  FailureOr<RepeatedLayers> found = findRepeatedLayers(forward, whyNot);
  if (failed(found))
    return failure();
  search.layers = *found;
  search.boundaryBytes =
      static_cast<double>(tensorBytes(found->out.front().getType()));
  for (unsigned i = 0; i < forward.getNumArguments() && !search.batch; ++i)
    if (isDataArgument(forward, i))
      if (auto type = dyn_cast<RankedTensorType>(forward.getArgument(i).getType()))
        if (type.getRank() > 0 && type.getDimSize(0) > 0)
          search.batch = type.getDimSize(0);
  if (!search.batch) {
    whyNot = "no input with a batch dimension";
    return failure();
  }
  int64_t devices = 1;
  for (int64_t n : mesh)
    devices *= n;
  int64_t L = found->count;
  SmallVector<std::string> remats = {base.remat.getValue()};
  if (base.remat == "none")
    remats = {"none", "selective", "full"};

  SearchResult result;
  for (int64_t t : divisors(devices)) {
    if (t > spec.devicesPerHost)
      continue;
    for (int64_t p : divisors(devices / t)) {
      int64_t d = devices / t / p;
      Plan shape;
      for (auto [size, kind] : {std::pair<int64_t, const char *>{d, "dp"},
                                {p, "pp"},
                                {t, "tp"}})
        if (size > 1) {
          shape.mesh.push_back(size);
          shape.parallel.push_back(kind);
        }
      if (shape.mesh.empty()) {
        shape.mesh.push_back(1);
        shape.parallel.push_back("dp");
      }
      auto ruleOut = [&](Plan plan, std::string why) {
        result.plans.push_back({std::move(plan), {}, std::move(why)});
      };
      if (p > L || L % p) {
        ruleOut(shape, llvm::formatv("{0} layers do not split into {1} "
                                     "pipeline stages",
                                     L, p));
        continue;
      }
      if (search.batch % d) {
        ruleOut(shape, llvm::formatv("the batch of {0} does not split over "
                                     "{1} data-parallel ranks",
                                     search.batch, d));
        continue;
      }
      for (int64_t zero = 0; zero <= (d > 1 ? (p > 1 ? 1 : 2) : 0); ++zero)
        // Every micro-batch count that divides a rank's share of the
        // batch (down to one sequence each, as Megatron runs 175B).
        for (int64_t m : divisors(search.batch / d)) {
          // Without pipeline stages, micro-batches are gradient
          // accumulation: a pp axis of one device (ZeRO-1 at most).
          bool accumulate = p == 1 && m > 1;
          if (accumulate && zero > 1)
            continue;
          // Each remat policy is slower than the one before it: the next
          // is tried only when the last needed more memory than there is.
          std::set<std::string> overMemory;
          for (const std::string &remat : remats)
          for (const std::string &type : precisionsToTry(step.precision)) {
            if (remat != remats.front() && !overMemory.count(type))
              continue;
            overMemory.erase(type);
            Plan plan = shape;
            if (accumulate)
              addAccumulationAxis(plan);
            plan.zero = zero;
            plan.microbatches = m;
            plan.remat = remat;
            plan.precision = type;
            Evaluated e{plan, {}, ""};
            e.ruledOut = search.compose(plan, d, p, t, e.predicted);
            if (e.ruledOut.empty() && e.predicted.peakBytes > memoryLimit) {
              overMemory.insert(type);
              // GiB, or MiB for a limit under one GiB (a test's).
              bool gib = memoryLimit >= 1073741824.0;
              double unit = gib ? 1073741824.0 : 1048576.0;
              e.ruledOut =
                  llvm::formatv("its tensors need about {0:F1} {2} per "
                                "device, more than the {1:F1} {2} it has",
                                e.predicted.peakBytes / unit,
                                memoryLimit / unit, gib ? "GiB" : "MiB")
                      .str();
            }
            result.plans.push_back(std::move(e));
          }
        }
    }
  }
  llvm::stable_sort(result.plans, [](const Evaluated &a, const Evaluated &b) {
    if (a.ruledOut.empty() != b.ruledOut.empty())
      return a.ruledOut.empty();
    return a.ruledOut.empty() && a.predicted.total() < b.predicted.total();
  });
  result.builds = search.builds;
  result.method = llvm::formatv("predicted from {0} layers of '{1}' solved "
                                "once per tensor-parallel size, micro-batch "
                                "size and remat ({2} summaries)",
                                L, found->prefix, search.cache.size())
                      .str();
  result.shown = result.plans.size() > 40 ? 12 : 0;
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return result;
}
