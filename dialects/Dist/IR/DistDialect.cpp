//===- DistDialect.cpp - The dist dialect ---------------------------------===//

#include "dialects/Dist/IR/DistDialect.h"
#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::dist;

#include "dialects/Dist/IR/DistDialect.cpp.inc"

void DistDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Dist/IR/DistOps.cpp.inc"
      >();
}

Operation *DistDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// Checks a `dist.sharding` on an argument or result of `fn` of `type`.
static LogicalResult verifyShardingAttr(FunctionOpInterface fn, Attribute value,
                                        Type type, const std::string &what) {
  auto sharding = dyn_cast<ShardingAttr>(value);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!sharding || !tensor)
    return fn->emitError("'")
           << DistDialect::kShardingAttrName << "' of " << what
           << " must be a #dist.sharding on a ranked tensor";
  MeshOp mesh = getMesh(fn);
  if (!mesh)
    return fn->emitError("'")
           << DistDialect::kShardingAttrName << "' of " << what
           << " needs a device mesh: the module has no dist.mesh op";
  return verifySharding([&] { return fn->emitError(); }, what, sharding,
                        tensor.getShape(), mesh.getShape(),
                        fn->hasAttr(DistDialect::kPartitionedAttrName));
}

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError("'")
           << name << "' must be " << what << ", got " << value;
  };
  if (name == kShardingAttrName) {
    auto all = dyn_cast<ArrayAttr>(value);
    if (!all || all.size() != op->getNumResults())
      return op->emitError("'")
             << name << "' on an op must hold one #dist.sharding per result";
    for (auto [r, a] : llvm::enumerate(all)) {
      auto sharding = dyn_cast<ShardingAttr>(a);
      auto type = dyn_cast<RankedTensorType>(op->getResult(r).getType());
      if (!sharding || !type || sharding.getRank() != type.getRank())
        return op->emitError("'")
               << name << "' of result #" << r
               << " must be a #dist.sharding with one entry per dimension";
    }
    return success();
  }
  if (name == kPsWorkerAttrName)
    return expect(isa<UnitAttr>(value) && isa<FunctionOpInterface>(op),
                  "a unit attribute on a function");
  if (name == kPartitionedAttrName)
    return expect(isa<UnitAttr>(value) && isa<FunctionOpInterface>(op),
                  "a unit attribute on a function");
  if (name == kMetaAttrName)
    return expect(isa<DictionaryAttr>(value), "a dictionary");
  if (name == kModelInterfaceAttrName)
    return expect(isa<DictionaryAttr>(value) && isa<ModuleOp>(op),
                  "a dictionary on a module");
  if (name == kModelUpdatesAttrName)
    return expect(isa<DenseI64ArrayAttr>(value) && isa<ModuleOp>(op),
                  "an array<i64> on a module");
  if (name == kUnsignedAttrName || name == kBackwardAttrName)
    return expect(isa<UnitAttr>(value), "a unit attribute");
  if (name == kStageAttrName) {
    auto stage = dyn_cast<IntegerAttr>(value);
    return expect(stage && stage.getInt() >= 0, "a stage index (>= 0)");
  }
  if (name == kPipelineAttrName)
    return expect(isa<DictionaryAttr>(value) && isa<ModuleOp>(op),
                  "a dictionary on a module");
  if (name == kMicrobatchAxisAttrName) {
    auto micro = dyn_cast<DictionaryAttr>(value);
    auto axis = micro ? micro.getAs<IntegerAttr>("axis") : IntegerAttr();
    auto count = micro ? micro.getAs<IntegerAttr>("microbatches")
                       : IntegerAttr();
    return expect(axis && axis.getInt() >= 0 && count &&
                      count.getInt() >= 1 && micro.getAs<BoolAttr>("appended") &&
                      isa<MeshOp>(op),
                  "{axis, microbatches, appended} on a dist.mesh");
  }
  if (name == kCompressedAttrName)
    return expect(isa<UnitAttr>(value) && isa<CastOp>(op),
                  "a unit attribute on a dist.cast");
  if (name == kRankPartsAttrName) {
    auto bc = dyn_cast<BroadcastOp>(op);
    return expect(isa<UnitAttr>(value) && bc &&
                      bc.getType().getRank() ==
                          bc.getInput().getType().getRank() + 1,
                  "a unit attribute on a dist.broadcast adding one leading "
                  "dimension");
  }
  if (name == kRankSumAttrName) {
    auto sum = dyn_cast<ReduceSumOp>(op);
    auto bytes = dyn_cast<IntegerAttr>(value);
    return expect(bytes && bytes.getInt() >= 0 && sum &&
                      sum.getAxes().size() == 1 && sum.getAxes()[0] == 0 &&
                      !sum.getKeepDims(),
                  "an i64 >= 0 on a dist.reduce_sum over dimension 0 "
                  "(not kept)");
  }
  if (name == kMicrobatchSumAttrName)
    return expect(isa<UnitAttr>(value) && isa<AllReduceOp>(op),
                  "a unit attribute on a dist.all_reduce");
  if (name == "dist.mesh")
    return op->emitError("the device mesh is a 'dist.mesh @mesh shape = ...' "
                         "op in the module, not an attribute");
  return op->emitError("unknown dist attribute '") << name << "'";
}

