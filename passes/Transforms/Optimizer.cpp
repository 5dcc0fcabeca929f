//===- Optimizer.cpp - The training step around a gradient function -------===//
//
// Builds @train_step from dist-autodiff's gradient function: the gradient
// norm, clipping, the learning-rate schedule, and one SGD or AdamW update per
// trainable parameter, in dist ops, so the update fuses and lowers like the
// rest of the step. The arithmetic mirrors PyTorch 1.13's single-tensor
// optimizers operation for operation (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"
#include "passes/Transforms/PowerSgd.h"
#include "passes/Transforms/TopKCompression.h"

#include "dialects/Dist/IR/DistBuilder.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

#define DEBUG_TYPE "dist-optimizer"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTOPTIMIZER
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The hyperparameters that are arguments of the step (set by the trainer,
/// `--lr` etc.), in argument order. Momentum (which decides whether SGD has
/// state) and the Adam betas and epsilon stay compiled.
constexpr StringLiteral kRunTimeHyperparameters[] = {
    "lr",           "weight_decay", "max_grad_norm",
    "warmup_steps", "decay_steps",  "min_lr"};

/// One trainable parameter: its argument, gradient result and state slots.
struct Trained {
  unsigned argIndex;
  unsigned resultIndex;
  std::string name;
  SmallVector<std::string> slots;
  /// The matrix PowerSGD compresses the gradient as (grad-compression=
  /// powersgd:R): its two slots follow the optimizer's.
  std::optional<PowerSgdMatrix> powerSgd;
  /// The elements top-k sends of the gradient (grad-compression=topk:F),
  /// or 0: its slot follows the optimizer's.
  int64_t topK = 0;
};

constexpr StringLiteral kPowerSgdBasisSlot = "powersgd_q";
constexpr StringLiteral kPowerSgdErrorSlot = "powersgd_error";
constexpr StringLiteral kTopKErrorSlot = "topk_error";

struct OptimizerPass : dist::impl::DistOptimizerBase<OptimizerPass> {
  using DistOptimizerBase::DistOptimizerBase;

  LogicalResult checkOptions(Operation *where) {
    if (optimizer != "sgd" && optimizer != "adamw")
      return where->emitError("optimizer '")
             << optimizer << "' is not one of sgd, adamw";
    if (!(lr > 0) || !std::isfinite(lr))
      return where->emitError("lr must be a positive number, got ") << lr;
    // Written so that NaN fails every test; infinities are refused too
    // (they would also not survive the executable's JSON interface).
    auto finite = [](double v) { return std::isfinite(v); };
    if (!(momentum >= 0 && weightDecay >= 0 && maxGradNorm >= 0 &&
          minLr >= 0 && eps > 0 && beta1 >= 0 && beta1 < 1 && beta2 >= 0 &&
          beta2 < 1) ||
        !finite(momentum) || !finite(weightDecay) || !finite(maxGradNorm) ||
        !finite(minLr) || !finite(eps))
      return where->emitError(
          "momentum, weight-decay, max-grad-norm and min-lr must be finite "
          "and >= 0, eps finite and > 0, and beta1, beta2 in [0, 1)");
    if (warmupSteps < 0 || decaySteps < 0)
      return where->emitError("warmup-steps and decay-steps must be >= 0");
    if (nesterov && (optimizer != "sgd" || momentum == 0))
      return where->emitError("nesterov needs sgd with momentum > 0");
    if (lossScale != "none" && lossScale != "dynamic" && lossScale != "static")
      return where->emitError("loss-scale '")
             << lossScale << "' is not one of none, dynamic, static";
    // A normal float32 (1/S finite too), so the seed is not 0.
    if (!(lossScaleValue >= std::numeric_limits<float>::min()) ||
        !finite(lossScaleValue) ||
        lossScaleValue > std::numeric_limits<float>::max())
      return where->emitError("loss-scale-value must be a normal positive "
                              "float32 (1.2e-38 to 3.4e38), got ")
             << lossScaleValue;
    if (lossScaleGrowthInterval < 1)
      return where->emitError("loss-scale-growth-interval must be >= 1");
    if (gradCompression != "none" && gradCompression != "bf16" &&
        gradCompression != "fp16" && !powerSgdRank() &&
        !topKFraction(gradCompression))
      return where->emitError("grad-compression '")
             << gradCompression
             << "' is not one of none, bf16, fp16, powersgd:R (R >= 1), "
                "topk:F (0 < F <= 1)";
    if (dataParallelRanks < 1)
      return where->emitError("data-parallel-ranks must be >= 1");
    if ((powerSgdRank() || topKFraction(gradCompression)) &&
        lossScale != "none")
      return where->emitError("grad-compression ")
             << gradCompression
             << " with loss scaling: the residuals each rank keeps would be "
                "in the scale of the step that made them; use bf16 (no loss "
                "scaling) or grad-compression none";
    return success();
  }

  /// R of grad-compression=powersgd:R, or 0.
  int64_t powerSgdRank() {
    StringRef spec = gradCompression;
    int64_t rank;
    if (!spec.consume_front("powersgd:") || spec.getAsInteger(10, rank) ||
        rank < 1)
      return 0;
    return rank;
  }

  /// The type of state slot `slot` of `t`, a parameter of type `param`.
  Type slotType(const Trained &t, unsigned slot, Type param) {
    auto type = cast<RankedTensorType>(param);
    StringRef name = t.slots[slot];
    if (name == kPowerSgdBasisSlot)
      return type.clone({t.powerSgd->cols, t.powerSgd->rank});
    if (name == kPowerSgdErrorSlot || name == kTopKErrorSlot) {
      SmallVector<int64_t> stacked = {dataParallelRanks};
      llvm::append_range(stacked, type.getShape());
      return type.clone(stacked);
    }
    return type;
  }

  /// PowerSGD on each gradient it compresses: P = M Q computed and summed
  /// where the gradient is made (its reduction overlaps the rest of the
  /// backward), the rest at the builder's point (the end of the backward).
  /// Returns the new basis and residual of each compressed parameter, by
  /// trained index.
  DenseMap<unsigned, std::pair<Value, Value>>
  compressPowerSgd(OpBuilder &builder, ArrayRef<Trained> trained,
                   SmallVectorImpl<Value> &gradResults, Value step,
                   function_ref<Value(unsigned, StringRef)> stateArg) {
    DenseMap<unsigned, std::pair<Value, Value>> next;
    MLIRContext *ctx = builder.getContext();
    SmallVector<unsigned> compressed;
    for (auto [i, t] : llvm::enumerate(trained))
      if (t.powerSgd)
        compressed.push_back(i);
    if (compressed.empty())
      return next;
    auto named = [&](const Trained &t) {
      return DistBuilder(
          builder,
          compressionLoc(t.name, gradResults[t.resultIndex].getLoc()));
    };
    // The bases the steps multiply by: the state (orthogonalized when it
    // was made), or on step 1 the initial ones, orthogonalized here.
    SmallVector<Value> bases;
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(step.getParentBlock());
      DistBuilder g(builder, NameLoc::get(StringAttr::get(
                                 ctx, "gradient compression (" +
                                          gradCompression + ")")));
      Value first = g.compare(ComparePredicate::eq, step,
                              g.scalar(1.0, elementTypeOf(step)));
      SmallVector<Value> initial;
      for (unsigned i : compressed)
        initial.push_back(powerSgdInitialBasis(g, *trained[i].powerSgd));
      for (auto [i, start] :
           llvm::zip(compressed, orthogonalizeEach(g, initial)))
        bases.push_back(
            g.select(first, start, stateArg(i, kPowerSgdBasisSlot)));
    }
    // P = M Q summed where each gradient is made.
    SmallVector<PowerSgdStep> steps;
    for (auto [i, basis] : llvm::zip(compressed, bases)) {
      const Trained &t = trained[i];
      Value gr = gradResults[t.resultIndex];
      DistBuilder g = named(t);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointAfterValue(gr);
      steps.push_back(startPowerSgd(g, gr, basis,
                                    stateArg(i, kPowerSgdErrorSlot),
                                    dataParallelRanks, *t.powerSgd));
    }
    // Then, at the end of the backward, the rest of every one.
    DistBuilder g(builder, NameLoc::get(StringAttr::get(
                               ctx, "gradient compression (" +
                                        gradCompression + ")")));
    sumPowerSgdBases(g, steps);
    SmallVector<Value> qs;
    for (auto [i, s] : llvm::zip(compressed, steps)) {
      Value &gr = gradResults[trained[i].resultIndex];
      DistBuilder gp = named(trained[i]);
      auto [gradient, error] =
          finishPowerSgd(gp, s, shapeOf(gr), dataParallelRanks);
      gr = gradient;
      next[i] = {Value(), error};
      qs.push_back(s.q);
    }
    for (auto [i, basis] : llvm::zip(compressed, orthogonalizeEach(g, qs)))
      next[i].first = basis;
    return next;
  }

  /// Top-k of each gradient it compresses: the selection and its sums over
  /// the ranks where the gradient is made (they overlap the rest of the
  /// backward), the gradient they add up to at the builder's point (the
  /// end of the backward). Returns the new residual of each compressed
  /// parameter, by trained index.
  DenseMap<unsigned, Value>
  compressTopK(OpBuilder &builder, ArrayRef<Trained> trained,
               SmallVectorImpl<Value> &gradResults,
               function_ref<Value(unsigned, StringRef)> stateArg) {
    DenseMap<unsigned, Value> next;
    SmallVector<std::pair<unsigned, TopKStep>> steps;
    for (auto [i, t] : llvm::enumerate(trained)) {
      if (!t.topK)
        continue;
      Value gr = gradResults[t.resultIndex];
      DistBuilder g(builder, compressionLoc(t.name, gr.getLoc()));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointAfterValue(gr);
      steps.push_back({static_cast<unsigned>(i),
                       startTopK(g, gr, stateArg(i, kTopKErrorSlot),
                                 dataParallelRanks, t.topK)});
    }
    for (auto &[i, step] : steps) {
      Value &gr = gradResults[trained[i].resultIndex];
      DistBuilder g(builder, compressionLoc(trained[i].name, gr.getLoc()));
      gr = finishTopK(g, step, gr.getType());
      next[i] = step.residual;
    }
    return next;
  }

  /// "gradient compression (SPEC) of NAME" at `at`.
  Location compressionLoc(StringRef name, Location at) {
    return NameLoc::get(StringAttr::get(&getContext(),
                                        "gradient compression (" +
                                            gradCompression + ") of " + name),
                        at);
  }

  /// Rounds each float32 gradient to the compression type where it is made
  /// and widens it back at the builder's point (the end of the backward),
  /// before the update reads it: the narrowing cast carries
  /// dist.compressed, so that dist-partition takes the data-parallel sum
  /// after it, in that type.
  void compressGradients(OpBuilder &builder, ArrayRef<Trained> trained,
                         SmallVectorImpl<Value> &gradResults) {
    if (gradCompression != "bf16" && gradCompression != "fp16")
      return;
    MLIRContext *ctx = builder.getContext();
    Type narrow = gradCompression == "bf16" ? Type(builder.getBF16Type())
                                            : Type(builder.getF16Type());
    for (const Trained &t : trained) {
      Value &gr = gradResults[t.resultIndex];
      Type element = getElementTypeOrSelf(gr.getType());
      if (!element.isF32())
        continue;
      DistBuilder g(builder, compressionLoc(t.name, gr.getLoc()));
      // Rounded where the gradient is made, widened where the update
      // starts: the reduction in between may run behind the rest of the
      // backward (dist-overlap-collectives).
      Value rounded;
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointAfterValue(gr);
        rounded = g.cast(gr, narrow);
      }
      rounded.getDefiningOp()->setAttr(DistDialect::kCompressedAttrName,
                                       UnitAttr::get(ctx));
      gr = g.cast(rounded, element);
    }
  }

  SmallVector<std::string> slotsOf() {
    if (optimizer == "adamw")
      return {"exp_avg", "exp_avg_sq"};
    if (momentum > 0)
      return {"momentum_buffer"};
    return {};
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module)))
      return signalPassFailure();
    auto gradFn = module.lookupSymbol<func::FuncOp>(function);
    if (!gradFn || gradFn.isExternal() || gradFn.getNumResults() < 1) {
      module.emitError("no gradient function @")
          << function << "; run dist-autodiff first";
      return signalPassFailure();
    }
    if (module.lookupSymbol(stepFunction)) {
      module.emitError("a symbol @") << stepFunction << " already exists";
      return signalPassFailure();
    }
    // Match each gradient result to its parameter's argument.
    FailureOr<SmallVector<GradientResult>> gradients =
        matchGradientResults(gradFn);
    if (failed(gradients))
      return signalPassFailure();
    SmallVector<Trained> trained;
    for (const GradientResult &g : *gradients) {
      trained.push_back({g.argIndex, g.resultIndex,
                         g.parameter.getValue().str(), slotsOf(), {}});
      auto gradType =
          cast<RankedTensorType>(gradFn.getResultTypes()[g.resultIndex]);
      // (Float32 gradients of float32 parameters: the basis and residuals
      // are float32.)
      if (int64_t rank = powerSgdRank();
          rank && gradType.getElementType().isF32() &&
          getElementTypeOrSelf(gradFn.getArgumentTypes()[g.argIndex]).isF32())
        if ((trained.back().powerSgd =
                 powerSgdMatrix(gradType.getShape(), rank)))
          trained.back().slots.append(
              {kPowerSgdBasisSlot.str(), kPowerSgdErrorSlot.str()});
      // Top-k: every (non-empty) float32 gradient of a float32 parameter.
      if (std::optional<double> fraction = topKFraction(gradCompression);
          fraction && gradType.getNumElements() > 0 &&
          gradType.getElementType().isF32() &&
          getElementTypeOrSelf(gradFn.getArgumentTypes()[g.argIndex]).isF32()) {
        trained.back().topK = topKKept(*fraction, gradType.getNumElements());
        trained.back().slots.push_back(kTopKErrorSlot.str());
      }
    }
    if (failed(buildTrainStep(gradFn, trained)))
      return signalPassFailure();
    gradFn.erase();
  }

  LogicalResult buildTrainStep(func::FuncOp gradFn,
                               MutableArrayRef<Trained> trained) {
    MLIRContext *ctx = &getContext();
    Location loc = gradFn.getLoc();
    Type f32 = Float32Type::get(ctx), f64 = Float64Type::get(ctx);
    auto scalarF32 = RankedTensorType::get({}, f32);
    auto stepType = RankedTensorType::get({}, IntegerType::get(ctx, 64));

    // With loss scaling, the gradient function's last argument is the scale
    // that seeds its backward: the step computes it.
    bool scaling = lossScale != "none", dynamicScale = lossScale == "dynamic";
    unsigned gradArgs = gradFn.getNumArguments();
    bool hasScaleArg =
        gradArgs > 0 &&
        gradFn.getArgAttr(gradArgs - 1, DistDialect::kLossScaleAttrName);
    if (hasScaleArg != scaling)
      return gradFn.emitError(
          scaling ? "loss scaling needs a gradient function seeded by a "
                    "dist.loss_scale argument (dist-autodiff "
                    "{loss-scale-argument})"
                  : "the gradient function takes a dist.loss_scale "
                    "argument: set loss-scale to dynamic or static");
    if (scaling)
      --gradArgs;
    SmallVector<Type> argTypes(gradFn.getArgumentTypes().take_front(gradArgs));
    unsigned stepIndex = argTypes.size();
    argTypes.push_back(stepType);
    SmallVector<std::pair<unsigned, unsigned>> stateArgs; // (param, slot)
    for (auto [i, t] : llvm::enumerate(trained))
      for (unsigned s = 0; s < t.slots.size(); ++s) {
        stateArgs.push_back({static_cast<unsigned>(i), s});
        argTypes.push_back(
            slotType(t, s, gradFn.getArgumentTypes()[t.argIndex]));
      }
    // The loss scaler's state, after the parameters': (slot, initial
    // value).
    SmallVector<std::pair<StringRef, double>> scalerSlots;
    if (dynamicScale)
      scalerSlots = {{"loss_scale", lossScaleValue},
                     {"loss_scale_growth_tracker", 0.0}};
    if (scaling)
      scalerSlots.push_back({"skipped_steps", 0.0});
    unsigned scalerIndex = argTypes.size();
    for (size_t k = 0; k < scalerSlots.size(); ++k)
      argTypes.push_back(scalarF32);
    // Dropout masks are keyed by the run's seed and the step: an argument
    // for the seed, after the state, when the step has any dropout.
    bool hasDropout = !gradFn.getBody().getOps<DropoutOp>().empty() ||
                      !gradFn.getBody().getOps<RandomUniformOp>().empty() ||
                      !gradFn.getBody().getOps<RandomNormalOp>().empty();
    std::optional<unsigned> seedIndex;
    if (hasDropout) {
      seedIndex = argTypes.size();
      argTypes.push_back(stepType);
    }
    // The hyperparameters the trainer may change at run time: f64 scalars,
    // last; the compiled values are their defaults (dist.meta).
    unsigned hparamIndex = argTypes.size();
    auto scalarF64 = RankedTensorType::get({}, f64);
    for (size_t k = 0; k < std::size(kRunTimeHyperparameters); ++k)
      argTypes.push_back(scalarF64);
    // loss, grad_norm, lr[, loss_scale, skipped], then the updates.
    unsigned outputs = scaling ? 5 : 3;
    SmallVector<Type> resultTypes(outputs, scalarF32);
    for (const Trained &t : trained)
      resultTypes.push_back(gradFn.getArgumentTypes()[t.argIndex]);
    for (size_t k = 0; k < stateArgs.size(); ++k)
      resultTypes.push_back(argTypes[stepIndex + 1 + k]);
    for (size_t k = 0; k < scalerSlots.size(); ++k)
      resultTypes.push_back(scalarF32);

    OpBuilder builder(gradFn);
    auto step =
        func::FuncOp::create(builder, loc, stepFunction,
                             builder.getFunctionType(argTypes, resultTypes));
    for (unsigned a = 0; a < gradArgs; ++a)
      step.setArgAttrs(a, gradFn.getArgAttrDict(a)
                              ? gradFn.getArgAttrDict(a).getValue()
                              : ArrayRef<NamedAttribute>());
    step.setArgAttr(stepIndex, DistDialect::kStepAttrName, UnitAttr::get(ctx));
    if (seedIndex)
      step.setArgAttr(*seedIndex, DistDialect::kSeedAttrName,
                      UnitAttr::get(ctx));
    for (auto [k, name] : llvm::enumerate(kRunTimeHyperparameters))
      step.setArgAttr(hparamIndex + k, DistDialect::kHyperparameterAttrName,
                      StringAttr::get(ctx, name));
    for (auto [k, ps] : llvm::enumerate(stateArgs)) {
      StringRef slot = trained[ps.first].slots[ps.second];
      step.setArgAttr(
          stepIndex + 1 + k, DistDialect::kOptimizerStateAttrName,
          OptimizerStateAttr::get(
              ctx, FlatSymbolRefAttr::get(ctx, trained[ps.first].name),
              StringAttr::get(ctx, slot)));
      if (slot == kPowerSgdErrorSlot || slot == kTopKErrorSlot)
        step.setArgAttr(stepIndex + 1 + k, DistDialect::kPerRankAttrName,
                        UnitAttr::get(ctx));
    }
    for (auto [k, slot] : llvm::enumerate(scalerSlots))
      step.setArgAttr(
          scalerIndex + k, DistDialect::kOptimizerStateAttrName,
          OptimizerStateAttr::get(
              ctx, FlatSymbolRefAttr(), StringAttr::get(ctx, slot.first),
              slot.second != 0 ? FloatAttr::get(f32, slot.second)
                               : FloatAttr()));
    const char *names[] = {"loss", "grad_norm", "lr", "loss_scale",
                           "skipped"};
    for (unsigned r = 0; r < outputs; ++r)
      step.setResultAttr(r, DistDialect::kOutputNameAttrName,
                         StringAttr::get(ctx, names[r]));

    // The gradient function's body, then the update.
    Block *entry = step.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (unsigned a = 0; a < gradArgs; ++a)
      mapping.map(gradFn.getArgument(a), entry->getArgument(a));
    DistBuilder g(builder, loc);
    auto scalerArg = [&](StringRef slot) {
      for (auto [k, s] : llvm::enumerate(scalerSlots))
        if (s.first == slot)
          return entry->getArgument(scalerIndex + k);
      llvm_unreachable("no such scaler state");
    };
    // The scale that seeds the backward.
    Value scale;
    if (scaling) {
      scale = dynamicScale ? Value(scalerArg("loss_scale"))
                           : g.scalar(lossScaleValue, f32);
      mapping.map(gradFn.getArgument(gradArgs), scale);
    }
    Block &gradBody = gradFn.getBody().front();
    for (Operation &op : gradBody.without_terminator())
      builder.clone(op, mapping);
    SmallVector<Value> gradResults;
    for (Value v : gradBody.getTerminator()->getOperands())
      gradResults.push_back(mapping.lookup(v));
    if (seedIndex)
      keyDropouts(entry, entry->getArgument(*seedIndex),
                  entry->getArgument(stepIndex));
    compressGradients(builder, trained, gradResults);
    auto stateOf = [&](unsigned param, StringRef slot) -> Value {
      unsigned k = 0;
      for (auto [pi, si] : stateArgs) {
        if (pi == param && trained[pi].slots[si] == slot)
          return entry->getArgument(stepIndex + 1 + k);
        ++k;
      }
      llvm_unreachable("no such state");
    };
    DenseMap<unsigned, std::pair<Value, Value>> powerSgdState =
        compressPowerSgd(builder, trained, gradResults,
                         entry->getArgument(stepIndex), stateOf);
    DenseMap<unsigned, Value> topKState =
        compressTopK(builder, trained, gradResults, stateOf);

    auto s64 = [&](double v) { return g.scalar(v, f64); };
    auto hparam = [&](StringRef name) -> Value {
      auto *it = llvm::find(kRunTimeHyperparameters, name);
      return entry->getArgument(hparamIndex +
                                (it - std::begin(kRunTimeHyperparameters)));
    };
    Value lrV = hparam("lr"), weightDecayV = hparam("weight_decay"),
          maxGradNormV = hparam("max_grad_norm"),
          warmupV = hparam("warmup_steps"), decayV = hparam("decay_steps"),
          minLrV = hparam("min_lr");
    auto asType = [&](Value v, Value like) {
      return g.cast(v, elementTypeOf(like));
    };

    // Loss scaling: whether any gradient is inf or NaN (x * 0 is NaN
    // exactly for those), then the gradients unscaled by 1/S (computed in
    // float64 and rounded once, as GradScaler's inv_scale).
    Value found;
    if (scaling) {
      Location scalerLoc =
          NameLoc::get(StringAttr::get(ctx, "loss scaling"), loc);
      DistBuilder gs(builder, scalerLoc);
      Value zeros;
      for (Trained &t : trained) {
        Value gr = gs.cast(gradResults[t.resultIndex], f32);
        Value z = gs.reduceSum(
            gs.mul(gr, 0.0),
            llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(gr).size())),
            /*keepDims=*/false);
        zeros = zeros ? gs.add(zeros, z) : z;
      }
      found = zeros ? gs.compare(ComparePredicate::ne, zeros, zeros)
                    : gs.compare(ComparePredicate::ne, gs.scalar(0.0, f32),
                                 gs.scalar(0.0, f32));
      Value inverse = gs.cast(gs.div(s64(1.0), gs.cast(scale, f64)), f32);
      // In float32 whatever the gradient's type (1/S underflows float16).
      for (Trained &t : trained) {
        Value &gr = gradResults[t.resultIndex];
        gr = gs.cast(gs.mul(gs.cast(gr, f32), inverse), elementTypeOf(gr));
      }
    }

    // Global gradient norm (float32), then clipping. Its ops are named, so
    // that diagnostics and --explain say what they compute.
    Location normLoc = NameLoc::get(StringAttr::get(ctx, "gradient norm"), loc);
    DistBuilder gNorm(builder, normLoc);
    Value sumSquares;
    for (Trained &t : trained) {
      Value gr = gNorm.cast(gradResults[t.resultIndex], f32);
      Value ss = gNorm.reduceSum(
          gNorm.mul(gr, gr),
          llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(gr).size())),
          /*keepDims=*/false);
      sumSquares = sumSquares ? gNorm.add(sumSquares, ss) : ss;
    }
    if (!extraGradSquares.empty()) {
      std::optional<unsigned> extra;
      for (unsigned a = 0; a < gradArgs; ++a)
        if (auto name = step.getArgAttrOfType<StringAttr>(
                a, DistDialect::kInputNameAttrName);
            name && name.getValue() == extraGradSquares)
          extra = a;
      if (!extra || entry->getArgument(*extra).getType() != scalarF32)
        return gradFn.emitError("extra-grad-squares: no float32 scalar "
                                "input named '")
               << extraGradSquares << "'";
      Value others = entry->getArgument(*extra);
      sumSquares = sumSquares ? gNorm.add(sumSquares, others) : others;
    }
    Value norm = SqrtOp::create(builder, normLoc, sumSquares);
    SmallVector<Value> grads;
    for (Trained &t : trained)
      grads.push_back(gradResults[t.resultIndex]);
    // Clipping as PyTorch's clip_grad_norm_ (every gradient times the
    // clamped coefficient); a max-grad-norm of 0 turns it off (coefficient
    // 1, exact).
    {
      Value coef =
          g.div(g.cast(maxGradNormV, f32), g.add(norm, g.scalar(1e-6, f32)));
      coef = MinOp::create(builder, loc, coef, g.scalar(1.0, f32));
      coef = g.select(g.compare(ComparePredicate::gt, maxGradNormV, s64(0.0)),
                      coef, g.scalar(1.0, f32));
      for (Value &gr : grads)
        gr = g.mul(gr, asType(coef, gr));
    }

    // The learning rate of this step (float64).
    // Linear warmup over warmup-steps (none when 0), then, when
    // decay-steps > warmup-steps, cosine decay to min-lr at decay-steps.
    // Both branches are computed; the selects pick what the compiled
    // schedule used to (the unselected one may divide by zero).
    Value t = g.cast(entry->getArgument(stepIndex), f64);
    Value warm = g.select(
        g.compare(ComparePredicate::gt, warmupV, s64(0.0)),
        MinOp::create(builder, loc, g.div(t, warmupV), s64(1.0)), s64(1.0));
    Value rate = g.mul(warm, lrV);
    Value progress = g.div(g.sub(t, warmupV), g.sub(decayV, warmupV));
    progress = MaxOp::create(builder, loc,
                             MinOp::create(builder, loc, progress, s64(1.0)),
                             s64(0.0));
    Value cosine = g.mul(
        g.add(s64(1.0), CosOp::create(builder, loc, g.mul(progress, M_PI))),
        0.5);
    Value decayed = g.add(minLrV, g.mul(cosine, g.sub(lrV, minLrV)));
    Value decaying = AndOp::create(
        builder, loc, g.compare(ComparePredicate::gt, decayV, warmupV),
        g.compare(ComparePredicate::gt, t, warmupV));
    rate = g.select(decaying, decayed, rate);

    SmallVector<Value> results = {g.cast(gradResults[0], f32), norm,
                                  g.cast(rate, f32)};
    // AdamW's bias correction counts the steps taken (PyTorch's per-step
    // counter does not move on a step GradScaler skips).
    Value taken = t;
    if (scaling) {
      results.push_back(scale);
      results.push_back(g.cast(found, f32));
      taken = g.sub(t, g.cast(scalerArg("skipped_steps"), f64));
    }
    SmallVector<Value> newStates;
    // PowerSGD's or top-k's slots follow the optimizer's, in stateArgs'
    // order.
    auto pushCompressionState = [&](unsigned i) {
      if (auto it = powerSgdState.find(i); it != powerSgdState.end()) {
        newStates.push_back(it->second.first);
        newStates.push_back(it->second.second);
      }
      if (auto it = topKState.find(i); it != topKState.end())
        newStates.push_back(it->second);
    };
    for (auto [i, tr] : llvm::enumerate(trained)) {
      Value p = entry->getArgument(tr.argIndex), gr = grads[i];
      auto stateArg = [&](unsigned slot) {
        unsigned k = 0;
        for (auto [pi, si] : stateArgs) {
          if (pi == i && si == slot)
            return entry->getArgument(stepIndex + 1 + k);
          ++k;
        }
        llvm_unreachable("no such state");
      };
      auto sc = [&](Value v64) { return asType(v64, p); };
      if (optimizer == "sgd") {
        // Weight decay of 0 adds p * 0: exact.
        Value d = g.add(gr, g.mul(p, sc(weightDecayV)));
        if (momentum > 0) {
          Value buf = g.add(g.mul(stateArg(0), sc(s64(momentum))), d);
          newStates.push_back(buf);
          d = nesterov ? g.add(d, g.mul(buf, sc(s64(momentum)))) : buf;
        }
        results.push_back(g.add(p, g.mul(d, sc(g.neg(rate)))));
        pushCompressionState(i);
        continue;
      }
      // AdamW.
      // Weight decay of 0 multiplies by 1: exact.
      Value p1 = g.mul(p, sc(g.sub(s64(1.0), g.mul(rate, weightDecayV))));
      Value m = g.add(g.mul(stateArg(0), sc(s64(beta1))),
                      g.mul(gr, sc(s64(1.0 - beta1))));
      Value v = g.add(g.mul(stateArg(1), sc(s64(beta2))),
                      g.mul(g.mul(gr, sc(s64(1.0 - beta2))), gr));
      Value bc1 =
          g.sub(s64(1.0), PowOp::create(builder, loc, s64(beta1), taken));
      Value bc2 =
          g.sub(s64(1.0), PowOp::create(builder, loc, s64(beta2), taken));
      Value stepSize = g.div(rate, bc1);
      Value bc2Sqrt = SqrtOp::create(builder, loc, bc2);
      Value denom = g.add(g.div(SqrtOp::create(builder, loc, v), sc(bc2Sqrt)),
                          sc(s64(eps)));
      results.push_back(g.add(p1, g.div(g.mul(m, sc(g.neg(stepSize))), denom)));
      newStates.push_back(m);
      newStates.push_back(v);
      pushCompressionState(i);
    }
    llvm::append_range(results, newStates);
    if (scaling) {
      // A skipped step keeps every parameter and state.
      for (auto [k, r] : llvm::enumerate(
               MutableArrayRef<Value>(results).drop_front(outputs))) {
        Value old = k < trained.size()
                        ? entry->getArgument(trained[k].argIndex)
                        : entry->getArgument(stepIndex + 1 + k -
                                             trained.size());
        r = g.select(found, old, r);
      }
      // GradScaler's update: back off on inf/nan, grow after
      // growth-interval clean steps in a row (when the double is finite).
      Value one = g.scalar(1.0, f32), zero = g.scalar(0.0, f32);
      Value skipped = scalerArg("skipped_steps");
      if (dynamicScale) {
        Value tracker = g.add(scalerArg("loss_scale_growth_tracker"), one);
        Value grow = AndOp::create(
            builder, loc,
            g.compare(ComparePredicate::ge, tracker,
                      g.scalar(static_cast<double>(lossScaleGrowthInterval),
                               f32)),
            g.compare(ComparePredicate::le, scale,
                      g.scalar(std::numeric_limits<float>::max() / 2, f32)));
        Value grown = g.select(grow, g.mul(scale, 2.0), scale);
        results.push_back(g.select(found, g.mul(scale, 0.5), grown));
        results.push_back(g.select(
            found, zero,
            g.select(g.compare(ComparePredicate::ge, tracker,
                               g.scalar(static_cast<double>(
                                            lossScaleGrowthInterval),
                                        f32)),
                     zero, tracker)));
      }
      results.push_back(g.add(skipped, g.select(found, one, zero)));
    }
    // Batch norm in training mode also updates its running statistics, as
    // PyTorch does: running = momentum * running + (1 - momentum) * batch
    // statistic (ONNX's momentum), with the unbiased batch variance.
    SmallVector<std::pair<Value, unsigned>> running;
    for (auto bn : llvm::to_vector(entry->getOps<BatchNormOp>())) {
      if (!bn.getTraining())
        continue;
      auto mean = dyn_cast<BlockArgument>(bn.getMean());
      auto var = dyn_cast<BlockArgument>(bn.getVariance());
      if (!mean || !var || mean.getOwner() != entry ||
          var.getOwner() != entry ||
          !getParameterRef(step, mean.getArgNumber()) ||
          !getParameterRef(step, var.getArgNumber()))
        continue;
      if (llvm::any_of(running, [&](auto &r) {
            return r.second == mean.getArgNumber() ||
                   r.second == var.getArgNumber();
          })) {
        return bn.emitError("running statistics shared by two batch norms; "
                            "each training batch norm needs its own");
      }
      Value x = bn.getInput();
      ArrayRef<int64_t> shape = shapeOf(x);
      SmallVector<int64_t> axes = {0};
      int64_t count = shape[0];
      for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d) {
        axes.push_back(d);
        count *= shape[d];
      }
      Value batchMean = g.reduceMean(x, axes, /*keepDims=*/true);
      Value centered = g.sub(x, batchMean);
      Value batchVar = g.reduceSum(g.mul(centered, centered), axes, false);
      batchVar = g.mul(
          batchVar, 1.0 / static_cast<double>(std::max<int64_t>(count - 1, 1)));
      batchMean = g.reshape(batchMean, shapeOf(mean));
      double m = bn.getMomentum().convertToDouble();
      auto blend = [&](Value old, Value stat) {
        return g.add(g.mul(old, m), g.mul(stat, 1.0 - m));
      };
      results.push_back(blend(mean, batchMean));
      running.push_back({results.back(), mean.getArgNumber()});
      results.push_back(blend(var, batchVar));
      running.push_back({results.back(), var.getArgNumber()});
    }
    for (auto &r : running)
      if (failed(step.insertResult(step.getNumResults(), r.first.getType(),
                                   DictionaryAttr::get(ctx))))
        return failure();
    func::ReturnOp::create(builder, loc, results);
    unsigned scalerResults = outputs + trained.size() + stateArgs.size();
    for (auto [k, r] : llvm::enumerate(running))
      step.setResultAttr(scalerResults + scalerSlots.size() + k,
                         DistDialect::kUpdatesAttrName,
                         builder.getI64IntegerAttr(r.second));

    // Which argument each new value replaces.
    for (auto [i, tr] : llvm::enumerate(trained))
      step.setResultAttr(outputs + i, DistDialect::kUpdatesAttrName,
                         builder.getI64IntegerAttr(tr.argIndex));
    for (unsigned k = 0; k < stateArgs.size(); ++k)
      step.setResultAttr(outputs + trained.size() + k,
                         DistDialect::kUpdatesAttrName,
                         builder.getI64IntegerAttr(stepIndex + 1 + k));
    for (unsigned k = 0; k < scalerSlots.size(); ++k)
      step.setResultAttr(scalerResults + k, DistDialect::kUpdatesAttrName,
                         builder.getI64IntegerAttr(scalerIndex + k));
    step->setAttr(DistDialect::kMetaAttrName, metaAttr());
    return success();
  }

  /// Keys every dropout's masks by the run's seed and the step number, and
  /// gives dropouts that share a seed (hand-written IR) distinct ones, so
  /// that no two ops and no two steps draw the same mask.
  static void keyDropouts(Block *entry, Value seed, Value step) {
    llvm::SmallDenseSet<uint64_t> seen;
    uint64_t ordinal = 0;
    auto key = [&](auto op) {
      ++ordinal;
      uint64_t identity = static_cast<uint64_t>(op.getSeed());
      while (!seen.insert(identity).second)
        identity += ordinal * 0x9E3779B97F4A7C15ULL;
      op.setSeed(identity);
      op.getKeysMutable().append(ValueRange{seed, step});
    };
    for (Operation &op : *entry)
      llvm::TypeSwitch<Operation *>(&op)
          .Case<DropoutOp, RandomUniformOp, RandomNormalOp>(key);
  }

  /// The hyperparameters, for the executable's interface and checkpoints.
  DictionaryAttr metaAttr() {
    Builder b(&getContext());
    SmallVector<NamedAttribute> entries;
    auto add = [&](StringRef key, Attribute value) {
      entries.push_back(b.getNamedAttr(key, value));
    };
    add("optimizer", b.getStringAttr(optimizer));
    add("lr", b.getF64FloatAttr(lr));
    if (optimizer == "sgd") {
      add("momentum", b.getF64FloatAttr(momentum));
      if (nesterov)
        add("nesterov", b.getBoolAttr(true));
    } else {
      add("beta1", b.getF64FloatAttr(beta1));
      add("beta2", b.getF64FloatAttr(beta2));
      add("eps", b.getF64FloatAttr(eps));
    }
    add("weight_decay", b.getF64FloatAttr(weightDecay));
    add("max_grad_norm", b.getF64FloatAttr(maxGradNorm));
    add("warmup_steps", b.getI64IntegerAttr(warmupSteps));
    add("decay_steps", b.getI64IntegerAttr(decaySteps));
    add("min_lr", b.getF64FloatAttr(minLr));
    return b.getDictionaryAttr(entries);
  }
};

} // namespace
