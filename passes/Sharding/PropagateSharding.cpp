//===- PropagateSharding.cpp - A sharding for every value -----------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/Sharding/ShardingRule.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPROPAGATESHARDING
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct Propagation {
  ArrayRef<int64_t> mesh;
  /// Values with a sharding so far: annotated ones, and those a split
  /// reached. Values nothing splits stay out and end up replicated.
  DenseMap<Value, SmallVector<int64_t>> known;
  /// Ops whose split inputs could not be followed, with the reason.
  DenseMap<Operation *, std::string> replicatedOps;

  const SmallVector<int64_t> *lookup(Value v) const {
    auto it = known.find(v);
    return it == known.end() ? nullptr : &it->second;
  }

  /// Applies `op`'s rule once; returns whether a value got a sharding.
  bool visit(Operation *op) {
    std::string why;
    std::optional<ShardingRule> rule = getShardingRule(op, why);
    if (!rule) {
      if (!why.empty() && llvm::any_of(op->getOperands(), [&](Value v) {
            const SmallVector<int64_t> *s = lookup(v);
            return s && !isReplicated(*s);
          }))
        replicatedOps.try_emplace(op, why);
      return false;
    }
    SmallVector<const SmallVector<int64_t> *> operands, results;
    for (Value v : op->getOperands())
      operands.push_back(lookup(v));
    for (Value v : op->getResults())
      results.push_back(lookup(v));
    SmallVector<int64_t> factors =
        mergeFactorAxes(*rule, operands, results, mesh);
    bool changed = false;
    auto assign = [&](Value v, const auto &dims) {
      if (known.count(v))
        return;
      SmallVector<int64_t> sharding = shardingFromFactors(*rule, dims, factors);
      if (isReplicated(sharding))
        return;
      known[v] = sharding;
      changed = true;
    };
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      assign(v, rule->operands[i]);
    for (auto [i, v] : llvm::enumerate(op->getResults()))
      assign(v, rule->results[i]);
    return changed;
  }
};

struct DistPropagateShardingPass
    : dist::impl::DistPropagateShardingBase<DistPropagateShardingPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseI64ArrayAttr mesh = getMesh(module);
    if (!mesh)
      return;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(kPartitionedAttrName) &&
          hasShardingAnnotations(fn))
        propagate(fn, mesh.asArrayRef());
  }

  void propagate(func::FuncOp fn, ArrayRef<int64_t> mesh) {
    Propagation p{mesh, {}, {}};
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto s = fn.getArgAttrOfType<DenseI64ArrayAttr>(
              i, DistDialect::kShardingAttrName))
        p.known[fn.getArgument(i)] = SmallVector<int64_t>(s.asArrayRef());
    Operation *ret = fn.getBody().front().getTerminator();
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      if (auto s = fn.getResultAttrOfType<DenseI64ArrayAttr>(
              i, DistDialect::kShardingAttrName))
        p.known.try_emplace(ret->getOperand(i),
                            SmallVector<int64_t>(s.asArrayRef()));
    SmallVector<Operation *> ops;
    fn.walk([&](Operation *op) {
      if (op != fn && op != ret)
        ops.push_back(op);
    });
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : ops)
        changed |= p.visit(op);
      for (Operation *op : llvm::reverse(ops))
        changed |= p.visit(op);
    }
    MLIRContext *ctx = fn.getContext();
    for (Operation *op : ops) {
      if (op->getNumResults() == 0 || !isa<DistDialect>(op->getDialect()))
        continue;
      SmallVector<Attribute> shardings;
      for (Value v : op->getResults()) {
        SmallVector<int64_t> s(cast<RankedTensorType>(v.getType()).getRank(),
                               kReplicated);
        if (const SmallVector<int64_t> *k = p.lookup(v))
          s = *k;
        shardings.push_back(DenseI64ArrayAttr::get(ctx, s));
      }
      op->setAttr(DistDialect::kShardingAttrName,
                  ArrayAttr::get(ctx, shardings));
    }
    for (Operation *op : ops) {
      auto it = p.replicatedOps.find(op);
      if (it != p.replicatedOps.end())
        op->emitRemark("computed whole on every rank: ") << it->second;
    }
  }
};

} // namespace
