//===- DistDescribeModel.cpp - The executable's interface descriptor ------===//

#include "passes/Conversion/Passes.h"
#include "dialects/Dist/Runtime/RuntimeTypes.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "dialects/Dist/IR/DistDialect.h"
#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringSet.h"

#define DEBUG_TYPE "dist-describe-model"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDESCRIBEMODEL
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct DistDescribeModelPass
    : dist::impl::DistDescribeModelBase<DistDescribeModelPass> {
  using DistDescribeModelBase::DistDescribeModelBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal()) {
      module.emitError() << "no function @" << entry
                         << " to compile; name the entry with entry=<name>";
      return signalPassFailure();
    }
    Builder b(&getContext());
    // The interface description (distrt/model.h): a dictionary here, JSON in
    // the executable (dist-emit-model-entry).
    SmallVector<Attribute> arguments, outputs;
    llvm::StringSet<> inputNames, outputNames;
    llvm::StringMap<std::string> argumentRoles;
    auto tensorEntry = [&](Location loc, StringRef kind, Type type,
                           StringRef name, NamedAttrList &entry) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      StringRef dtype = tensor ? runtimeDtypeName(tensor.getElementType()) : "";
      if (!tensor || !tensor.hasStaticShape() || dtype.empty())
        return emitError(loc) << kind << " '" << name << "' has type " << type
                              << "; the executable supports statically "
                                 "shaped tensors of the dist element types";
      if (name.empty())
        return emitError(loc) << kind << " names must be non-empty";
      if (kind != "output")
        entry.append("role", b.getStringAttr(kind));
      entry.append("name", b.getStringAttr(name));
      entry.append("dtype", b.getStringAttr(dtype));
      entry.append("shape", b.getDenseI64ArrayAttr(tensor.getShape()));
      return success();
    };
    bool training = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      training |=
          static_cast<bool>(func.getArgAttr(i, DistDialect::kStepAttrName));
    // A per-rank program (dist-partition) takes local shards; the interface
    // names the global (logical) shapes and how they are split.
    MeshOp mesh = getMesh(module);
    bool partitioned = mesh && func->hasAttr(DistDialect::kPartitionedAttrName);
    bool shardingError = false;
    IntegerAttr pipelineAxis;
    if (auto pipeline = module->getAttrOfType<DictionaryAttr>(
            DistDialect::kPipelineAttrName))
      pipelineAxis = pipeline.getAs<IntegerAttr>("axis");
    // The global type of a value and, in `entry`, how it is split.
    auto globalOf = [&](Type type, DictionaryAttr attrs, StringRef name,
                        SmallVector<Attribute> &splits) -> Type {
      auto sharding =
          attrs ? attrs.getAs<ShardingAttr>(DistDialect::kShardingAttrName)
                : ShardingAttr();
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!partitioned || !sharding || !tensor ||
          sharding.getRank() != tensor.getRank())
        return type;
      FailureOr<SmallVector<DimSharding>> split =
          sharding.getDims([&] { return func.emitError(); }, name);
      if (failed(split)) {
        shardingError = true;
        return type;
      }
      SmallVector<DimSharding> &dims = *split;
      for (auto [dim, entry] : llvm::enumerate(dims)) {
        if (!entry.isSplit())
          continue;
        NamedAttrList splitEntry;
        splitEntry.append("dim", b.getI64IntegerAttr(dim));
        splitEntry.append("axes", b.getDenseI64ArrayAttr({entry.axis}));
        if (entry.groups > 1)
          splitEntry.append("groups", b.getI64IntegerAttr(entry.groups));
        splits.push_back(splitEntry.getDictionary(&getContext()));
      }
      return globalType(tensor, dims, mesh.getShape());
    };
    // One tensor of the interface: role, name, dtype, global shape, split.
    auto describe = [&](Location loc, StringRef kind, Type type,
                        DictionaryAttr attrs, StringRef name,
                        NamedAttrList &entry) -> LogicalResult {
      SmallVector<Attribute> splits;
      Type global = globalOf(type, attrs, name, splits);
      if (failed(tensorEntry(loc, kind, global, name, entry)))
        return failure();
      if (!splits.empty())
        entry.append("split", b.getArrayAttr(splits));
      // A pipeline stage's tensor (dist-pipeline-schedule): only the ranks
      // of that stage hold it.
      auto stage = attrs ? attrs.getAs<IntegerAttr>(DistDialect::kStageAttrName)
                         : IntegerAttr();
      if (pipelineAxis && stage) {
        NamedAttrList place;
        place.append("axis", pipelineAxis);
        place.append("stages", b.getDenseI64ArrayAttr({stage.getInt()}));
        entry.append("place", place.getDictionary(&getContext()));
      }
      return success();
    };
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      Location loc = arg.getLoc();
      DictionaryAttr attrs = func.getArgAttrDict(i);
      Type type = func.getArgumentTypes()[i];
      NamedAttrList entry;
      LogicalResult described = success();
      if (auto param = func.getArgAttrOfType<FlatSymbolRefAttr>(
              i, DistDialect::kParameterAttrName)) {
        described =
            describe(loc, "param", type, attrs, param.getValue(), entry);
      } else if (func.getArgAttr(i, DistDialect::kStepAttrName)) {
        described = describe(loc, "step", type, attrs, "step", entry);
      } else if (func.getArgAttr(i, DistDialect::kSeedAttrName)) {
        described = describe(loc, "seed", type, attrs, "seed", entry);
      } else if (auto hparam = func.getArgAttrOfType<StringAttr>(
                     i, DistDialect::kHyperparameterAttrName)) {
        described =
            describe(loc, "hparam", type, attrs, hparam.getValue(), entry);
      } else if (auto state = func.getArgAttrOfType<OptimizerStateAttr>(
                     i, DistDialect::kOptimizerStateAttrName)) {
        described =
            describe(loc, "state", type, attrs, state.getName(), entry);
        if (FloatAttr init = state.getInit())
          entry.append("init", b.getF64FloatAttr(
                                   init.getValue().convertToDouble()));
      } else {
        std::string name = ("arg" + Twine(i)).str();
        if (auto n = func.getArgAttrOfType<StringAttr>(
                i, DistDialect::kInputNameAttrName))
          name = n.getValue().str();
        if (!inputNames.insert(name).second) {
          emitError(loc) << "two inputs are named '" << name << "'";
          return signalPassFailure();
        }
        described = describe(loc, "input", type, attrs, name, entry);
        // Only a trainer (or parameter-server mode's workers) draws
        // synthetic data and checks it against ranges.
        if (training || func->hasAttr(DistDialect::kPsWorkerAttrName))
          if (std::optional<int64_t> range = indexRange(func, i)) {
            entry.append("range", b.getI64IntegerAttr(*range));
            if (std::optional<int64_t> ignore = indexIgnore(func, i))
              entry.append("ignore", b.getI64IntegerAttr(*ignore));
          }
      }
      if (failed(described))
        return signalPassFailure();
      // The driver finds arguments by name (--input NAME=..., checkpoints):
      // an input named like a parameter or "step" would be ambiguous.
      auto name = cast<StringAttr>(entry.get("name"));
      auto role = cast<StringAttr>(entry.get("role"));
      auto [previous, fresh] =
          argumentRoles.try_emplace(name.getValue(), role.getValue());
      if (!fresh) {
        emitError(loc) << "two arguments are named '" << name.getValue()
                       << "' (roles " << previous->second << " and "
                       << role.getValue()
                       << "); rename the input (dist.input_name)";
        return signalPassFailure();
      }
      arguments.push_back(entry.getDictionary(&getContext()));
      func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(&getContext(), false));
    }
    // Results that are new values of arguments (a training step's parameters
    // and optimizer state) are not outputs: the entry point writes them over
    // their arguments (dist-emit-model-entry).
    SmallVector<int64_t> updates;
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      if (auto target = func.getResultAttrOfType<IntegerAttr>(
              i, DistDialect::kUpdatesAttrName)) {
        updates.push_back(target.getInt());
        continue;
      }
      updates.push_back(-1);
      std::string name = ("output" + Twine(i)).str();
      if (auto n = func.getResultAttrOfType<StringAttr>(
              i, DistDialect::kOutputNameAttrName))
        name = n.getValue().str();
      if (!outputNames.insert(name).second) {
        func.emitError() << "two outputs are named '" << name << "'";
        return signalPassFailure();
      }
      NamedAttrList entry;
      if (failed(describe(func.getLoc(), "output", type,
                          func.getResultAttrDict(i), name, entry)))
        return signalPassFailure();
      outputs.push_back(entry.getDictionary(&getContext()));
    }
    if (shardingError)
      return signalPassFailure();
    NamedAttrList description;
    description.append("format", b.getStringAttr("dist-model"));
    description.append("version", b.getI64IntegerAttr(1));
    description.append("mode", b.getStringAttr(training ? "train" : "forward"));
    if (partitioned)
      description.append("mesh", b.getDenseI64ArrayAttr(mesh.getShape()));
    description.append("arguments", b.getArrayAttr(arguments));
    description.append("outputs", b.getArrayAttr(outputs));
    // The step's matrix products and convolutions (forward and backward):
    // the numerator of the trainer's MFU (model FLOPs utilization).
    int64_t flops = 0;
    func.walk([&](Operation *op) {
      if (auto matmul = dyn_cast<MatmulOp>(op))
        flops += matmul.getFlops();
      else if (auto gemm = dyn_cast<GemmOp>(op))
        flops += gemm.getFlops();
      else if (auto conv = dyn_cast<Conv2DOp>(op))
        flops += conv.getFlops();
      else if (auto attention = dyn_cast<AttentionOp>(op))
        flops += attention.getFlops();
      else if (auto grad = dyn_cast<AttentionGradOp>(op))
        flops += grad.getFlops();
    });
    if (training && flops > 0)
      description.append("flops", b.getI64IntegerAttr(flops));
    if (auto meta =
            func->getAttrOfType<DictionaryAttr>(DistDialect::kMetaAttrName)) {
      for (NamedAttribute entry : meta) {
        // BoolAttr is an i1 IntegerAttr.
        auto integer = dyn_cast<IntegerAttr>(entry.getValue());
        bool plainInteger = integer && integer.getType().isSignlessInteger() &&
                            integer.getType().getIntOrFloatBitWidth() <= 64;
        if (!isa<StringAttr, FloatAttr>(entry.getValue()) && !plainInteger) {
          func.emitError() << "'" << DistDialect::kMetaAttrName << "' entry '"
                           << entry.getName().getValue()
                           << "' must be a string, a float, a signless "
                              "integer of at most 64 bits or a boolean";
          return signalPassFailure();
        }
      }
      description.append("meta", meta);
      func->removeAttr(DistDialect::kMetaAttrName);
    }
    // A training step's, even one that updates nothing here (a pipeline
    // stage without parameters of its own): its results are then written
    // into the caller's buffers like every stage's.
    if (training || llvm::any_of(updates, [](int64_t u) { return u >= 0; }))
      module->setAttr(DistDialect::kModelUpdatesAttrName,
                      DenseI64ArrayAttr::get(&getContext(), updates));
    auto isDistAttr = [](NamedAttribute attr) {
      return attr.getName().getValue().starts_with("dist.");
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      for (NamedAttribute attr : llvm::to_vector(
               func.getArgAttrDict(i) ? func.getArgAttrDict(i).getValue()
                                      : ArrayRef<NamedAttribute>()))
        if (isDistAttr(attr))
          func.removeArgAttr(i, attr.getName());
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      for (NamedAttribute attr : llvm::to_vector(
               func.getResultAttrDict(i) ? func.getResultAttrDict(i).getValue()
                                         : ArrayRef<NamedAttribute>()))
        if (isDistAttr(attr))
          func.removeResultAttr(i, attr.getName());
    module->setAttr(DistDialect::kModelInterfaceAttrName,
                    description.getDictionary(&getContext()));
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(&getContext()));
  }
};

} // namespace
