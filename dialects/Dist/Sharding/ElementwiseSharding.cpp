//===- ElementwiseSharding.cpp - Sharding of elementwise ops --------------===//
//
// Every dimension of an elementwise op is a Parallel factor (broadcast
// dimensions have none). Sums, negation and products are linear in their
// partial operands, so pending partial sums pass through them.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

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

/// Dropout and the random ops: every dimension a Parallel factor (their
/// keys and offsets are scalars). Each element's draw is a function of its
/// index in the whole tensor, so a split op draws its block: its offsets
/// become the block's start (added to any it had) and `whole_shape` the
/// whole op's.
struct RandomSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(Operation *op, std::string &) {
    RuleBuilder b;
    SmallVector<int64_t> factors =
        b.newFactors(shapeOf(op->getResult(0)), FactorKind::Parallel);
    for (Value v : op->getOperands())
      b.operand(shapeOf(v).empty() ? Dims{} : RuleBuilder::single(factors));
    for (unsigned r = 0; r < op->getNumResults(); ++r)
      b.result(RuleBuilder::single(factors));
    return b.rule;
  }

  static bool partition(Operation *op, SplitOpPartitioner &p,
                        const ShardingRule &rule,
                        ArrayRef<DimSharding> wanted) {
    // A strided split (in groups) is no block of the whole: such a
    // dimension is drawn whole.
    SmallVector<DimSharding> factors(wanted);
    for (DimSharding &f : factors)
      if (f.groups != 1)
        f = DimSharding::replicated();
    if (llvm::none_of(factors, [](DimSharding f) { return f.isSplit(); }) &&
        llvm::equal(factors, wanted))
      return false;
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case<DropoutOp, RandomUniformOp, RandomNormalOp>([&](auto draw) {
          buildBlock(draw, p, rule, factors);
          return true;
        })
        .Default([](Operation *) { return false; });
  }

  template <typename OpT>
  static void buildBlock(OpT op, SplitOpPartitioner &p,
                         const ShardingRule &rule,
                         ArrayRef<DimSharding> factors) {
    Location loc = op.getLoc();
    OpBuilder &b = p.builder();
    DistBuilder g(b, loc);
    IRMapping map;
    for (auto [global, local] :
         llvm::zip(op->getOperands(), p.localOperands(op, rule, factors)))
      map.map(global, local);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<DimSharding> sharding =
        shardingFromFactors(rule, rule.results[0], factors);
    SmallVector<Value> offsets;
    Type i64 = b.getI64Type();
    for (auto [d, dim] : llvm::enumerate(sharding)) {
      Value offset = op.getOffsets().empty()
                         ? Value()
                         : map.lookup(op.getOffsets()[d]);
      if (dim.isSplit()) {
        Value start = g.reshape(p.blockStart(loc, op->getResult(0),
                                             type.getDimSize(d), dim.axis,
                                             i64),
                                {});
        offset = offset ? g.add(offset, start) : start;
      }
      offsets.push_back(offset ? offset : g.scalar(0, i64));
    }
    auto local = cast<OpT>(b.clone(*op, map));
    local->removeAttr(DistDialect::kShardingAttrName);
    local.setWholeShapeAttr(b.getDenseI64ArrayAttr(op.getDrawnShape()));
    local.getOffsetsMutable().assign(offsets);
    for (auto [global, result] :
         llvm::zip(op->getResults(), local->getResults())) {
      result.setType(localType(type.clone(cast<RankedTensorType>(
                                   global.getType()).getElementType()),
                               sharding, p.mesh()));
      p.setResult(global, result, sharding, {});
    }
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
