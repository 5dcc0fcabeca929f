//===- ExplainPlan.cpp - Print the sharding plan of a per-rank program ----===//

#include "passes/Sharding/Passes.h"

#include "passes/CostModel/CostModel.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "llvm/Support/Format.h"

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

struct DistExplainPlanPass
    : dist::impl::DistExplainPlanBase<DistExplainPlanPass> {
  using Base::Base;

  /// The step's predicted time on the device `deviceSpec`.
  LogicalResult predict(ModuleOp module, raw_ostream &os) {
    std::string error;
    FailureOr<cost::DeviceSpec> spec = cost::loadDeviceSpec(deviceSpec, error);
    if (failed(spec))
      return module.emitError(error);
    FailureOr<cost::StepPrediction> step =
        cost::predictStep(module, function, *spec);
    if (failed(step))
      return module.emitError("dist-explain-plan: no step @")
             << function << " (or its pipeline stages) to predict";
    MeshOp mesh = getMesh(module);
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

  /// The device collectives are priced on (with device-spec).
  std::optional<cost::DeviceSpec> spec;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp mesh = getMesh(module);
    if (!deviceSpec.empty()) {
      std::string error;
      FailureOr<cost::DeviceSpec> loaded =
          cost::loadDeviceSpec(deviceSpec, error);
      if (succeeded(loaded))
        spec = *loaded;
    }
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (mesh && fn->hasAttr(DistDialect::kPartitionedAttrName))
        explain(fn, mesh.getShape(), llvm::outs());
      // Without a mesh: what a training step trains and what it keeps.
      bool isStep =
          llvm::any_of(llvm::seq(fn.getNumArguments()), [&](unsigned i) {
            return fn.getArgAttr(i, DistDialect::kStepAttrName) != nullptr;
          });
      if (!mesh && isStep)
        explain(fn, {}, llvm::outs());
    }
    if (!deviceSpec.empty() && failed(predict(module, llvm::outs())))
      return signalPassFailure();
  }

  void explain(func::FuncOp fn, ArrayRef<int64_t> mesh, raw_ostream &os) {
    os << "plan of @" << fn.getName();
    if (mesh.empty()) {
      os << " on one device\n";
    } else {
      os << " on mesh ";
      llvm::interleave(mesh, os, "x");
      os << " ("
         << groupSize(mesh, llvm::to_vector(llvm::seq<int64_t>(0, mesh.size())))
         << " ranks)\n";
    }
    // A pipeline stage's program (dist-pipeline-schedule): which stage,
    // and which tensors it holds.
    std::optional<int64_t> stage;
    if (auto pipeline = fn->getParentOfType<ModuleOp>()->getAttrOfType<
                        DictionaryAttr>(DistDialect::kPipelineAttrName))
      if (auto functions = pipeline.getAs<ArrayAttr>("functions"))
        for (auto [k, f] : llvm::enumerate(functions))
          if (cast<FlatSymbolRefAttr>(f).getValue() == fn.getName())
            stage = k;
    SymbolTableCollection symbols;
    struct Row {
      std::string role, name, type, split, reason;
    };
    SmallVector<Row> rows;
    int64_t perRank = 0, whole = 0;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto local = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      SmallVector<DimSharding> sharding = replicatedSharding(local.getRank());
      if (ShardingAttr attr = getArgSharding(fn, i)) {
        FailureOr<SmallVector<DimSharding>> dims = attr.getDims(
            [&] { return fn.emitError(); }, "argument #" + std::to_string(i));
        if (failed(dims))
          return signalPassFailure();
        sharding = std::move(*dims);
      }
      RankedTensorType global =
          mesh.empty() ? local : globalType(local, sharding, mesh);
      Row row;
      auto [role, name] = describeArgument(fn, i);
      row.role = role.str();
      // A parameter the step does not train (a buffer, --frozen).
      if (ParameterOp param = lookupParameter(fn, i, symbols))
        if (!param.isTrainable())
          row.role = "frozen";
      row.name = name;
      row.type = shapeText(global);
      if (mesh.empty()) {
        row.split = "";
      } else if (isReplicated(sharding)) {
        row.split = "replicated";
      } else {
        for (auto [d, entry] : llvm::enumerate(sharding)) {
          if (!entry.isSplit())
            continue;
          row.split += (row.split.empty() ? "" : ", ") + std::string("dim ") +
                       std::to_string(d) + " over axis " +
                       std::to_string(entry.axis);
          if (entry.groups > 1)
            row.split += " in " + std::to_string(entry.groups) + " groups";
        }
        row.split += " -> " + shapeText(local) + " per rank";
      }
      auto at = fn.getArgAttrOfType<IntegerAttr>(i, DistDialect::kStageAttrName);
      if (at)
        row.split += " on stage " + std::to_string(at.getInt());
      if (auto reason = fn.getArgAttrOfType<StringAttr>(
              i, DistDialect::kSplitReasonAttrName);
          reason && !mesh.empty())
        row.reason = reason.str();
      bool held = !stage || !at || at.getInt() == *stage;
      if (held &&
          (row.role == "param" || row.role == "frozen" || row.role == "state")) {
        perRank += tensorBytes(local);
        whole += tensorBytes(global);
      }
      rows.push_back(row);
    }
    size_t width = 0;
    for (const Row &r : rows)
      width = std::max(width, r.name.size());
    for (const Row &r : rows)
      os << "  " << llvm::left_justify(r.role, 7)
         << llvm::left_justify(r.name, width + 2)
         << llvm::left_justify(r.type, 12) << r.split
         << (r.reason.empty() ? "" : "  (" + r.reason + ")") << "\n";
    if (mesh.empty()) {
      os << "  parameters and optimizer state: " << bytesText(perRank) << "\n";
      return;
    }
    os << "  parameters and optimizer state: " << bytesText(perRank)
       << " per rank (" << bytesText(whole) << " unsplit)\n";

    int64_t count = 0, total = 0;
    os << (stage ? "collectives, sends and receives, in program order:\n"
                 : "collectives, in program order:\n");
    fn.walk([&](Operation *op) {
      int64_t bytes;
      std::string what;
      ArrayRef<int64_t> axes;
      int64_t axisOf = -1; // a send's or receive's
      SmallVector<int64_t, 1> axisList;
      cost::Collective kind = cost::Collective::allReduce;
      if (auto c = dyn_cast<AllReduceOp>(op)) {
        what = "all_reduce " + stringifyCollectiveKind(c.getKind()).str();
        bytes = tensorBytes(c.getInput().getType());
        axes = c.getAxes();
      } else if (auto c = dyn_cast<AllReduceStartOp>(op)) {
        what = "all_reduce_start " +
               stringifyCollectiveKind(c.getKind()).str() + " (" +
               std::to_string(c.getInputs().size()) +
               (c.getInputs().size() == 1 ? " tensor)" : " tensors)");
        bytes = tensorBytes(c.getBucket().getType());
        axes = c.getAxes();
      } else if (isa<WaitOp>(op)) {
        os << "  wait\n";
        return;
      } else if (auto c = dyn_cast<ReduceScatterOp>(op)) {
        what = "reduce_scatter " + stringifyCollectiveKind(c.getKind()).str() +
               " dim " + std::to_string(c.getDim());
        kind = cost::Collective::reduceScatter;
        bytes = tensorBytes(c.getInput().getType());
        axes = c.getAxes();
      } else if (auto c = dyn_cast<AllGatherOp>(op)) {
        what = "all_gather dim " + std::to_string(c.getDim());
        kind = cost::Collective::allGather;
        bytes = tensorBytes(c.getResult().getType());
        axes = c.getAxes();
      } else if (auto c = dyn_cast<ShardSliceOp>(op)) {
        what = "shard_slice dim " + std::to_string(c.getDim());
        bytes = 0;
        axes = c.getAxes();
      } else if (auto c = dyn_cast<SendOp>(op)) {
        what = "send to stage " + std::to_string(c.getPeer());
        kind = cost::Collective::pointToPoint;
        bytes = tensorBytes(c.getInput().getType());
        axes = {};
        axisOf = c.getAxis();
      } else if (auto c = dyn_cast<RecvOp>(op)) {
        what = "recv from stage " + std::to_string(c.getPeer());
        kind = cost::Collective::pointToPoint;
        bytes = tensorBytes(c.getResult().getType());
        axes = {};
        axisOf = c.getAxis();
      } else {
        return;
      }
      if (axisOf >= 0) {
        axisList.push_back(axisOf);
        axes = axisList;
      }
      ++count;
      total += bytes;
      StringRef origin = originOf(op->getLoc());
      os << "  " << llvm::left_justify(what, 36)
         << llvm::left_justify(
                isa<ShardSliceOp>(op) ? "local" : bytesText(bytes), 12)
         << llvm::left_justify(axesText(axes), 9) << "<- " << origin;
      // Its predicted time on the device (the cost model's ring formula).
      if (spec && !isa<ShardSliceOp>(op))
        os << "  ~" << llvm::format("%.3g", 1e6 * cost::collectiveSeconds(
                                                      *spec, kind, axes, mesh,
                                                      static_cast<double>(bytes)))
           << " us on " << spec->name;
      os << "\n";
    });
    os << "  " << count << (stage ? " transfers, " : " collectives, ")
       << bytesText(total) << " per rank per step\n";
  }
};

} // namespace
