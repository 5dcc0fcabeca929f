//===- RetypeCollectives.cpp - Collectives on converted types ------------===//
//
// convert-dist-to-linalg keeps the collectives and optimization barriers as
// dist ops (one-shot bufferization turns the collectives into distrt calls,
// dialects/Dist/Runtime/CollectiveBufferization.h, and a barrier into its
// operand's buffer) but gives them the signless types of their converted
// operands.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

/// convert-dist-to-linalg keeps collectives but gives them the signless
/// types of their converted operands, marking an unsigned element type
/// (the runtime's min and max differ) with DistDialect::kUnsignedAttrName.
struct RetypeCollective : ConversionPattern {
  RetypeCollective(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    bool barrier = isa<OptimizationBarrierOp>(op);
    if (!isCollective(op) && !barrier)
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs());
    // (A send has no result: its operand's type.)
    Type element = getElementTypeOrSelf(op->getNumResults()
                                            ? op->getResultTypes().front()
                                            : op->getOperandTypes().front());
    if (element.isUnsignedInteger() && !barrier)
      state.addAttribute(DistDialect::kUnsignedAttrName,
                         rewriter.getUnitAttr());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

} // namespace

void mlir::dist::populateCollectivesToRuntimePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<RetypeCollective>(converter, patterns.getContext());
}