LogicalResult DistDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == kOptimizerStateAttrName) {
    if (!isa<OptimizerStateAttr>(attr.getValue()))
      return op->emitError("'")
             << attr.getName().getValue() << "' of argument #" << argIndex
             << " must be a #dist.optimizer_state<@parameter, \"slot\"> (or "
                "<\"slot\"> for state of the whole step)";
    if (FloatAttr init = cast<OptimizerStateAttr>(attr.getValue()).getInit();
        init && !init.getValue().isFinite())
      return op->emitError("'")
             << attr.getName().getValue() << "' of argument #" << argIndex
             << ": init must be finite";
    return success();
  }
  if (attr.getName() == kInputNameAttrName ||
      attr.getName() == kHyperparameterAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError("'")
             << attr.getName().getValue() << "' of argument #" << argIndex
             << " must be a string";
    return success();
  }
  if (attr.getName() == kIndexIgnoreAttrName) {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError("'") << kIndexIgnoreAttrName << "' of argument #"
                                << argIndex << " must be an integer";
    return success();
  }
  if (attr.getName() == kIndexRangeAttrName) {
    auto range = dyn_cast<IntegerAttr>(attr.getValue());
    if (!range || range.getInt() < 1)
      return op->emitError("'") << kIndexRangeAttrName << "' of argument #"
                                << argIndex << " must be a positive integer";
    return success();
  }
  if (attr.getName() == kStageAttrName) {
    auto stage = dyn_cast<IntegerAttr>(attr.getValue());
    if (!stage || stage.getInt() < 0)
      return op->emitError("'") << kStageAttrName << "' of argument #"
                                << argIndex << " must be a stage index (>= 0)";
    return success();
  }
  if (attr.getName() == kPerRankAttrName) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    auto type = fn ? dyn_cast<RankedTensorType>(fn.getArgumentTypes()[argIndex])
                   : RankedTensorType();
    if (!isa<UnitAttr>(attr.getValue()) || !type || type.getRank() < 1)
      return op->emitError("'")
             << kPerRankAttrName << "' of argument #" << argIndex
             << " takes no value and marks a tensor of rank >= 1 (stacked "
                "over the data-parallel ranks on dimension 0)";
    return success();
  }
  if (attr.getName() == kStepAttrName || attr.getName() == kSeedAttrName ||
      attr.getName() == kLossScaleAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError("'")
             << attr.getName().getValue() << "' of argument #" << argIndex
             << " takes no value";
    return success();
  }
  if (attr.getName() == kShardingAttrName) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn || regionIndex != 0)
      return op->emitError("'") << kShardingAttrName
                                << "' is only meaningful on function arguments";
    return verifyShardingAttr(fn, attr.getValue(),
                              fn.getArgumentTypes()[argIndex],
                              "argument #" + std::to_string(argIndex));
  }
  if (attr.getName() == kSplitReasonAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError("'") << kSplitReasonAttrName << "' of argument #"
                                << argIndex << " must be a string";
    return success();
  }
  if (attr.getName() != kParameterAttrName)
    return op->emitError("unknown dist argument attribute '")
           << attr.getName().getValue() << "' on argument #" << argIndex;
  auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
  if (!ref)
    return op->emitError("'")
           << kParameterAttrName << "' of argument #" << argIndex
           << " must name a dist.parameter symbol (@name), got "
           << attr.getValue();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || regionIndex != 0)
    return op->emitError("'") << kParameterAttrName
                              << "' is only meaningful on function arguments";
  auto param = SymbolTable::lookupNearestSymbolFrom<ParameterOp>(op, ref);
  if (!param)
    return op->emitError("argument #")
           << argIndex << " reads parameter " << ref
           << ", but no dist.parameter of that name is in scope";
  Type argType = fn.getArgumentTypes()[argIndex];
  // A per-rank program holds its shard of a split parameter.
  ShardingAttr sharding = getArgSharding(fn, argIndex);
  MeshOp mesh = getMesh(op);
  if (sharding && mesh && op->hasAttr(kPartitionedAttrName) &&
      sharding.getRank() == cast<RankedTensorType>(argType).getRank())
    argType =
        globalType(cast<RankedTensorType>(argType), sharding, mesh.getShape());
  if (argType != param.getType()) {
    InFlightDiagnostic diag = op->emitError("argument #")
                              << argIndex << " has type " << argType
                              << " but reads parameter " << ref << " of type "
                              << param.getType();
    diag.attachNote(param.getLoc()) << "parameter declared here";
    return diag;
  }
  return success();
}

LogicalResult DistDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() == kGradientAttrName) {
    if (!isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitError("'")
             << kGradientAttrName << "' of result #" << resultIndex
             << " must name a parameter (@name)";
    return success();
  }
  if (attr.getName() == kUpdatesAttrName) {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!index || !fn || index.getInt() < 0 ||
        index.getInt() >= static_cast<int64_t>(fn.getNumArguments()))
      return op->emitError("'")
             << kUpdatesAttrName << "' of result #" << resultIndex
             << " must be the index of an argument";
    if (fn.getArgumentTypes()[index.getInt()] !=
        fn.getResultTypes()[resultIndex])
      return op->emitError("result #") << resultIndex << " updates argument #"
                                       << index.getInt() << " of another type";
    return success();
  }
  if (attr.getName() == kShardingAttrName) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn || regionIndex != 0)
      return op->emitError("'")
             << kShardingAttrName << "' is only meaningful on function results";
    return verifyShardingAttr(fn, attr.getValue(),
                              fn.getResultTypes()[resultIndex],
                              "result #" + std::to_string(resultIndex));
  }
  if (attr.getName() != kOutputNameAttrName)
    return op->emitError("unknown dist result attribute '")
           << attr.getName().getValue() << "' on result #" << resultIndex;
  if (!isa<StringAttr>(attr.getValue()))
    return op->emitError("'") << kOutputNameAttrName << "' of result #"
                              << resultIndex << " must be a string";
  return success();
}
