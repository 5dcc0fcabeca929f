//===- AddLoss.cpp - A cross-entropy loss over a model output -------------===//

#include "passes/Transforms/Passes.h"

#include "dialects/Dist/IR/DistBuilder.h"

#define DEBUG_TYPE "dist-add-loss"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTADDLOSS
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct AddLossPass : dist::impl::DistAddLossBase<AddLossPass> {
  using DistAddLossBase::DistAddLossBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn || fn.isExternal()) {
      module.emitError("no function @") << function << " to add a loss to";
      return signalPassFailure();
    }
    std::optional<unsigned> index;
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      auto name = fn.getResultAttrOfType<StringAttr>(
          i, DistDialect::kOutputNameAttrName);
      if (name && name.getValue() == output)
        index = i;
      if (name && name.getValue() == "loss") {
        fn.emitError("the model already has an output named 'loss'; train "
                     "on it (--loss=loss) instead of adding one");
        return signalPassFailure();
      }
    }
    if (!index) {
      fn.emitError("no output named '")
          << output << "' to put a cross-entropy loss on";
      return signalPassFailure();
    }
    auto logitsType = dyn_cast<RankedTensorType>(fn.getResultTypes()[*index]);
    if (!logitsType || logitsType.getRank() < 1 ||
        !isa<FloatType>(logitsType.getElementType())) {
      fn.emitError("output '")
          << output << "' is " << fn.getResultTypes()[*index]
          << "; cross-entropy needs float logits with "
             "the classes on the last dimension";
      return signalPassFailure();
    }
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto name = fn.getArgAttrOfType<StringAttr>(
              i, DistDialect::kInputNameAttrName);
          name && name.getValue() == labels) {
        fn.emitError("an input is already named '")
            << labels << "'; choose another labels name";
        return signalPassFailure();
      }

    ArrayRef<int64_t> shape = logitsType.getShape();
    int64_t classes = shape.back();
    int64_t rows = ShapedType::getNumElements(shape.drop_back());
    auto labelsType = RankedTensorType::get(
        shape.drop_back(), IntegerType::get(&getContext(), 64));
    unsigned labelsIndex = fn.getNumArguments();
    if (failed(fn.insertArgument(labelsIndex, labelsType,
                                 DictionaryAttr::get(&getContext()),
                                 fn.getLoc())))
      return signalPassFailure();
    fn.setArgAttr(labelsIndex, DistDialect::kInputNameAttrName,
                  StringAttr::get(&getContext(), labels));

    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    OpBuilder b(ret);
    DistBuilder g(b, fn.getLoc());
    Value logits = g.reshape(ret.getOperand(*index), {rows, classes});
    Value targets = g.reshape(fn.getArgument(labelsIndex), {rows});
    Value loss =
        CrossEntropyOp::create(b, fn.getLoc(), LossReduction::mean, logits,
                               targets, Value(), b.getI64IntegerAttr(-100));
    SmallVector<Value> results = {loss};
    llvm::append_range(results, ret.getOperands());
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    if (failed(fn.insertResult(0, loss.getType(),
                               DictionaryAttr::get(&getContext()))))
      return signalPassFailure();
    fn.setResultAttr(0, DistDialect::kOutputNameAttrName,
                     StringAttr::get(&getContext(), "loss"));
  }
};

} // namespace
