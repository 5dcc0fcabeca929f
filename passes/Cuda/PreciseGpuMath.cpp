//===- PreciseGpuMath.cpp - Correctly rounded square roots in kernels -----===//
//
// libdevice's __nv_sqrtf and __nv_rsqrtf pick an approximation unless
// __nvvm_reflect("__CUDA_PREC_SQRT") says otherwise, and LLVM 22's
// NVVMReflect answers 0 for it. The square roots of an AdamW step and of
// the gradient norm then differ from the CPU's; llvm.intr.sqrt is
// not an option (convert-gpu-to-nvvm lowers it to libdevice too), the
// NVVM intrinsic sqrt.rn is. Passes.td has the details.
//
//===----------------------------------------------------------------------===//

#include "passes/Cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "dist-precise-gpu-math"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPRECISEGPUMATH
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// The correctly rounded square root of a float32 or float64 scalar: the
/// NVVM intrinsic (llvm.intr.sqrt would be lowered to libdevice again).
Value sqrtRn(PatternRewriter &rewriter, Location loc, Value x) {
  StringRef name = x.getType().isF32() ? "llvm.nvvm.sqrt.rn.f"
                                       : "llvm.nvvm.sqrt.rn.d";
  return LLVM::CallIntrinsicOp::create(rewriter, loc, x.getType(),
                                       rewriter.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}

bool isScalarF32OrF64(Type t) { return t.isF32() || t.isF64(); }

struct PreciseSqrt : OpRewritePattern<math::SqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::SqrtOp op,
                                PatternRewriter &rewriter) const override {
    if (!isScalarF32OrF64(op.getType()))
      return failure();
    rewriter.replaceOp(op, sqrtRn(rewriter, op.getLoc(), op.getOperand()));
    return success();
  }
};

struct PreciseRsqrt : OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type || !isScalarF32OrF64(type))
      return failure();
    Location loc = op.getLoc();
    Value root = sqrtRn(rewriter, loc, op.getOperand());
    Value one = arith::ConstantOp::create(rewriter, loc, type,
                                          rewriter.getFloatAttr(type, 1.0));
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, one, root);
    return success();
  }
};

struct DistPreciseGpuMathPass
    : dist::impl::DistPreciseGpuMathBase<DistPreciseGpuMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PreciseSqrt, PreciseRsqrt>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
