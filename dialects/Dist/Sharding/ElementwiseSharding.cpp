//===- ElementwiseSharding.cpp - Sharding of elementwise ops --------------===//
//
// Every dimension of an elementwise op is a Parallel factor (broadcast
// dimensions have none). Sums, negation and products are linear in their
// partial operands, so pending partial sums pass through them.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

/// Unary ops of one shape.
template <PartialSums Partial = PartialSums::none>
struct UnarySharding : DefaultSharding {
  static std::optional<ShardingRule> rule(Operation *op, std::string &) {
    return sameShapeRule(op, {});
  }
  static PartialSums partialSums(Operation *) { return Partial; }
};

/// Binary (and select's ternary) ops with numpy broadcasting.
template <PartialSums Partial = PartialSums::none>
struct BroadcastingSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(Operation *op, std::string &) {
    return broadcastingRule(op);
  }
  static PartialSums partialSums(Operation *) { return Partial; }
};

/// Dropout and the random ops: each element's draw is a function of its
/// index in the whole tensor, so a shard would need its offset.
struct RandomSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(Operation *, std::string &why) {
    why = "its random draws depend on each element's global index";
    return std::nullopt;
  }
};

} // namespace

void mlir::dist::detail::attachElementwiseSharding(MLIRContext *ctx) {
  attachSharding<UnarySharding<>, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
                 ReciprocalOp, TanhOp, ErfOp, SigmoidOp, ReluOp, SinOp, CosOp,
                 FloorOp, CeilOp, RoundOp, TanOp, AsinOp, AcosOp, AtanOp,
                 SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, NotOp, GeluOp,
                 CastOp>(ctx);
  // A barrier returns its operand: any split, and pending sums, pass.
  attachSharding<UnarySharding<PartialSums::linear>, NegOp,
                 OptimizationBarrierOp>(ctx);
  attachSharding<BroadcastingSharding<PartialSums::sum>, AddOp, SubOp>(ctx);
  attachSharding<BroadcastingSharding<PartialSums::oneFactor>, MulOp>(ctx);
  attachSharding<BroadcastingSharding<PartialSums::numerator>, DivOp>(ctx);
  attachSharding<BroadcastingSharding<>, PowOp, MaxOp, MinOp, RemOp, AndOp,
                 OrOp, XorOp, CompareOp, SelectOp>(ctx);
  attachSharding<RandomSharding, DropoutOp, RandomUniformOp, RandomNormalOp>(
      ctx);
}
