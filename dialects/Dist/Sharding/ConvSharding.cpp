//===- ConvSharding.cpp - Sharding of convolutions and pooling ------------===//
//
// Convolutions split over the batch and the channels (input channels as a
// reduction); pooling only over the batch; the image stays whole. Batch
// norm splits per channel and, in training mode, sums its statistics
// across the ranks that split the batch.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Sharding/RuleBuilder.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

/// The batch of the operands in `Batched` and of the results.
template <unsigned... Batched> struct BatchOnlySharding : DefaultSharding {
  static std::optional<ShardingRule> rule(Operation *op, std::string &) {
    return batchOnlyRule(op, {Batched...});
  }
};

/// A convolution: the batch and the output channels are Parallel factors,
/// the input channels (per group) a Reduction factor, the groups a Parallel
/// factor major in both channel dimensions; the image and the kernel stay
/// whole. A weight gradient is a convolution whose input channels are the
/// batch (ConvGradients.cpp), so data parallelism leaves each rank a
/// partial weight gradient, all-reduced like any other, instead of
/// gathering the activations and output gradients.
struct Conv2DSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(Conv2DOp op, std::string &) {
    RuleBuilder b;
    ArrayRef<int64_t> in = shapeOf(op.getInput()), w = shapeOf(op.getWeight()),
                      out = shapeOf(op.getResult());
    int64_t groups = op.getGroups();
    int64_t n = b.rule.addFactor(in[0], FactorKind::Parallel);
    SmallVector<int64_t, 2> inChannels, outChannels;
    if (groups > 1) {
      int64_t g = b.rule.addFactor(groups, FactorKind::Parallel);
      inChannels.push_back(g);
      outChannels.push_back(g);
    }
    int64_t c = b.rule.addFactor(w[1], FactorKind::Reduction);
    int64_t f = b.rule.addFactor(w[0] / groups, FactorKind::Parallel);
    inChannels.push_back(c);
    outChannels.push_back(f);
    auto fixed = [&](int64_t size) {
      return SmallVector<int64_t, 2>{
          b.rule.addFactor(size, FactorKind::Fixed)};
    };
    b.operand(Dims{{n}, inChannels, fixed(in[2]), fixed(in[3])});
    b.operand(Dims{outChannels, {c}, fixed(w[2]), fixed(w[3])});
    if (op.getBias())
      b.operand(Dims{outChannels});
    b.result(Dims{{n}, outChannels, fixed(out[2]), fixed(out[3])});
    return b.rule;
  }
};

/// Batch norm: per channel, so the channel is a Parallel factor (with the
/// four per-channel operands). With the running statistics (eval mode) the
/// batch and the image are Parallel too. In training mode they are
/// Collective: split, each rank sums its part of every channel's values and
/// of their squared deviations, the sums are all-reduced (SyncBatchNorm's
/// statistics, in two passes), and the op normalizes with those statistics
/// as an eval-mode batch norm. Nothing is gathered.
struct BatchNormSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(BatchNormOp op, std::string &) {
    RuleBuilder b;
    SmallVector<int64_t> factors = b.newFactors(
        shapeOf(op.getInput()), op.getTraining() ? FactorKind::Collective
                                                 : FactorKind::Parallel);
    b.rule.factorKinds[factors[1]] = FactorKind::Parallel;
    b.operand(RuleBuilder::single(factors));
    for (unsigned i = 1; i < 5; ++i)
      b.operand(Dims{{factors[1]}});
    b.result(RuleBuilder::single(factors));
    return b.rule;
  }

  static bool partition(Operation *op, SplitOpPartitioner &p,
                        const ShardingRule &rule,
                        ArrayRef<DimSharding> factors) {
    auto bn = cast<BatchNormOp>(op);
    // The mesh axes the summed dimensions (all but the channel) are split
    // over: the statistics' sums are all-reduced over them (their order
    // within a rank's part does not matter, so strided splits too).
    SmallVector<int64_t> axes;
    for (auto [f, split] : llvm::enumerate(factors))
      if (split.isSplit() && rule.factorKinds[f] == FactorKind::Collective &&
          !llvm::is_contained(axes, split.axis))
        axes.push_back(split.axis);
    llvm::sort(axes);
    Type element = elementTypeOf(bn.getInput());
    // The statistics are summed in the input's type: float32 and float64
    // only (a narrower input is gathered and normalized whole, as the
    // 1-rank lowering accumulates it in float32).
    if (axes.empty() || !(element.isF32() || element.isF64()))
      return false;
    SplitOpBuilder s(p, op, rule, factors);
    DistBuilder &g = s.g;
    SmallVector<Value> local = s.operands();
    Value x = local[0];
    ArrayRef<int64_t> whole = shapeOf(bn.getInput());
    SmallVector<int64_t> summed;
    double count = 1.0;
    for (int64_t d = 0; d < static_cast<int64_t>(whole.size()); ++d)
      if (d != 1) {
        summed.push_back(d);
        count *= static_cast<double>(whole[d]);
      }
    auto statistic = [&](Value v) {
      Value sum = s.allReduce(CollectiveKind::sum,
                              g.reduceSum(v, summed, /*keepDims=*/false), axes);
      return g.mul(sum, 1.0 / count);
    };
    SmallVector<int64_t> channel(whole.size(), 1);
    Value mean = statistic(x);
    channel[1] = shapeOf(mean)[0];
    Value centered = g.sub(x, g.reshape(mean, channel));
    Value variance = statistic(g.mul(centered, centered));
    auto normalized = BatchNormOp::create(
        p.builder(), s.loc, x, local[1], local[2], mean, variance,
        bn.getEpsilonAttr(), bn.getMomentumAttr(), /*training=*/nullptr);
    s.setResult(normalized, {});
    return true;
  }
};

} // namespace

void mlir::dist::detail::attachConvSharding(MLIRContext *ctx) {
  attachSharding<Conv2DSharding, Conv2DOp>(ctx);
  attachSharding<BatchOnlySharding<0>, MaxPool2DOp, AvgPool2DOp,
                 GlobalAvgPoolOp>(ctx);
  // The gradients' input and output-gradient operands share the batch.
  attachSharding<BatchOnlySharding<0, 1>, MaxPool2DGradOp, AvgPool2DGradOp>(
      ctx);
  attachSharding<BatchNormSharding, BatchNormOp>(ctx);
}
