//===- ContractionSharding.cpp - Sharding of matrix products --------------===//
//
// M, N (and batch dimensions) are Parallel factors, K a Reduction factor:
// a K split leaves partial sums. A product is linear in each operand, so
// one partial operand passes through it.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

struct MatmulSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(MatmulOp op, std::string &) {
    return matmulRule(op.getLhs(), op.getRhs(), op.getResult(),
                      op.getTransposeLhs(), op.getTransposeRhs(), true);
  }
  static PartialSums partialSums(Operation *) { return PartialSums::oneFactor; }
};

struct GemmSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(GemmOp op, std::string &) {
    // A bias would be added once per rank of a split K.
    ShardingRule rule = matmulRule(op.getA(), op.getB(), op.getResult(),
                                   op.getTransposeA(), op.getTransposeB(),
                                   /*kSplittable=*/!op.getBias());
    if (Value bias = op.getBias()) {
      ArrayRef<int64_t> out = shapeOf(op.getResult());
      SmallVector<int64_t> mn = {0, 1};
      rule.operands.push_back(
          RuleBuilder::broadcastDims(shapeOf(bias), out, mn));
    }
    return rule;
  }
  /// With a bias the product is affine, not linear.
  static PartialSums partialSums(Operation *op) {
    return cast<GemmOp>(op).getBias() ? PartialSums::none
                                      : PartialSums::oneFactor;
  }
};

} // namespace

void mlir::dist::detail::attachContractionSharding(MLIRContext *ctx) {
  attachSharding<MatmulSharding, MatmulOp>(ctx);
  attachSharding<GemmSharding, GemmOp>(ctx);
}
