//===- ParameterServerGradients.cpp - A server's gradient function --------===//
//
// Parameter-server mode runs two kinds of program from one gradient
// function: the workers run it as is; each server gets a function of the
// same shape whose gradients are inputs (what the workers pushed, summed),
// so that dist-optimizer builds the server's update exactly as it builds a
// training step's.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"

#include "dialects/Dist/IR/DistParameters.h"

#define DEBUG_TYPE "dist-ps-server-gradients"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPARAMETERSERVERGRADIENTS
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// A trainable parameter of the gradient function: its argument, gradient
/// result and size.
struct Trained {
  unsigned argIndex, resultIndex;
  FlatSymbolRefAttr name;
  int64_t bytes;
};

struct ParameterServerGradientsPass
    : dist::impl::DistParameterServerGradientsBase<
          ParameterServerGradientsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gradFn = module.lookupSymbol<func::FuncOp>(function);
    if (!gradFn || gradFn.isExternal() || gradFn.getNumResults() < 1) {
      module.emitError("no gradient function @")
          << function << "; run dist-autodiff first";
      return signalPassFailure();
    }
    if (servers < 1 || server < 0 || server >= servers) {
      module.emitError("dist-ps-server-gradients: server ")
          << static_cast<int64_t>(server) << " is not one of "
          << static_cast<int64_t>(servers) << " servers";
      return signalPassFailure();
    }
    if (module.lookupSymbol(output)) {
      module.emitError("a symbol @") << output << " already exists";
      return signalPassFailure();
    }
    // What a server cannot do with pushed gradients.
    WalkResult refused = gradFn.walk([&](Operation *op) {
      if (isa<DropoutOp>(op)) {
        op->emitError("dropout in parameter-server mode: the workers would "
                      "draw the same masks every step; export the model in "
                      "eval mode (or without dropout), or use --parallel=dp");
        return WalkResult::interrupt();
      }
      if (isa<RandomUniformOp, RandomNormalOp>(op)) {
        op->emitError("random sampling in parameter-server mode (e.g. drop "
                      "path, torch.rand/randn): the workers would draw the "
                      "same values every step; export the model without it, "
                      "or use --parallel=dp");
        return WalkResult::interrupt();
      }
      // The servers average the workers' gradients: right for a mean over
      // each worker's rows, 1/W of the step for a sum.
      LossReduction reduction = LossReduction::mean;
      if (auto loss = dyn_cast<CrossEntropyOp>(op))
        reduction = loss.getReduction();
      if (auto loss = dyn_cast<NllLossOp>(op))
        reduction = loss.getReduction();
      if (reduction == LossReduction::sum) {
        op->emitError("a loss summed over the batch in parameter-server "
                      "mode: each worker's gradient would be the sum over "
                      "its rows, and the servers average the workers' "
                      "gradients (1/W of the step); use reduction='mean', "
                      "or --parallel=dp");
        return WalkResult::interrupt();
      }
      if (auto bn = dyn_cast<BatchNormOp>(op); bn && bn.getTraining()) {
        op->emitError("batch norm in training mode in parameter-server "
                      "mode: its running statistics are not gradients the "
                      "servers could apply; use --parallel=dp");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();

    FailureOr<SmallVector<GradientResult>> gradients =
        matchGradientResults(gradFn);
    if (failed(gradients))
      return signalPassFailure();
    for (const GradientResult &g : *gradients)
      if (!getElementTypeOrSelf(gradFn.getArgumentTypes()[g.argIndex])
               .isF32() ||
          !getElementTypeOrSelf(gradFn.getResultTypes()[g.resultIndex])
               .isF32()) {
        gradFn.emitError("parameter-server mode: parameter @")
            << g.parameter.getValue()
            << " or its gradient is not float32; the workers push and the "
               "servers update float32 tensors (--precision=bf16 keeps "
               "them so): use --parallel=dp for this model";
        return signalPassFailure();
      }
    SmallVector<Trained> trained;
    for (const GradientResult &g : *gradients)
      trained.push_back(
          {g.argIndex, g.resultIndex, g.parameter,
           tensorBytes(gradFn.getArgumentTypes()[g.argIndex])});
    if (static_cast<int64_t>(trained.size()) < servers) {
      gradFn.emitError("parameter-server mode with ")
          << static_cast<int64_t>(servers) << " servers, but the model trains only "
          << trained.size()
          << " parameters (a server owns whole parameters): use at most "
          << trained.size() << " servers";
      return signalPassFailure();
    }
    // Largest first (argument order among equal sizes), each to the least
    // loaded server (the lower index on a tie).
    SmallVector<unsigned> order(trained.size());
    for (unsigned i = 0; i < order.size(); ++i)
      order[i] = i;
    llvm::sort(order, [&](unsigned a, unsigned b) {
      return trained[a].bytes != trained[b].bytes
                 ? trained[a].bytes > trained[b].bytes
                 : a < b;
    });
    SmallVector<int64_t> load(servers, 0);
    SmallVector<bool> mine(trained.size(), false);
    for (unsigned i : order) {
      int64_t least = 0;
      for (int64_t s = 1; s < servers; ++s)
        if (load[s] < load[least])
          least = s;
      load[least] += trained[i].bytes;
      mine[i] = least == server;
    }

    MLIRContext *ctx = &getContext();
    gradFn->setAttr(DistDialect::kPsWorkerAttrName, UnitAttr::get(ctx));
    Type f32 = Float32Type::get(ctx);
    auto scalarF32 = RankedTensorType::get({}, f32);
    SmallVector<Type> argTypes = {scalarF32}, resultTypes = {scalarF32};
    SmallVector<unsigned> owned;
    for (auto [i, t] : llvm::enumerate(trained)) {
      if (!mine[i])
        continue;
      owned.push_back(i);
      Type type = gradFn.getArgumentTypes()[t.argIndex];
      argTypes.append({type, gradFn.getResultTypes()[t.resultIndex]});
      resultTypes.push_back(gradFn.getResultTypes()[t.resultIndex]);
    }
    argTypes.push_back(scalarF32);
    OpBuilder builder(gradFn);
    Location loc = gradFn.getLoc();
    auto fn = func::FuncOp::create(
        builder, loc, output, builder.getFunctionType(argTypes, resultTypes));
    auto name = [&](unsigned a, const Twine &text) {
      fn.setArgAttr(a, DistDialect::kInputNameAttrName,
                    StringAttr::get(ctx, text));
    };
    name(0, "loss");
    fn.setResultAttr(0, DistDialect::kOutputNameAttrName,
                     StringAttr::get(ctx, "loss"));
    for (auto [k, i] : llvm::enumerate(owned)) {
      const Trained &t = trained[i];
      unsigned a = 1 + 2 * k;
      if (DictionaryAttr attrs = gradFn.getArgAttrDict(t.argIndex))
        fn.setArgAttrs(a, attrs.getValue());
      name(a + 1, t.name.getValue() + ".grad");
      fn.setResultAttr(1 + k, DistDialect::kGradientAttrName, t.name);
    }
    name(argTypes.size() - 1, "others_grad_sq");
    Block *entry = fn.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    SmallVector<Value> results = {entry->getArgument(0)};
    for (unsigned k = 0; k < owned.size(); ++k)
      results.push_back(entry->getArgument(2 + 2 * k));
    func::ReturnOp::create(builder, loc, results);
  }
};

} // namespace
