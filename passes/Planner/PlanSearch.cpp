//===- PlanSearch.cpp - Choose how to distribute a step -------------------===//

#include "passes/Planner/PlanSearch.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <set>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::plan;

std::string Plan::describe() const {
  // A pp axis of one device is gradient accumulation: shown as
  // micro-batches without it (the flags that compile the same plan).
  SmallVector<int64_t> sizes;
  SmallVector<std::string> kinds;
  for (auto [i, kind] : llvm::enumerate(parallel)) {
    if (!mesh.empty() && kind == "pp" && mesh[i] == 1 && parallel.size() > 1)
      continue;
    kinds.push_back(kind);
    if (!mesh.empty())
      sizes.push_back(mesh[i]);
  }
  std::string text;
  if (!sizes.empty()) {
    for (auto [i, size] : llvm::enumerate(sizes))
      text += (i ? "x" : "") + std::to_string(size);
    text += " ";
  }
  for (auto [i, kind] : llvm::enumerate(kinds))
    text += (i ? "," : "") + kind;
  if (zero)
    text += " zero=" + std::to_string(zero);
  if (llvm::is_contained(parallel, "pp"))
    text += " microbatches=" + std::to_string(microbatches);
  if (remat != "none")
    text += " remat=" + remat;
  if (!precision.empty())
    text += " precision=" + precision;
  if (!gradCompression.empty())
    text += " grad-compression=" + gradCompression;
  return text;
}

SmallVector<std::string>
mlir::dist::plan::precisionsToTry(StringRef precision) {
  if (precision == "auto")
    return {"fp32", "bf16"};
  return {""};
}

namespace {

/// Every plan of `mesh`: each axis a distinct kind, ZeRO 0-2 with dp
/// (ZeRO-1 only with pp too), 1-8 micro-batches with pp, and each remat
/// policy unless `remat` (given by hand) fixes it.
SmallVector<Plan> enumeratePlans(ArrayRef<int64_t> mesh, StringRef remat,
                                 StringRef precision) {
  SmallVector<std::string> kinds = {"dp", "tp", "pp"};
  SmallVector<Plan> plans;
  if (mesh.size() > kinds.size())
    return plans;
  // Injective maps of the axes to the kinds, in lexicographic order.
  SmallVector<unsigned> pick(mesh.size(), 0);
  std::function<void(size_t)> assign = [&](size_t axis) {
    if (axis == mesh.size()) {
      Plan base;
      for (unsigned k : pick)
        base.parallel.push_back(kinds[k]);
      bool dp = llvm::is_contained(base.parallel, "dp");
      bool pp = llvm::is_contained(base.parallel, "pp");
      for (int64_t zero = 0; zero <= (dp ? (pp ? 1 : 2) : 0); ++zero)
        for (int64_t m : {1, 2, 4, 8}) {
          if (!pp && m > 1)
            break;
          for (const std::string &type : precisionsToTry(precision)) {
            Plan plan = base;
            plan.zero = zero;
            plan.microbatches = m;
            plan.remat = remat.str();
            plan.precision = type;
            plans.push_back(plan);
            // Recomputing saves memory for time: the search tries it only
            // where the memory limit rules out less recomputation.
            if (remat == "none")
              for (StringRef policy : {"selective", "full"}) {
                plan.remat = policy.str();
                plans.push_back(plan);
              }
          }
        }
      return;
    }
    for (unsigned k = 0; k < kinds.size(); ++k) {
      if (llvm::is_contained(ArrayRef<unsigned>(pick).take_front(axis), k))
        continue;
      pick[axis] = k;
      assign(axis + 1);
    }
  };
  assign(0);
  return plans;
}

} // namespace

int64_t mlir::dist::plan::dataParallelRanks(ArrayRef<std::string> parallel,
                                            ArrayRef<int64_t> mesh) {
  for (auto [kind, size] : llvm::zip(parallel, mesh))
    if (kind == "dp")
      return size;
  return 1;
}

