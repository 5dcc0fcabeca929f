//===- Autodiff.cpp - Reverse-mode differentiation of a dist function -----===//
//
// Activity analysis first (which values depend on a trainable parameter and
// feed the loss), then one walk over the ops in reverse, asking each active
// op for its operands' gradients through GradientOpInterface and summing the
// contributions of values used more than once.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"

#include "dialects/Dist/IR/DistBuilder.h"
#include "dialects/Dist/IR/DistGradientInterface.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "dist-autodiff"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTAUTODIFF
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

StringRef outputName(func::FuncOp fn, unsigned index) {
  if (auto name = fn.getResultAttrOfType<StringAttr>(
          index, DistDialect::kOutputNameAttrName))
    return name.getValue();
  return "";
}

/// The index of the loss among `fn`'s results.
FailureOr<unsigned> findLoss(func::FuncOp fn, StringRef requested) {
  unsigned count = fn.getNumResults();
  auto describe = [&] {
    std::string names;
    for (unsigned i = 0; i < count; ++i) {
      StringRef name = outputName(fn, i);
      names += (i ? ", " : "") + (name.empty() ? "#" + std::to_string(i)
                                               : "'" + name.str() + "'");
    }
    return names.empty() ? std::string("none") : names;
  };
  std::optional<unsigned> found;
  StringRef wanted = requested.empty() ? StringRef("loss") : requested;
  for (unsigned i = 0; i < count; ++i)
    if (outputName(fn, i) == wanted)
      found = i;
  if (!found && requested.empty()) {
    SmallVector<unsigned> scalars;
    for (unsigned i = 0; i < count; ++i) {
      auto type = dyn_cast<RankedTensorType>(fn.getResultTypes()[i]);
      if (type && type.getRank() == 0 && isa<FloatType>(type.getElementType()))
        scalars.push_back(i);
    }
    if (scalars.size() == 1)
      found = scalars.front();
  }
  if (!found) {
    if (!requested.empty())
      return fn.emitError("no output named '")
             << requested << "' to differentiate; the outputs are "
             << describe();
    return fn.emitError("cannot tell which output is the loss (outputs: ")
           << describe()
           << "); name it with loss=<output>, or add one with "
              "dist-add-loss (dist-compile --loss=cross-entropy:<output>,"
              "<labels>)";
  }
  auto type = cast<RankedTensorType>(fn.getResultTypes()[*found]);
  if (!isa<FloatType>(type.getElementType()) || type.getNumElements() != 1)
    return fn.emitError("the loss, output '")
           << outputName(fn, *found) << "', is " << type
           << "; it must be a float scalar (reduce it, or add a loss with "
              "dist-compile --loss=cross-entropy:<output>,<labels>)";
  return *found;
}

