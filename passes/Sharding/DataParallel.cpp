//===- DataParallel.cpp - Annotate a training step for data parallelism ---===//
//
// Data parallelism is one use of the sharding mechanism: split each model
// input's batch over a mesh axis, replicate the parameters, and (ZeRO) split
// the optimizer state. Propagation and partitioning derive the rest: the
// gradient all-reduces come from weight-gradient matmuls whose reduction
// runs over the split batch.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDATAPARALLEL
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Whether optimizer state argument `i` is shaped like its parameter, or
/// its parameter is not an argument (ZeRO splits those; state of another
/// shape, such as PowerSGD's basis, stays whole).
bool stateLikeParameter(func::FuncOp fn, unsigned i,
                        OptimizerStateAttr state) {
  for (unsigned a = 0; a < fn.getNumArguments(); ++a)
    if (getParameterRef(fn, a) == state.getParameter())
      return fn.getArgumentTypes()[a] == fn.getArgumentTypes()[i];
  return true;
}

struct DistDataParallelPass
    : dist::impl::DistDataParallelBase<DistDataParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp meshOp = getMesh(module);
    if (!meshOp) {
      module.emitError(
          "dist-data-parallel needs a device mesh: run dist-create-mesh first "
          "(e.g. --dist-create-mesh=shape=2; dist-compile --mesh)");
      return signalPassFailure();
    }
    ArrayRef<int64_t> mesh = meshOp.getShape();
    if (axis < 0 || axis >= static_cast<int64_t>(mesh.size())) {
      module.emitError("dist-data-parallel: axis ")
          << axis << " is not an axis of the mesh (it has " << mesh.size()
          << ")";
      return signalPassFailure();
    }
    if (zero < 0 || zero > 2) {
      module.emitError("dist-data-parallel: zero must be 0, 1 or 2, got ")
          << zero;
      return signalPassFailure();
    }
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn) {
      module.emitError("dist-data-parallel: no function @") << function;
      return signalPassFailure();
    }
    int64_t ranks = mesh[axis];
    MLIRContext *ctx = module.getContext();
    auto setArg = [&](unsigned i, ArrayRef<DimSharding> sharding,
                      StringRef reason) {
      if (fn.getArgAttr(i, DistDialect::kShardingAttrName))
        return;
      fn.setArgAttr(i, DistDialect::kShardingAttrName,
                    ShardingAttr::get(ctx, sharding));
      if (!reason.empty())
        fn.setArgAttr(i, DistDialect::kSplitReasonAttrName,
                      StringAttr::get(ctx, reason));
    };
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto type = cast<RankedTensorType>(fn.getArgument(i).getType());
      SmallVector<DimSharding> sharding = replicatedSharding(type.getRank());
      bool isInput = isDataArgument(fn, i);
      StringRef reason;
      if (getParameterRef(fn, i))
        reason = "data parallel: whole on every rank, its gradient summed "
                 "over the ranks";
      if (isInput) {
        reason = "data parallel: each rank its share of the batch";
        auto name =
            fn.getArgAttrOfType<StringAttr>(i, DistDialect::kInputNameAttrName);
        std::string what = name ? "input '" + name.str() + "'"
                                : "argument #" + std::to_string(i);
        if (type.getRank() == 0 || type.getDimSize(0) % ranks != 0) {
          fn.emitError("data parallelism over ")
              << ranks << " ranks needs a batch (dimension 0) of " << what
              << " that " << ranks << " divides, but its type is " << type
              << "; compile with a global batch that is a multiple of "
              << ranks;
          return signalPassFailure();
        }
        sharding[0] = DimSharding::split(axis);
      } else if (fn.getArgAttr(i, DistDialect::kPerRankAttrName)) {
        // Stacked per-rank state (PowerSGD's residuals): each rank its own.
        if (type.getDimSize(0) != ranks) {
          fn.emitError("argument #")
              << i << " holds one slice per data-parallel rank "
              << "(dist.per_rank) on dimension 0 of " << type
              << ", but the data-parallel axis has " << ranks
              << " ranks; compile the step for " << ranks
              << " (dist-optimizer{data-parallel-ranks})";
          return signalPassFailure();
        }
        sharding[0] = DimSharding::split(axis);
        reason = "per-rank state: each data-parallel rank its own slice";
      } else if (auto state = fn.getArgAttrOfType<OptimizerStateAttr>(
                     i, DistDialect::kOptimizerStateAttrName);
                 zero > 0 && state && state.getParameter() &&
                 stateLikeParameter(fn, i, state)) {
        // (State of the whole step, a loss scaler's, stays replicated.)
        auto dim = llvm::find_if(
            type.getShape(), [&](int64_t size) { return size % ranks == 0; });
        if (dim == type.getShape().end())
          emitRemark(fn.getLoc(), "ZeRO: optimizer state ")
              << fn.getArgAttrOfType<OptimizerStateAttr>(
                       i, DistDialect::kOptimizerStateAttrName)
                     .getName()
              << " of type " << type << " has no dimension that " << ranks
              << " divides; it stays replicated";
        else {
          sharding[dim - type.getShape().begin()] = DimSharding::split(axis);
          reason = zero == 1 ? "ZeRO-1: optimizer state split over the "
                               "data-parallel ranks, each updates its part"
                             : "ZeRO-2: optimizer state (and the gradients "
                               "it updates from) split over the "
                               "data-parallel ranks";
        }
      }
      setArg(i, sharding, reason);
    }
    // Each update result is held like the argument it updates.
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      if (fn.getResultAttr(r, DistDialect::kShardingAttrName))
        continue;
      auto updates =
          fn.getResultAttrOfType<IntegerAttr>(r, DistDialect::kUpdatesAttrName);
      Attribute sharding;
      if (updates)
        sharding =
            fn.getArgAttr(updates.getInt(), DistDialect::kShardingAttrName);
      else
        sharding = ShardingAttr::get(
            ctx, replicatedSharding(
                     cast<RankedTensorType>(fn.getResultTypes()[r]).getRank()));
      fn.setResultAttr(r, DistDialect::kShardingAttrName, sharding);
    }
  }
};

} // namespace
