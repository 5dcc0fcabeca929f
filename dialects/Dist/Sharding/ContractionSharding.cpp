//===- ContractionSharding.cpp - Sharding of matrix products --------------===//
//
// M, N (and batch dimensions) are Parallel factors, K a Reduction factor:
// a K split leaves partial sums. A product is linear in each operand, so
// one partial operand passes through it. Fused attention splits by its
// batch and head dimensions only.
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

/// dist.attention and its gradient: the leading (batch, head) dimensions
/// split, shared by every operand and result; a row's queries, keys and
/// features stay whole.
template <typename OpT> struct AttentionSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(OpT op, std::string &) {
    RuleBuilder b;
    ArrayRef<int64_t> query = shapeOf(op.getQuery());
    int64_t batchRank = query.size() - 2;
    SmallVector<int64_t> batch = b.newFactors(query.drop_back(2),
                                              FactorKind::Parallel);
    auto dims = [&](Value v) {
      int64_t rank = shapeOf(v).size();
      SmallVector<int64_t> f(batch);
      for (int64_t d = batchRank; d < rank; ++d)
        f.push_back(b.newFactors({shapeOf(v)[d]}, FactorKind::Fixed)[0]);
      return RuleBuilder::single(f);
    };
    for (Value v : op->getOperands())
      b.operand(dims(v));
    for (Value v : op->getResults())
      b.result(dims(v));
    return b.rule;
  }
};

} // namespace

void mlir::dist::detail::attachContractionSharding(MLIRContext *ctx) {
  attachSharding<AttentionSharding<AttentionOp>, AttentionOp>(ctx);
  attachSharding<AttentionSharding<AttentionGradOp>, AttentionGradOp>(ctx);
  attachSharding<MatmulSharding, MatmulOp>(ctx);
  attachSharding<GemmSharding, GemmOp>(ctx);
}
