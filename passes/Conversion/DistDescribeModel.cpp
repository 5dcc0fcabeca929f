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
#include "llvm/Support/Format.h"

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
    std::string text = "dist-model 1\n";
    llvm::raw_string_ostream os(text);
    llvm::StringSet<> inputNames, outputNames;
    auto line = [&](Location loc, StringRef kind, Type type,
                    StringRef name) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      StringRef dtype = tensor ? runtimeDtypeName(tensor.getElementType()) : "";
      if (!tensor || !tensor.hasStaticShape() || dtype.empty())
        return emitError(loc) << kind << " '" << name << "' has type " << type
                              << "; the executable supports statically "
                                 "shaped tensors of the dist element types";
      if (name.empty() || name.contains('\n'))
        return emitError(loc) << kind
                              << " names must be non-empty single "
                                 "lines";
      os << kind << ' ' << dtype << ' ';
      if (tensor.getRank() == 0)
        os << "scalar";
      llvm::interleave(tensor.getShape(), os, "x");
      os << ' ' << name << '\n';
      return success();
    };
    bool training = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      training |=
          static_cast<bool>(func.getArgAttr(i, DistDialect::kStepAttrName));
    if (training)
      os << "mode train\n";
    SmallVector<std::pair<std::string, int64_t>> ranges, ignores;
    // A per-rank program (dist-partition) takes local shards; the interface
    // names the global (logical) shapes and how they are split.
    MeshOp mesh = getMesh(module);
    bool partitioned = mesh && func->hasAttr(DistDialect::kPartitionedAttrName);
    std::string shards;
    bool shardingError = false;
    auto globalOf = [&](Type type, DictionaryAttr attrs,
                        StringRef name) -> Type {
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
        // A strided split: "<axis>/<groups>".
        std::string axis = std::to_string(entry.axis);
        if (entry.groups > 1)
          axis += "/" + std::to_string(entry.groups);
        shards +=
            ("shard " + Twine(dim) + " " + axis + " " + name + "\n").str();
      }
      return globalType(tensor, dims, mesh.getShape());
    };
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      Location loc = arg.getLoc();
      auto argType = [&, i = i](StringRef name) {
        return globalOf(func.getArgumentTypes()[i], func.getArgAttrDict(i),
                        name);
      };
      if (auto param = func.getArgAttrOfType<FlatSymbolRefAttr>(
              i, DistDialect::kParameterAttrName)) {
        if (failed(line(loc, "param", argType(param.getValue()),
                        param.getValue())))
          return signalPassFailure();
      } else if (func.getArgAttr(i, DistDialect::kStepAttrName)) {
        if (failed(line(loc, "step", argType("step"), "step")))
          return signalPassFailure();
      } else if (func.getArgAttr(i, DistDialect::kSeedAttrName)) {
        if (failed(line(loc, "seed", argType("seed"), "seed")))
          return signalPassFailure();
      } else if (auto hparam = func.getArgAttrOfType<StringAttr>(
                     i, DistDialect::kHyperparameterAttrName)) {
        if (failed(line(loc, "hparam", argType(hparam.getValue()),
                        hparam.getValue())))
          return signalPassFailure();
      } else if (auto state = func.getArgAttrOfType<OptimizerStateAttr>(
                     i, DistDialect::kOptimizerStateAttrName)) {
        if (failed(
                line(loc, "state", argType(state.getName()), state.getName())))
          return signalPassFailure();
      } else {
        std::string name = ("arg" + Twine(i)).str();
        if (auto n = func.getArgAttrOfType<StringAttr>(
                i, DistDialect::kInputNameAttrName))
          name = n.getValue().str();
        if (!inputNames.insert(name).second) {
          emitError(loc) << "two inputs are named '" << name << "'";
          return signalPassFailure();
        }
        if (failed(line(loc, "input", argType(name), name)))
          return signalPassFailure();
        // Only a trainer draws synthetic data and checks it against ranges.
        if (training)
          if (std::optional<int64_t> range = indexRange(func, i)) {
            ranges.push_back({name, *range});
            if (std::optional<int64_t> ignore = indexIgnore(func, i))
              ignores.push_back({name, *ignore});
          }
      }
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
      if (failed(line(func.getLoc(), "output",
                      globalOf(type, func.getResultAttrDict(i), name), name)))
        return signalPassFailure();
    }
    if (shardingError)
      return signalPassFailure();
    for (auto [name, range] : ranges)
      os << "range " << name << ' ' << range << '\n';
    for (auto [name, value] : ignores)
      os << "ignore " << name << ' ' << value << '\n';
    if (partitioned) {
      os << "mesh ";
      llvm::interleave(mesh.getShape(), os, "x");
      os << '\n' << shards;
    }
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
    });
    if (training && flops > 0)
      os << "flops " << flops << '\n';
    if (auto meta =
            func->getAttrOfType<DictionaryAttr>(DistDialect::kMetaAttrName)) {
      for (NamedAttribute entry : meta) {
        os << "meta " << entry.getName().getValue() << ' ';
        if (auto str = dyn_cast<StringAttr>(entry.getValue()))
          os << str.getValue();
        else if (auto f = dyn_cast<FloatAttr>(entry.getValue()))
          os << llvm::format("%.17g", f.getValueAsDouble());
        else if (auto b = dyn_cast<BoolAttr>(entry.getValue()))
          os << (b.getValue() ? "true" : "false"); // before IntegerAttr: i1
        else if (auto n = dyn_cast<IntegerAttr>(entry.getValue()))
          os << n.getInt();
        os << '\n';
      }
      func->removeAttr(DistDialect::kMetaAttrName);
    }
    if (llvm::any_of(updates, [](int64_t u) { return u >= 0; }))
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
                    StringAttr::get(&getContext(), text));
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(&getContext()));
  }
};

} // namespace