std::string mlir::dist::plan::buildPlan(ModuleOp copy, const TrainingStepOptions &stepBase,
                  const DistributeOptions &distBase, ArrayRef<int64_t> mesh,
                  const Plan &plan) {
  MLIRContext *ctx = copy.getContext();
  TrainingStepOptions step;
  step.copyOptionValuesFrom(stepBase);
  if (!plan.precision.empty())
    step.precision = plan.precision;
  DistributeOptions dist;
  dist.copyOptionValuesFrom(distBase);
  dist.mesh = mesh;
  dist.parallel = ArrayRef<std::string>(plan.parallel);
  dist.zero = plan.zero;
  dist.microbatches = plan.microbatches;
  dist.schedule = plan.schedule;
  dist.virtualStages = 1;
  dist.explain = false;
  dist.deviceSpec = "";
  dist.remat = plan.remat;
  auto pp = llvm::find(plan.parallel, "pp");
  bool pipelined = pp != plan.parallel.end();
  step.pipelineStages = pipelined ? mesh[pp - plan.parallel.begin()] : 0;
  step.pipelineMicrobatches = plan.microbatches;
  step.pipelineSchedule = plan.schedule;
  step.explainStages = false;
  step.gradCompression =
      plan.gradCompression.empty() ? "none" : plan.gradCompression;
  step.dataParallelRanks = dataParallelRanks(plan.parallel, mesh);
  if (!plan.gradCompression.empty()) {
    // What dist-compile refuses for a plan given by hand.
    if (pipelined || plan.microbatches > 1)
      return "--grad-compression with pipeline stages or gradient "
             "accumulation: not yet (each micro-batch's gradient would be "
             "compressed, not the sum a rank sends)";
    if (StringRef(plan.gradCompression).starts_with("powersgd:") &&
        llvm::is_contained(plan.parallel, "tp"))
      return "PowerSGD compresses whole gradient matrices; a tp axis holds "
             "blocks of them";
    if (StringRef(plan.gradCompression).starts_with("topk:") &&
        llvm::is_contained(plan.parallel, "tp"))
      return "top-k selects among whole gradients; a tp axis holds blocks "
             "of them";
  }
  std::string why;
  ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error || !why.empty())
      return success();
    // The ONNX node's name where the location has one.
    Location loc = diagnostic.getLocation();
    if (auto fused = dyn_cast<FusedLoc>(loc))
      loc = fused.getLocations().front();
    if (auto name = dyn_cast<NameLoc>(loc))
      why = name.getName().str() + ": ";
    why += diagnostic.str();
    return success();
  });
  PassManager pm(ctx, ModuleOp::getOperationName());
  if (failed(buildTrainingStepPipeline(pm, step)) ||
      failed(buildDistributePipeline(pm, dist)))
    return "the options contradict each other";
  if (failed(pm.run(copy)))
    return why.empty() ? "a pass failed" : why;
  return "";
}

SearchResult
mlir::dist::plan::searchPlans(ModuleOp model, const TrainingStepOptions &step,
                              const DistributeOptions &base,
                              ArrayRef<int64_t> mesh,
                              const cost::DeviceSpec &spec,
                              double memoryLimit) {
  if (memoryLimit <= 0)
    memoryLimit = spec.memoryBytes;
  auto start = std::chrono::steady_clock::now();
  SearchResult result;
  // The plans (described without remat) whose last build needed more
  // memory than the device has: only those try the next remat policy
  // (selective, then full: each slower than the one before, never faster).
  std::set<std::string> overMemory;
  for (Plan plan : enumeratePlans(mesh, base.remat.getValue(),
                                   step.precision.getValue())) {
    // Compressed where gradients are all-reduced over data: a dp axis of
    // more than one device.
    if (step.gradCompression != "none" &&
        dataParallelRanks(plan.parallel, mesh) > 1)
      plan.gradCompression = step.gradCompression.getValue();
    Plan withoutRemat = plan;
    withoutRemat.remat = "none";
    std::string key = withoutRemat.describe();
    if (plan.remat != base.remat && !overMemory.count(key))
      continue;
    overMemory.erase(key);
    OwningOpRef<ModuleOp> copy = model.clone();
    Evaluated evaluated{plan, {}, buildPlan(*copy, step, base, mesh, plan)};
    ++result.builds;
    if (evaluated.ruledOut.empty()) {
      FailureOr<cost::StepPrediction> predicted =
          cost::predictStep(*copy, step.stepFunction(), spec);
      if (failed(predicted))
        evaluated.ruledOut = "no step to predict";
      else if (predicted->peakBytes > memoryLimit) {
        overMemory.insert(key);
        evaluated.ruledOut =
            llvm::formatv("its tensors need about {0:F1} MiB per device, "
                          "more than the {1:F1} MiB it has",
                          predicted->peakBytes / 1048576.0,
                          memoryLimit / 1048576.0)
                .str();
      }
      evaluated.predicted = succeeded(predicted) ? *predicted
                                                 : cost::StepPrediction();
    }
    result.plans.push_back(std::move(evaluated));
  }
  // Fastest first (the enumeration's order among equals: the simpler
  // plan, less ZeRO, fewer micro-batches); the ruled out last.
  llvm::stable_sort(result.plans, [](const Evaluated &a, const Evaluated &b) {
    if (a.ruledOut.empty() != b.ruledOut.empty())
      return a.ruledOut.empty();
    return a.ruledOut.empty() && a.predicted.total() < b.predicted.total();
  });
  result.method = "built and predicted";
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return result;
}

