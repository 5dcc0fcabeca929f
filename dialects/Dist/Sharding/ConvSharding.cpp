//===- ConvSharding.cpp - Sharding of convolutions and pooling ------------===//
//
// Only the batch may be split (data parallelism); channels and the image
// stay whole. Training-mode batch norm needs the whole batch.
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

struct BatchNormSharding : DefaultSharding {
  static std::optional<ShardingRule> rule(BatchNormOp, std::string &why) {
    why = "training-mode batch statistics need the whole batch";
    return std::nullopt;
  }
};

} // namespace

void mlir::dist::detail::attachConvSharding(MLIRContext *ctx) {
  attachSharding<BatchOnlySharding<0>, Conv2DOp, MaxPool2DOp, AvgPool2DOp,
                 GlobalAvgPoolOp>(ctx);
  // The gradients' input and output-gradient operands share the batch.
  attachSharding<BatchOnlySharding<0, 1>, MaxPool2DGradOp, AvgPool2DGradOp>(
      ctx);
  attachSharding<BatchNormSharding, BatchNormOp>(ctx);
}