struct AutodiffPass : dist::impl::DistAutodiffBase<AutodiffPass> {
  using DistAutodiffBase::DistAutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(function);
    if (!forward || forward.isExternal()) {
      module.emitError("no function @") << function << " to differentiate";
      return signalPassFailure();
    }
    if (!forward.getBody().hasOneBlock()) {
      forward.emitError("dist-autodiff needs a single-block function");
      return signalPassFailure();
    }
    FailureOr<unsigned> lossIndex = findLoss(forward, loss);
    if (failed(lossIndex))
      return signalPassFailure();
    SymbolTableCollection symbols;
    SmallVector<ParameterArgument> params =
        getParameterArguments(forward, symbols, /*trainableOnly=*/true);
    if (params.empty()) {
      forward.emitError("@") << function
                             << " reads no trainable parameter: nothing to "
                                "differentiate";
      return signalPassFailure();
    }
    if (failed(buildGradientFunction(forward, *lossIndex, params)))
      return signalPassFailure();
  }

  LogicalResult buildGradientFunction(func::FuncOp forward, unsigned lossIndex,
                                      ArrayRef<ParameterArgument> params) {
    // The new function: a copy of the forward body, then the backward ops.
    std::string name = (forward.getSymName() + "_grad").str();
    if (SymbolTable::lookupSymbolIn(getOperation(), name))
      return forward.emitError("a symbol @") << name << " already exists";
    Type lossType = forward.getResultTypes()[lossIndex];
    SmallVector<Type> resultTypes = {lossType};
    for (const ParameterArgument &p : params)
      resultTypes.push_back(forward.getArgumentTypes()[p.argIndex]);
    OpBuilder moduleBuilder(forward);
    moduleBuilder.setInsertionPointAfter(forward);
    auto gradFn = func::FuncOp::create(
        moduleBuilder, forward.getLoc(), name,
        moduleBuilder.getFunctionType(forward.getArgumentTypes(), resultTypes));
    gradFn.setAllArgAttrs(forward.getAllArgAttrs());
    IRMapping mapping;
    forward.getBody().cloneInto(&gradFn.getBody(), mapping);
    Block &body = gradFn.getBody().front();
    // Loss scaling: the seed is a new last argument.
    Value scaleArgument;
    if (lossScaleArgument) {
      auto scalar = dyn_cast<RankedTensorType>(lossType);
      if (!scalar || scalar.getRank() != 0 ||
          !scalar.getElementType().isF32())
        return forward.emitError("loss scaling needs a float32 scalar "
                                 "loss, but the loss has type ")
               << lossType;
      unsigned index = gradFn.getNumArguments();
      if (failed(gradFn.insertArgument(
              index, lossType,
              DictionaryAttr::get(
                  &getContext(),
                  {NamedAttribute(StringAttr::get(&getContext(),
                                                  DistDialect::kLossScaleAttrName),
                                  UnitAttr::get(&getContext()))}),
              forward.getLoc())))
        return failure();
      scaleArgument = body.getArgument(index);
    }
    Operation *terminator = body.getTerminator();
    Value lossValue = terminator->getOperand(lossIndex);

    // Activity: varied (depends on a trainable parameter) and useful (the
    // loss depends on it).
    DenseSet<Value> varied, useful;
    for (const ParameterArgument &p : params)
      varied.insert(body.getArgument(p.argIndex));
    for (Operation &op : body.without_terminator())
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return varied.contains(v); }))
        for (Value result : op.getResults())
          if (isFloatTensor(result))
            varied.insert(result);
    useful.insert(lossValue);
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (llvm::any_of(op->getResults(),
                       [&](Value v) { return useful.contains(v); }))
        for (Value operand : op->getOperands())
          useful.insert(operand);
    auto active = [&](Value v) {
      return isFloatTensor(v) && varied.contains(v) && useful.contains(v);
    };

    OpBuilder builder = OpBuilder::atBlockTerminator(&body);
    DistBuilder seed(builder, forward.getLoc());
    DenseMap<Value, Value> gradients;
    gradients[lossValue] =
        scaleArgument ? scaleArgument : g1(builder, forward.getLoc(), lossType);
    for (Operation *op : llvm::reverse(ops)) {
      if (!llvm::any_of(op->getResults(), active))
        continue;
      SmallVector<Value> resultGradients;
      for (Value result : op->getResults())
        resultGradients.push_back(gradients.lookup(result));
      if (llvm::all_of(resultGradients, [](Value v) { return !v; }))
        continue;
      SmallVector<bool> needed;
      for (Value operand : op->getOperands())
        needed.push_back(active(operand));
      if (llvm::none_of(needed, [](bool b) { return b; }))
        continue;
      auto differentiable = dyn_cast<GradientOpInterface>(op);
      if (!differentiable)
        return op->emitError("'")
               << op->getName()
               << "' has no gradient, but the loss depends on a parameter "
                  "through it; autodiff cannot differentiate this model";
      builder.setInsertionPoint(terminator);
      Operation *before = terminator->getPrevNode();
      SmallVector<Value> operandGradients;
      if (failed(differentiable.buildGradients(builder, resultGradients, needed,
                                               operandGradients)))
        return failure();
      // Pipeline stages (dist-pipeline-split): the op's backward runs on
      // its stage.
      if (Attribute stage = op->getAttr(DistDialect::kStageAttrName))
        for (Operation *made = before ? before->getNextNode() : &body.front();
             made != terminator; made = made->getNextNode())
          markBackward(made, stage);
      for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
        Value gradient = operandGradients[i];
        if (!needed[i] || !gradient)
          continue;
        if (gradient.getType() != operand.getType())
          return op->emitError("internal error: the gradient of operand #")
                 << i << " has type " << gradient.getType() << ", expected "
                 << operand.getType();
        Value &sum = gradients[operand];
        if (!sum) {
          sum = gradient;
          continue;
        }
        sum = AddOp::create(builder, op->getLoc(), sum, gradient);
        // The sum of a value's gradients runs with the use adding the
        // latest one: two uses on a later stage add up there, and one
        // message goes back.
        if (Attribute stage = op->getAttr(DistDialect::kStageAttrName))
          markBackward(sum.getDefiningOp(), stage);
      }
    }

    // Return the loss, then each parameter's gradient (zero if the loss does
    // not depend on it).
    builder.setInsertionPoint(terminator);
    SmallVector<Value> results = {lossValue};
    for (const ParameterArgument &p : params) {
      Value gradient = gradients.lookup(body.getArgument(p.argIndex));
      results.push_back(
          gradient ? gradient
                   : seed.zeros(body.getArgument(p.argIndex).getType()));
    }
    func::ReturnOp::create(builder, terminator->getLoc(), results);
    terminator->erase();
    gradFn.setResultAttr(0, DistDialect::kOutputNameAttrName,
                         builder.getStringAttr("loss"));
    for (auto [i, p] : llvm::enumerate(params)) {
      ParameterOp parameter = p.parameter;
      gradFn.setResultAttr(i + 1, DistDialect::kGradientAttrName,
                           FlatSymbolRefAttr::get(parameter.getSymNameAttr()));
      gradFn.setResultAttr(
          i + 1, DistDialect::kOutputNameAttrName,
          builder.getStringAttr(parameter.getSymName() + ".grad"));
    }
    return success();
  }

  /// Tags an op of the backward with its pipeline stage.
  static void markBackward(Operation *op, Attribute stage) {
    op->setAttr(DistDialect::kStageAttrName, stage);
    op->setAttr(DistDialect::kBackwardAttrName, UnitAttr::get(op->getContext()));
  }

  /// d loss / d loss: ones of the loss's type.
  static Value g1(OpBuilder &builder, Location loc, Type lossType) {
    auto type = cast<RankedTensorType>(lossType);
    return ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type,
                               builder.getFloatAttr(type.getElementType(), 1)));
  }
};

} // namespace