void mlir::dist::plan::printSearch(const SearchResult &result,
                                   ArrayRef<int64_t> mesh,
                                   const cost::DeviceSpec &spec,
                                   raw_ostream &os) {
  size_t runnable = llvm::count_if(
      result.plans, [](const Evaluated &e) { return e.ruledOut.empty(); });
  os << "plan search on mesh ";
  llvm::interleave(mesh, os, "x");
  os << " for " << spec.name << ": " << result.plans.size() << " plans, "
     << runnable << " " << result.method << ", "
     << result.plans.size() - runnable << " ruled out ("
     << llvm::format("%.1f", result.seconds) << " s, " << result.builds
     << " builds)\n";
  auto ms = [](double seconds) { return llvm::format("%.4g", seconds * 1e3); };
  double best = result.plans.front().predicted.total();
  size_t rank = 0, ruled = 0;
  for (const Evaluated &e : result.plans) {
    if (!e.ruledOut.empty())
      continue;
    if (result.shown && rank == result.shown) {
      os << "  ... " << runnable - rank << " slower plans\n";
      break;
    }
    const cost::StepPrediction &p = e.predicted;
    os << "  " << llvm::right_justify(std::to_string(++rank) + ".", 4) << " "
       << llvm::left_justify(e.plan.describe() + "  ", 36) << ms(p.total())
       << " ms (compute " << ms(p.compute) << ", exposed communication "
       << ms(p.exposed) << ", bubble " << ms(p.bubble) << "; "
       << llvm::format("%.1f", p.peakBytes / 1048576.0) << " MiB)";
    if (rank == 1)
      os << "  <- chosen";
    else
      os << "  +" << llvm::format("%.1f", 100 * (p.total() / best - 1)) << "%";
    os << "\n";
  }
  for (const Evaluated &e : result.plans) {
    if (e.ruledOut.empty())
      continue;
    if (result.shown && ruled == result.shown) {
      os << "  ... " << result.plans.size() - runnable - ruled
         << " more ruled out\n";
      break;
    }
    ++ruled;
    os << "  ruled out: " << e.plan.describe() << ": " << e.ruledOut << "\n";
  }
}

void mlir::dist::plan::printSearchJson(const SearchResult &result,
                                       ArrayRef<int64_t> mesh,
                                       const cost::DeviceSpec &spec,
                                       raw_ostream &os) {
  llvm::json::Array plans;
  for (const Evaluated &e : result.plans) {
    llvm::json::Object o{{"plan", e.plan.describe()},
                         {"parallel", llvm::json::Array(e.plan.parallel)},
                         {"zero", e.plan.zero},
                         {"microbatches", e.plan.microbatches},
                         {"schedule", e.plan.schedule},
                         {"remat", e.plan.remat}};
    if (!e.plan.precision.empty())
      o["precision"] = e.plan.precision;
    if (!e.plan.gradCompression.empty())
      o["grad_compression"] = e.plan.gradCompression;
    if (!e.plan.mesh.empty())
      o["mesh"] = llvm::json::Array(e.plan.mesh);
    if (e.ruledOut.empty()) {
      const cost::StepPrediction &p = e.predicted;
      o["total_seconds"] = p.total();
      o["compute_seconds"] = p.compute;
      o["exposed_communication_seconds"] = p.exposed;
      o["bubble_seconds"] = p.bubble;
      o["peak_bytes_per_rank"] = p.peakBytes;
    } else {
      o["ruled_out"] = e.ruledOut;
    }
    plans.push_back(std::move(o));
  }
  llvm::json::Object o{{"kind", "search"},
                       {"mesh", llvm::json::Array(mesh)},
                       {"device", spec.name},
                       {"method", result.method},
                       {"seconds", result.seconds},
                       {"builds", result.builds},
                       {"plans", std::move(plans)}};
  os << llvm::json::Value(std::move(o)) << "\n";
}
