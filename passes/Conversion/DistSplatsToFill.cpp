//===- DistSplatsToFill.cpp - Splat tensor constants as fills -------------===//

#include "passes/Conversion/Passes.h"

#define DEBUG_TYPE "dist-splats-to-fill"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTSPLATSTOFILL
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct DistSplatsToFillPass
    : dist::impl::DistSplatsToFillBase<DistSplatsToFillPass> {
  using DistSplatsToFillBase::DistSplatsToFillBase;

  void runOnOperation() override {
    SmallVector<arith::ConstantOp> splats;
    getOperation().walk([&](arith::ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      auto value = dyn_cast<SplatElementsAttr>(op.getValue());
      if (type && value && type.hasStaticShape() &&
          type.getNumElements() >= minElements)
        splats.push_back(op);
    });
    for (arith::ConstantOp op : splats) {
      OpBuilder b(op);
      auto type = cast<RankedTensorType>(op.getType());
      auto value = cast<SplatElementsAttr>(op.getValue());
      Value scalar = arith::ConstantOp::create(
          b, op.getLoc(), value.getSplatValue<TypedAttr>());
      Value empty = tensor::EmptyOp::create(b, op.getLoc(), type.getShape(),
                                            type.getElementType());
      Value fill =
          linalg::FillOp::create(b, op.getLoc(), scalar, empty).getResult(0);
      op.replaceAllUsesWith(fill);
      op.erase();
    }
  }
};

} // namespace
