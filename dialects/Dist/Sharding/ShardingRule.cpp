//===- ShardingRule.cpp - Rules through the interface, merged per factor --===//

#include "dialects/Dist/Sharding/ShardingRule.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/Sharding/RuleBuilder.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

void mlir::dist::registerShardingOpInterfaceModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    attachElementwiseSharding(ctx);
    attachReductionSharding(ctx);
    attachLossSharding(ctx);
    attachContractionSharding(ctx);
    attachShapeSharding(ctx);
    attachConvSharding(ctx);
  });
}

namespace {

/// Whether `rule` describes every dimension of every operand and result of
/// `op` with valid factors.
bool ruleFits(const ShardingRule &rule, Operation *op) {
  auto fits = [&](const SmallVector<Dims> &all, ValueRange values) {
    if (all.size() != values.size())
      return false;
    for (auto [dims, v] : llvm::zip(all, values)) {
      if (dims.size() != shapeOf(v).size())
        return false;
      for (const auto &factors : dims)
        for (int64_t f : factors)
          if (f < 0 || f >= rule.numFactors())
            return false;
    }
    return true;
  };
  return fits(rule.operands, op->getOperands()) &&
         fits(rule.results, op->getResults());
}

} // namespace

std::optional<ShardingRule> mlir::dist::getShardingRule(Operation *op,
                                                        std::string &why) {
  why.clear();
  if (op->getNumOperands() == 0)
    return std::nullopt;
  auto sharding = dyn_cast<ShardingOpInterface>(op);
  if (!sharding) {
    why = isa<DistDialect>(op->getDialect()) ? "it has no sharding rule"
                                             : "it is not a dist op";
    return std::nullopt;
  }
  std::optional<ShardingRule> rule = sharding.getShardingRule(why);
  if (!rule && why.empty())
    why = "it has no sharding rule";
  if (rule && !ruleFits(*rule, op)) {
    why = "its sharding rule does not match its operands (a bug: please "
          "report it)";
    return std::nullopt;
  }
  return rule;
}

SmallVector<DimSharding> mlir::dist::mergeFactorAxes(
    const ShardingRule &rule,
    ArrayRef<const SmallVector<DimSharding> *> operandShardings,
    ArrayRef<const SmallVector<DimSharding> *> resultShardings,
    ArrayRef<int64_t> mesh) {
  SmallVector<DimSharding> axes(rule.numFactors());
  SmallVector<bool> axisUsed(mesh.size(), false);
  auto visit = [&](const Dims &dims, const SmallVector<DimSharding> *sharding) {
    if (!sharding || sharding->size() != dims.size())
      return;
    for (auto [d, entry] : llvm::enumerate(*sharding)) {
      if (!entry.isSplit())
        continue;
      int64_t axis = entry.axis, groups = entry.groups;
      if (axis >= static_cast<int64_t>(mesh.size()) || axisUsed[axis])
        continue;
      // The split falls on the factor before which the dimension holds a
      // whole number of its groups (`outer`), and that the remaining
      // groups times the axis divide.
      int64_t outer = 1;
      for (int64_t f : dims[d]) {
        if (groups % outer != 0)
          break;
        int64_t within = groups / outer;
        if (rule.factorSizes[f] % (within * mesh[axis]) == 0) {
          if (!axes[f].isSplit() && rule.factorKinds[f] != FactorKind::Fixed) {
            axes[f] = DimSharding::split(axis, within);
            axisUsed[axis] = true;
          }
          break;
        }
        outer *= rule.factorSizes[f];
      }
    }
  };
  for (auto [i, s] : llvm::enumerate(operandShardings))
    visit(rule.operands[i], s);
  for (auto [i, s] : llvm::enumerate(resultShardings))
    visit(rule.results[i], s);
  // A dimension made of two split factors would be in pieces no (strided)
  // block describes: the minor one stays whole.
  auto dropMinor = [&](const Dims &dims) {
    for (const auto &factors : dims) {
      bool split = false;
      for (int64_t f : factors) {
        if (axes[f].isSplit() && split)
          axes[f] = DimSharding::replicated();
        split |= axes[f].isSplit();
      }
    }
  };
  for (const Dims &dims : rule.operands)
    dropMinor(dims);
  for (const Dims &dims : rule.results)
    dropMinor(dims);
  return axes;
}

SmallVector<DimSharding>
mlir::dist::shardingFromFactors(const ShardingRule &rule,
                                ArrayRef<SmallVector<int64_t, 2>> dims,
                                ArrayRef<DimSharding> factorAxes) {
  SmallVector<DimSharding> sharding;
  for (const auto &factors : dims) {
    // A split minor factor splits the dimension in as many groups as the
    // factors before it hold indices.
    DimSharding entry;
    int64_t outer = 1;
    for (int64_t f : factors) {
      if (DimSharding a = factorAxes[f]; a.isSplit()) {
        entry = DimSharding::split(a.axis, outer * a.groups);
        break;
      }
      outer *= rule.factorSizes[f];
    }
    sharding.push_back(entry);
  }
  return sharding;
}
