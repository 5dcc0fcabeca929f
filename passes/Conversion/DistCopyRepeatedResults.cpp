//===- DistCopyRepeatedResults.cpp - One buffer per returned value --------===//

#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "dist-copy-repeated-results"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTCOPYREPEATEDRESULTS
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct DistCopyRepeatedResultsPass
    : dist::impl::DistCopyRepeatedResultsBase<DistCopyRepeatedResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallDenseSet<Value> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        operand.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, ValueRange(), /*copy=*/v));
      }
    });
  }
};

} // namespace
