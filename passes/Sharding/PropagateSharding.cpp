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
  DenseMap<Value, SmallVector<DimSharding>> known;
  /// Ops whose split inputs could not be followed, with the reason.
  DenseMap<Operation *, std::string> replicatedOps;

  const SmallVector<DimSharding> *lookup(Value v) const {
    auto it = known.find(v);
    return it == known.end() ? nullptr : &it->second;
  }

  /// Applies `op`'s rule once; returns whether a value got a sharding.
  bool visit(Operation *op) {
    std::string why;
    std::optional<ShardingRule> rule = getShardingRule(op, why);
    if (!rule) {
      if (!why.empty() && llvm::any_of(op->getOperands(), [&](Value v) {
            const SmallVector<DimSharding> *s = lookup(v);
            return s && !isReplicated(*s);
          }))
        replicatedOps.try_emplace(op, why);
      return false;
    }
    SmallVector<const SmallVector<DimSharding> *> operands, results;
    for (Value v : op->getOperands())
      operands.push_back(lookup(v));
    for (Value v : op->getResults())
      results.push_back(lookup(v));
    SmallVector<DimSharding> factors =
        mergeFactorAxes(*rule, operands, results, mesh);
    bool changed = false;
    auto assign = [&](Value v, const auto &dims) {
      if (known.count(v))
        return;
      SmallVector<DimSharding> sharding =
          shardingFromFactors(*rule, dims, factors);
      if (isReplicated(sharding))
        return;
      known[v] = sharding;
      changed = true;
    };
    // A compressed gradient (dist.compressed) passes no split back to the
    // gradient: that stays a whole partial sum, reduced (or
    // reduce-scattered, under ZeRO) after its rounding, in the narrow type.
    // Nor do the ranks' stacked parts of a sum (dist.rank_parts): their
    // split is over the ranks, not over the summed value.
    bool compressed = (isa<CastOp>(op) &&
                       op->hasAttr(DistDialect::kCompressedAttrName)) ||
                      (isa<BroadcastOp>(op) &&
                       op->hasAttr(DistDialect::kRankPartsAttrName));
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (!compressed)
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
    MeshOp mesh = getMesh(module);
    if (!mesh)
      return;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(DistDialect::kPartitionedAttrName) &&
          hasShardingAnnotations(fn))
        if (failed(propagate(fn, mesh.getShape())))
          return signalPassFailure();
  }

  LogicalResult propagate(func::FuncOp fn, ArrayRef<int64_t> mesh) {
    Propagation p;
    p.mesh = mesh;
    auto read = [&](ShardingAttr attr, const std::string &what,
                    Value v) -> LogicalResult {
      if (!attr)
        return success();
      FailureOr<SmallVector<DimSharding>> dims =
          attr.getDims([&] { return fn.emitError(); }, what);
      if (failed(dims))
        return failure();
      p.known.try_emplace(v, std::move(*dims));
      return success();
    };
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (failed(read(getArgSharding(fn, i), "argument #" + std::to_string(i),
                      fn.getArgument(i))))
        return failure();
    Operation *ret = fn.getBody().front().getTerminator();
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      if (failed(read(getResultSharding(fn, i), "result #" + std::to_string(i),
                      ret->getOperand(i))))
        return failure();
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
        SmallVector<DimSharding> s =
            replicatedSharding(cast<RankedTensorType>(v.getType()).getRank());
        if (const SmallVector<DimSharding> *k = p.lookup(v))
          s = *k;
        shardings.push_back(ShardingAttr::get(ctx, s));
      }
      op->setAttr(DistDialect::kShardingAttrName,
                  ArrayAttr::get(ctx, shardings));
    }
    for (Operation *op : ops) {
      auto it = p.replicatedOps.find(op);
      if (it != p.replicatedOps.end())
        op->emitRemark("computed whole on every rank: ") << it->second;
    }
    return success();
  }
};

} // namespace
