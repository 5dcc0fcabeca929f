//===- DistParameters.cpp - Finding the parameters of a function ----------===//

#include "dialects/Dist/IR/DistParameters.h"

using namespace mlir;
using namespace mlir::dist;

FlatSymbolRefAttr mlir::dist::getParameterRef(FunctionOpInterface fn,
                                              unsigned argIndex) {
  return fn.getArgAttrOfType<FlatSymbolRefAttr>(
      argIndex, DistDialect::kParameterAttrName);
}

FailureOr<SmallVector<GradientResult>>
mlir::dist::matchGradientResults(FunctionOpInterface gradFn) {
  SmallVector<GradientResult> matched;
  for (unsigned r = 1; r < gradFn.getNumResults(); ++r) {
    auto ref = gradFn.getResultAttrOfType<FlatSymbolRefAttr>(
        r, DistDialect::kGradientAttrName);
    std::optional<unsigned> arg;
    for (unsigned a = 0; a < gradFn.getNumArguments() && ref; ++a)
      if (getParameterRef(gradFn, a) == ref)
        arg = a;
    if (!ref || !arg)
      return gradFn.emitError("result #")
             << r << " is not the gradient of a parameter argument "
             << "(dist.gradient); run dist-autodiff to build @"
             << gradFn.getName();
    matched.push_back({*arg, r, ref});
  }
  return matched;
}

ParameterOp mlir::dist::lookupParameter(FunctionOpInterface fn,
                                        unsigned argIndex,
                                        SymbolTableCollection &symbols) {
  FlatSymbolRefAttr ref = getParameterRef(fn, argIndex);
  if (!ref)
    return {};
  return symbols.lookupNearestSymbolFrom<ParameterOp>(fn, ref);
}

void mlir::dist::bindParameter(FunctionOpInterface fn, unsigned argIndex,
                               ParameterOp param) {
  fn.setArgAttr(argIndex, DistDialect::kParameterAttrName,
                FlatSymbolRefAttr::get(param.getSymNameAttr()));
}

SmallVector<ParameterArgument>
mlir::dist::getParameterArguments(FunctionOpInterface fn,
                                  SymbolTableCollection &symbols,
                                  bool trainableOnly) {
  SmallVector<ParameterArgument> result;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    ParameterOp param = lookupParameter(fn, i, symbols);
    if (param && (!trainableOnly || param.isTrainable()))
      result.push_back({i, param});
  }
  return result;
}

std::pair<StringRef, std::string>
mlir::dist::describeArgument(FunctionOpInterface fn, unsigned argIndex) {
  if (FlatSymbolRefAttr param = getParameterRef(fn, argIndex))
    return {"param", param.getValue().str()};
  if (auto state = fn.getArgAttrOfType<OptimizerStateAttr>(
          argIndex, DistDialect::kOptimizerStateAttrName))
    return {"state", state.getName()};
  if (fn.getArgAttr(argIndex, DistDialect::kStepAttrName))
    return {"step", "step"};
  if (fn.getArgAttr(argIndex, DistDialect::kSeedAttrName))
    return {"seed", "seed"};
  if (auto name = fn.getArgAttrOfType<StringAttr>(
          argIndex, DistDialect::kHyperparameterAttrName))
    return {"hparam", name.getValue().str()};
  if (auto name = fn.getArgAttrOfType<StringAttr>(
          argIndex, DistDialect::kInputNameAttrName))
    return {"input", name.getValue().str()};
  return {"input", "arg" + std::to_string(argIndex)};
}

/// The values an integer input may take, [0, n), when it indexes something:
/// the rows of an embedding it gathers from, or the classes of a loss it
/// labels (through reshapes). The smallest such n, or none.
static std::optional<int64_t> usedIndexRange(Value input) {
  std::optional<int64_t> range;
  auto note = [&](int64_t n) { range = range ? std::min(*range, n) : n; };
  SmallVector<Value> worklist = {input};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto gather = dyn_cast<GatherOp>(user)) {
        if (use.get() == gather.getIndices())
          note(gather.getInput().getType().getDimSize(gather.getAxis()));
      } else if (isa<CrossEntropyOp, NllLossOp>(user)) {
        if (use.getOperandNumber() == 1)
          note(cast<RankedTensorType>(user->getOperand(0).getType())
                   .getDimSize(1));
      } else if (isa<ReshapeOp>(user)) {
        worklist.push_back(user->getResult(0));
      }
    }
  }
  return range;
}

std::optional<int64_t> mlir::dist::indexRange(FunctionOpInterface fn,
                                              unsigned argIndex) {
  if (auto range = fn.getArgAttrOfType<IntegerAttr>(
          argIndex, DistDialect::kIndexRangeAttrName))
    return range.getInt();
  return usedIndexRange(fn.getArgument(argIndex));
}

std::optional<int64_t> mlir::dist::indexIgnore(FunctionOpInterface fn,
                                               unsigned argIndex) {
  if (auto ignore = fn.getArgAttrOfType<IntegerAttr>(
          argIndex, DistDialect::kIndexIgnoreAttrName))
    return ignore.getInt();
  std::optional<int64_t> ignored;
  bool labelsOnly = true, labelsAny = false;
  SmallVector<Value> worklist = {fn.getArgument(argIndex)};
  while (!worklist.empty() && labelsOnly) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      std::optional<int64_t> userIgnore;
      if (auto ce = dyn_cast<CrossEntropyOp>(user))
        userIgnore = ce.getIgnoreIndex();
      else if (auto nll = dyn_cast<NllLossOp>(user))
        userIgnore = nll.getIgnoreIndex();
      if (isa<CrossEntropyOp, NllLossOp>(user) && use.getOperandNumber() == 1) {
        labelsAny = true;
        if (!userIgnore || (ignored && *ignored != *userIgnore))
          labelsOnly = false;
        ignored = userIgnore;
      } else if (isa<ReshapeOp>(user)) {
        worklist.push_back(user->getResult(0));
      } else if (isa<GatherOp>(user)) {
        labelsOnly = false; // an embedding lookup takes no ignored value
      }
    }
  }
  if (!labelsAny || !labelsOnly)
    return std::nullopt;
  return ignored;
}

bool mlir::dist::isDataArgument(FunctionOpInterface fn, unsigned argIndex) {
  for (StringRef name :
       {DistDialect::kParameterAttrName, DistDialect::kOptimizerStateAttrName,
        DistDialect::kHyperparameterAttrName, DistDialect::kStepAttrName,
        DistDialect::kSeedAttrName})
    if (fn.getArgAttr(argIndex, name))
      return false;
  return true;
}

std::optional<unsigned> mlir::dist::lossResult(FunctionOpInterface fn) {
  unsigned results = fn.getNumResults();
  for (unsigned i = 0; i < results; ++i)
    if (auto name = fn.getResultAttrOfType<StringAttr>(
            i, DistDialect::kOutputNameAttrName))
      if (name.getValue() == "loss")
        return i;
  if (results == 0)
    return std::nullopt;
  return 0u;
}

llvm::DenseSet<Operation *> mlir::dist::opsFeeding(Value value, Block &block) {
  llvm::DenseSet<Operation *> ops;
  SmallVector<Operation *> worklist;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op->getBlock() != &block || !ops.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return ops;
}
