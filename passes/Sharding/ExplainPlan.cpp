//===- ExplainPlan.cpp - Print the sharding plan of a per-rank program ----===//

#include "passes/Sharding/Passes.h"

#include "passes/CostModel/CostModel.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTEXPLAINPLAN
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// What dist-partition named a collective's location after (markOrigin):
/// the outermost name, also inside a location fused by a rewrite, or "?".
StringRef originOf(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(part))
        return name.getName().getValue();
  return "?";
}

std::string shapeText(RankedTensorType t) {
  if (t.getRank() == 0)
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  return s;
}

std::string bytesText(int64_t bytes) {
  char buffer[32];
  if (bytes >= (1 << 20))
    std::snprintf(buffer, sizeof(buffer), "%.2f MiB", bytes / 1048576.0);
  else if (bytes >= 1024)
    std::snprintf(buffer, sizeof(buffer), "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buffer, sizeof(buffer), "%lld B", (long long)bytes);
  return buffer;
}

std::string axesText(ArrayRef<int64_t> axes) {
  std::string s = axes.size() == 1 ? "axis " : "axes ";
  for (auto [i, a] : llvm::enumerate(axes))
    s += (i ? "," : "") + std::to_string(a);
  return s;
}

/// One argument of a step as --explain shows it.
struct ArgumentPlan {
  std::string role, name, reason;
  RankedTensorType global, local;
  SmallVector<DimSharding> sharding;
  std::optional<int64_t> stage; ///< the pipeline stage holding it
};

/// One collective, send or receive (or a wait) in program order.
struct Transfer {
  std::string what;
  int64_t bytes = 0;
  SmallVector<int64_t> axes;
  std::string origin;
  bool local = false, wait = false;
  std::optional<double> seconds; ///< on the device, when one is given
  /// The bytes before gradient compression, when the reduction moves
  /// compressed gradients (dist-optimizer{grad-compression}).
  std::optional<int64_t> uncompressed;
};

/// The bytes `inputs` would move without gradient compression, when any of
/// them is a compressed gradient (a dist.cast marked dist.compressed) or a
/// sum PowerSGD or top-k sends instead of one (dist.rank_sum: the gradient
/// bytes it stands for, on P's sum or top-k's values; 0 on Q's or the
/// indices').
std::optional<int64_t> uncompressedBytes(ValueRange inputs) {
  int64_t bytes = 0;
  bool compressed = false;
  for (Value v : inputs) {
    auto narrow = v.getDefiningOp<CastOp>();
    Operation *def = v.getDefiningOp();
    if (narrow && narrow->hasAttr(DistDialect::kCompressedAttrName)) {
      compressed = true;
      bytes += tensorBytes(narrow.getOperand().getType());
    } else if (auto stands = def ? def->getAttrOfType<IntegerAttr>(
                                       DistDialect::kRankSumAttrName)
                                 : IntegerAttr()) {
      compressed = true;
      bytes += stands.getInt();
    } else {
      bytes += tensorBytes(v.getType());
    }
  }
  return compressed ? std::optional<int64_t>(bytes) : std::nullopt;
}

/// What --explain says about one (per-rank) function.
struct FunctionPlan {
  std::string name;
  SmallVector<int64_t> mesh;
  std::optional<int64_t> stage; ///< a pipeline stage's program
  SmallVector<ArgumentPlan> arguments;
  SmallVector<Transfer> transfers;
  int64_t perRank = 0, whole = 0, transferred = 0, count = 0;
  /// Compressed reductions' bytes, before and after compression, their
  /// mesh axes and (with a device) predicted time: the reductions as they
  /// are, and their uncompressed bytes as one all-reduce would take.
  int64_t compressedBefore = 0, compressedAfter = 0;
  SmallVector<int64_t> compressedAxes;
  std::optional<double> compressedSeconds, uncompressedSeconds;
};

struct DistExplainPlanPass
    : dist::impl::DistExplainPlanBase<DistExplainPlanPass> {
  using Base::Base;

  /// The device collectives are priced on (with device-spec).
  std::optional<cost::DeviceSpec> spec;

  bool json() const { return format == "json"; }

  /// The step's predicted time on the device `deviceSpec`.
  LogicalResult predict(ModuleOp module, raw_ostream &os) {
    FailureOr<cost::StepPrediction> step =
        cost::predictStep(module, function, *spec);
    if (failed(step))
      return module.emitError("dist-explain-plan: no step @")
             << function << " (or its pipeline stages) to predict";
    MeshOp mesh = getMesh(module);
    if (json()) {
      llvm::json::Object o{{"kind", "prediction"},
                           {"device", spec->name},
                           {"total_seconds", step->total()},
                           {"compute_seconds", step->compute},
                           {"exposed_communication_seconds", step->exposed},
                           {"bubble_seconds", step->bubble},
                           {"communication_seconds", step->communication},
                           {"peak_bytes_per_rank", step->peakBytes}};
      if (mesh)
        o["mesh"] = llvm::json::Array(mesh.getShape());
      os << llvm::json::Value(std::move(o)) << "\n";
      return success();
    }
    auto ms = [](double seconds) {
      return llvm::format("%.4g", seconds * 1e3);
    };
    os << "predicted step on " << spec->name << " (";
    if (mesh) {
      os << "mesh ";
      llvm::interleave(mesh.getShape(), os, "x");
    } else {
      os << "one device";
    }
    os << "): " << ms(step->total()) << " ms = compute "
       << ms(step->compute) << " + exposed communication "
       << ms(step->exposed) << " + pipeline bubble " << ms(step->bubble)
       << " (communication " << ms(step->communication) << " ms in all, "
       << ms(std::max(0.0, step->communication - step->exposed))
       << " hidden behind compute); tensors at most "
       << llvm::format("%.2f", step->peakBytes / 1048576.0)
       << " MiB per rank\n";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp mesh = getMesh(module);
    if (format != "text" && format != "json") {
      module.emitError("dist-explain-plan: format '")
          << format << "' is not text or json";
      return signalPassFailure();
    }
    if (!deviceSpec.empty()) {
      std::string error;
      FailureOr<cost::DeviceSpec> loaded =
          cost::loadDeviceSpec(deviceSpec, error);
      if (failed(loaded)) {
        module.emitError(error);
        return signalPassFailure();
      }
      spec = *loaded;
    }
    for (auto fn : module.getOps<func::FuncOp>()) {
      // With a mesh: the partitioned programs; without: what a training
      // step trains and what it keeps.
      bool isStep =
          llvm::any_of(llvm::seq(fn.getNumArguments()), [&](unsigned i) {
            return fn.getArgAttr(i, DistDialect::kStepAttrName) != nullptr;
          });
      bool shown = mesh ? fn->hasAttr(DistDialect::kPartitionedAttrName)
                        : isStep;
      if (!shown)
        continue;
      FailureOr<FunctionPlan> plan =
          collect(fn, mesh ? mesh.getShape() : ArrayRef<int64_t>());
      if (failed(plan))
        return signalPassFailure();
      if (json())
        printJson(*plan, llvm::outs());
      else
        printText(*plan, llvm::outs());
    }
    if (spec && failed(predict(module, llvm::outs())))
      return signalPassFailure();
  }

  FailureOr<FunctionPlan> collect(func::FuncOp fn, ArrayRef<int64_t> mesh) {
    FunctionPlan plan;
    plan.name = fn.getName().str();
    plan.mesh.assign(mesh.begin(), mesh.end());
    // A pipeline stage's program (dist-pipeline-schedule): which stage,
    // and which tensors it holds.
    if (auto pipeline = fn->getParentOfType<ModuleOp>()->getAttrOfType<
                        DictionaryAttr>(DistDialect::kPipelineAttrName))
      if (auto functions = pipeline.getAs<ArrayAttr>("functions"))
        for (auto [k, f] : llvm::enumerate(functions))
          if (cast<FlatSymbolRefAttr>(f).getValue() == fn.getName())
            plan.stage = k;
    SymbolTableCollection symbols;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      ArgumentPlan arg;
      arg.local = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      arg.sharding = replicatedSharding(arg.local.getRank());
      if (ShardingAttr attr = getArgSharding(fn, i)) {
        FailureOr<SmallVector<DimSharding>> dims = attr.getDims(
            [&] { return fn.emitError(); }, "argument #" + std::to_string(i));
        if (failed(dims))
          return failure();
        arg.sharding = std::move(*dims);
      }
      arg.global =
          mesh.empty() ? arg.local : globalType(arg.local, arg.sharding, mesh);
      auto [role, name] = describeArgument(fn, i);
      arg.role = role.str();
      // A parameter the step does not train (a buffer, --frozen).
      if (ParameterOp param = lookupParameter(fn, i, symbols))
        if (!param.isTrainable())
          arg.role = "frozen";
      arg.name = name;
      if (auto at =
              fn.getArgAttrOfType<IntegerAttr>(i, DistDialect::kStageAttrName))
        arg.stage = at.getInt();
      if (auto reason = fn.getArgAttrOfType<StringAttr>(
              i, DistDialect::kSplitReasonAttrName);
          reason && !mesh.empty())
        arg.reason = reason.str();
      bool held = !plan.stage || !arg.stage || *arg.stage == *plan.stage;
      if (held && (arg.role == "param" || arg.role == "frozen" ||
                   arg.role == "state")) {
        plan.perRank += tensorBytes(arg.local);
        plan.whole += tensorBytes(arg.global);
      }
      plan.arguments.push_back(std::move(arg));
    }
    if (mesh.empty())
      return plan;
    fn.walk([&](Operation *op) {
      Transfer t;
      cost::Collective kind = cost::Collective::allReduce;
      if (auto c = dyn_cast<AllReduceOp>(op)) {
        t.what = "all_reduce " + stringifyCollectiveKind(c.getKind()).str();
        t.bytes = tensorBytes(c.getInput().getType());
        t.uncompressed = uncompressedBytes(c->getOperands());
        t.axes.assign(c.getAxes().begin(), c.getAxes().end());
      } else if (auto c = dyn_cast<AllReduceStartOp>(op)) {
        t.what = "all_reduce_start " +
                 stringifyCollectiveKind(c.getKind()).str() + " (" +
                 std::to_string(c.getInputs().size()) +
                 (c.getInputs().size() == 1 ? " tensor)" : " tensors)");
        t.bytes = tensorBytes(c.getBucket().getType());
        t.uncompressed = uncompressedBytes(c.getInputs());
        t.axes.assign(c.getAxes().begin(), c.getAxes().end());
      } else if (isa<WaitOp>(op)) {
        t.what = "wait";
        t.wait = true;
        plan.transfers.push_back(std::move(t));
        return;
      } else if (auto c = dyn_cast<ReduceScatterOp>(op)) {
        t.what = "reduce_scatter " +
                 stringifyCollectiveKind(c.getKind()).str() + " dim " +
                 std::to_string(c.getDim());
        t.bytes = tensorBytes(c.getInput().getType());
        t.uncompressed = uncompressedBytes(c->getOperands());
        t.axes.assign(c.getAxes().begin(), c.getAxes().end());
        kind = cost::Collective::reduceScatter;
      } else if (auto c = dyn_cast<AllGatherOp>(op)) {
        t.what = "all_gather dim " + std::to_string(c.getDim());
        t.bytes = tensorBytes(c.getResult().getType());
        t.axes.assign(c.getAxes().begin(), c.getAxes().end());
        kind = cost::Collective::allGather;
      } else if (auto c = dyn_cast<ShardSliceOp>(op)) {
        t.what = "shard_slice dim " + std::to_string(c.getDim());
        t.axes.assign(c.getAxes().begin(), c.getAxes().end());
        t.local = true;
      } else if (auto c = dyn_cast<SendOp>(op)) {
        t.what = "send to stage " + std::to_string(c.getPeer());
        t.bytes = tensorBytes(c.getInput().getType());
        t.axes = {static_cast<int64_t>(c.getAxis())};
        kind = cost::Collective::pointToPoint;
      } else if (auto c = dyn_cast<RecvOp>(op)) {
        t.what = "recv from stage " + std::to_string(c.getPeer());
        t.bytes = tensorBytes(c.getResult().getType());
        t.axes = {static_cast<int64_t>(c.getAxis())};
        kind = cost::Collective::pointToPoint;
      } else {
        return;
      }
      t.origin = originOf(op->getLoc()).str();
      // Its predicted time on the device (the cost model's ring formula).
      if (spec && !t.local)
        t.seconds = cost::collectiveSeconds(*spec, kind, t.axes, mesh,
                                            static_cast<double>(t.bytes));
      ++plan.count;
      plan.transferred += t.bytes;
      if (t.uncompressed) {
        plan.compressedBefore += *t.uncompressed;
        plan.compressedAfter += t.bytes;
        plan.compressedAxes = t.axes;
        if (t.seconds)
          plan.compressedSeconds = plan.compressedSeconds.value_or(0) + *t.seconds;
      }
      plan.transfers.push_back(std::move(t));
    });
    if (spec && plan.compressedBefore)
      plan.uncompressedSeconds = cost::collectiveSeconds(
          *spec, cost::Collective::allReduce, plan.compressedAxes, mesh,
          static_cast<double>(plan.compressedBefore));
    return plan;
  }

  void printText(const FunctionPlan &plan, raw_ostream &os) {
    os << "plan of @" << plan.name;
    if (plan.mesh.empty()) {
      os << " on one device\n";
    } else {
      os << " on mesh ";
      llvm::interleave(plan.mesh, os, "x");
      os << " ("
         << groupSize(plan.mesh, llvm::to_vector(llvm::seq<int64_t>(
                                     0, plan.mesh.size())))
         << " ranks)\n";
    }
    size_t width = 0;
    for (const ArgumentPlan &a : plan.arguments)
      width = std::max(width, a.name.size());
    for (const ArgumentPlan &a : plan.arguments) {
      std::string split;
      if (plan.mesh.empty()) {
      } else if (isReplicated(a.sharding)) {
        split = "replicated";
      } else {
        for (auto [d, entry] : llvm::enumerate(a.sharding)) {
          if (!entry.isSplit())
            continue;
          split += (split.empty() ? "" : ", ") + std::string("dim ") +
                   std::to_string(d) + " over axis " +
                   std::to_string(entry.axis);
          if (entry.groups > 1)
            split += " in " + std::to_string(entry.groups) + " groups";
        }
        split += " -> " + shapeText(a.local) + " per rank";
      }
      if (a.stage)
        split += " on stage " + std::to_string(*a.stage);
      os << "  " << llvm::left_justify(a.role, 7)
         << llvm::left_justify(a.name, width + 2)
         << llvm::left_justify(shapeText(a.global), 12) << split
         << (a.reason.empty() ? "" : "  (" + a.reason + ")") << "\n";
    }
    if (plan.mesh.empty()) {
      os << "  parameters and optimizer state: " << bytesText(plan.perRank)
         << "\n";
      return;
    }
    os << "  parameters and optimizer state: " << bytesText(plan.perRank)
       << " per rank (" << bytesText(plan.whole) << " unsplit)\n";
    os << (plan.stage ? "collectives, sends and receives, in program order:\n"
                      : "collectives, in program order:\n");
    for (const Transfer &t : plan.transfers) {
      if (t.wait) {
        os << "  wait\n";
        continue;
      }
      os << "  " << llvm::left_justify(t.what, 36)
         << llvm::left_justify(t.local ? "local" : bytesText(t.bytes), 12)
         << llvm::left_justify(axesText(t.axes), 9) << "<- " << t.origin;
      if (t.seconds)
        os << "  ~" << llvm::format("%.3g", 1e6 * *t.seconds) << " us on "
           << spec->name;
      if (t.uncompressed && *t.uncompressed == 0)
        os << "  (compressed gradients: PowerSGD's Q sums or top-k's "
              "indices, their gradients counted with P's or the values')";
      else if (t.uncompressed)
        os << "  (compressed gradients: " << bytesText(*t.uncompressed)
           << " uncompressed)";
      os << "\n";
    }
    os << "  " << plan.count << (plan.stage ? " transfers, " : " collectives, ")
       << bytesText(plan.transferred) << " per rank per step\n";
    if (plan.compressedBefore) {
      os << "  gradient compression: " << bytesText(plan.compressedBefore)
         << " of gradients sent as " << bytesText(plan.compressedAfter)
         << " per rank per step";
      if (plan.compressedSeconds && plan.uncompressedSeconds)
        os << ", ~" << llvm::format("%.3g", 1e3 * *plan.compressedSeconds)
           << " ms of reductions instead of ~"
           << llvm::format("%.3g", 1e3 * *plan.uncompressedSeconds)
           << " ms on " << spec->name;
      os << " (gradients reduced before they are compressed, e.g. through a "
            "scatter, stay float32)\n";
    }
  }

  void printJson(const FunctionPlan &plan, raw_ostream &os) {
    llvm::json::Array arguments;
    for (const ArgumentPlan &a : plan.arguments) {
      llvm::json::Array split;
      for (auto [d, entry] : llvm::enumerate(a.sharding))
        if (entry.isSplit())
          split.push_back(llvm::json::Object{{"dim", static_cast<int64_t>(d)},
                                             {"axis", entry.axis},
                                             {"groups", entry.groups}});
      llvm::json::Object o{{"role", a.role},
                           {"name", a.name},
                           {"shape", llvm::json::Array(a.global.getShape())},
                           {"local_shape", llvm::json::Array(a.local.getShape())},
                           {"split", std::move(split)}};
      if (a.stage)
        o["stage"] = *a.stage;
      if (!a.reason.empty())
        o["reason"] = a.reason;
      arguments.push_back(std::move(o));
    }
    llvm::json::Array transfers;
    for (const Transfer &t : plan.transfers) {
      llvm::json::Object o{{"op", t.what}};
      if (!t.wait) {
        o["bytes"] = t.bytes;
        o["axes"] = llvm::json::Array(t.axes);
        o["source"] = t.origin;
      }
      if (t.seconds)
        o["predicted_seconds"] = *t.seconds;
      if (t.uncompressed)
        o["uncompressed_bytes"] = *t.uncompressed;
      transfers.push_back(std::move(o));
    }
    llvm::json::Object o{{"kind", "plan"},
                         {"function", plan.name},
                         {"mesh", llvm::json::Array(plan.mesh)},
                         {"arguments", std::move(arguments)},
                         {"collectives", std::move(transfers)},
                         {"state_bytes_per_rank", plan.perRank},
                         {"state_bytes_unsplit", plan.whole}};
    if (plan.stage)
      o["stage"] = *plan.stage;
    if (plan.compressedBefore) {
      llvm::json::Object c{{"uncompressed_bytes", plan.compressedBefore},
                           {"bytes", plan.compressedAfter}};
      if (plan.compressedSeconds && plan.uncompressedSeconds) {
        c["predicted_seconds"] = *plan.compressedSeconds;
        c["uncompressed_predicted_seconds"] = *plan.uncompressedSeconds;
      }
      o["gradient_compression"] = std::move(c);
    }
    os << llvm::json::Value(std::move(o)) << "\n";
  }
};

} // namespace
