//===- MixedPrecision.cpp - Matrix products in a 16-bit compute type ------===//
//
// Before autodiff, on the model function: each float32 matmul, gemm and
// conv2d reads its inputs cast to bf16 or f16 and its result is cast back
// to float32, as torch.autocast does for the ops on its lower-precision
// list. Everything else (softmax, layer norm, losses, reductions, the
// optimizer) stays float32 and the parameters stay float32 master weights.
// The backward follows from autodiff: a product's gradients are products of
// the same 16-bit values, the casts' gradients cast back, so every
// parameter's gradient is float32.
//
// A product of 16-bit inputs accumulates in float32 (the lowering's rule,
// as tensor cores do) and is rounded once to the compute type. A gemm's or
// conv's bias is added after that rounding in float32, so that its gradient
// (a sum over the batch) is a float32 reduction.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"

#include "dialects/Dist/IR/DistBuilder.h"

#define DEBUG_TYPE "dist-mixed-precision"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMIXEDPRECISION
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct MixedPrecisionPass
    : dist::impl::DistMixedPrecisionBase<MixedPrecisionPass> {
  using DistMixedPrecisionBase::DistMixedPrecisionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (precision == "fp32")
      return;
    Type compute;
    if (precision == "bf16")
      compute = BFloat16Type::get(ctx);
    else if (precision == "fp16")
      compute = Float16Type::get(ctx);
    else {
      module.emitError("precision '")
          << precision << "' is not one of fp32, bf16, fp16";
      return signalPassFailure();
    }
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn) {
      module.emitError("no function @") << function << " to cast";
      return signalPassFailure();
    }
    SmallVector<Operation *> products;
    fn.walk([&](Operation *op) {
      if (isa<MatmulOp, GemmOp, Conv2DOp>(op) &&
          elementTypeOf(op->getResult(0)).isF32())
        products.push_back(op);
    });
    for (Operation *op : products)
      castProduct(op, compute);
  }

  /// `op`'s inputs in `compute`, its result back to f32, its bias (a gemm's
  /// or conv's third operand) added afterwards in f32.
  static void castProduct(Operation *op, Type compute) {
    OpBuilder builder(op);
    DistBuilder g(builder, op->getLoc());
    Value bias = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
    if (bias)
      op->eraseOperand(2);
    for (OpOperand &operand : op->getOpOperands())
      operand.set(g.cast(operand.get(), compute));
    Value result = op->getResult(0);
    SmallVector<OpOperand *> uses =
        llvm::map_to_vector(result.getUses(), [](OpOperand &u) { return &u; });
    auto resultType = cast<RankedTensorType>(result.getType());
    result.setType(resultType.clone(compute));
    builder.setInsertionPointAfter(op);
    Value wide = g.cast(result, resultType.getElementType());
    if (bias) {
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        double beta = gemm.getBeta().convertToDouble();
        if (beta != 1.0)
          bias = g.mul(bias, beta);
        gemm->removeAttr(gemm.getBetaAttrName()); // no bias to scale
      } else {
        // A conv's bias: one value per output channel (dimension 1).
        SmallVector<int64_t> shape(resultType.getRank() - 1, 1);
        shape[0] = resultType.getDimSize(1);
        bias = g.reshape(bias, shape);
      }
      wide = g.add(wide, bias);
    }
    for (OpOperand *use : uses)
      use->set(wide);
  }
};

} // namespace
