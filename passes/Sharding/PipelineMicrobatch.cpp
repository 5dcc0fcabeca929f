//===- PipelineMicrobatch.cpp - Micro-batches as a mesh axis in time ------===//
//
// A pipeline runs each step's batch in M micro-batches, one after another.
// That is data parallelism whose "devices" are turns in time: this pass
// appends an axis of size M to the mesh, marks it as the micro-batch axis,
// and splits every model input's batch over it. Propagation and
// partitioning then build the step of one micro-batch (a mean loss becomes
// a sum over a count combined over the axis, gradients partial sums over
// it), and dist-pipeline-schedule runs that step M times per stage,
// turning the collectives over the axis into sums over the micro-batches.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPIPELINEMICROBATCH
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct DistPipelineMicrobatchPass
    : dist::impl::DistPipelineMicrobatchBase<DistPipelineMicrobatchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp mesh = getMesh(module);
    if (!mesh) {
      module.emitError("dist-pipeline-microbatch needs a device mesh: run "
                       "dist-create-mesh first");
      return signalPassFailure();
    }
    if (mesh->hasAttr(DistDialect::kMicrobatchAxisAttrName)) {
      module.emitError("dist-pipeline-microbatch: the mesh already has a "
                       "micro-batch axis");
      return signalPassFailure();
    }
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn || fn.isExternal()) {
      module.emitError("dist-pipeline-microbatch: no function @") << function;
      return signalPassFailure();
    }
    int64_t microbatches = this->microbatches;
    if (microbatches < 1) {
      fn.emitError("microbatches must be >= 1, got ") << microbatches;
      return signalPassFailure();
    }
    SmallVector<int64_t> shape(mesh.getShape());
    MLIRContext *ctx = &getContext();
    // The inputs' batch dimension, and the axis (data parallelism's) that
    // already splits it, if one does.
    struct Input {
      unsigned index;
      std::string what;
      RankedTensorType type;
      SmallVector<DimSharding> dims;
    };
    SmallVector<Input> inputs;
    std::optional<int64_t> dataAxis;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      if (!isDataArgument(fn, i))
        continue;
      auto type = cast<RankedTensorType>(fn.getArgument(i).getType());
      auto name =
          fn.getArgAttrOfType<StringAttr>(i, DistDialect::kInputNameAttrName);
      std::string what = name ? "input '" + name.str() + "'"
                              : "argument #" + std::to_string(i);
      SmallVector<DimSharding> dims = replicatedSharding(type.getRank());
      if (ShardingAttr sharding = getArgSharding(fn, i)) {
        FailureOr<SmallVector<DimSharding>> current =
            sharding.getDims([&] { return fn.emitError(); }, what);
        if (failed(current))
          return signalPassFailure();
        dims = *current;
      }
      if (type.getRank() == 0) {
        fn.emitError("pipeline micro-batches split the batch (dimension 0) "
                     "of every input, but ")
            << what << " is a scalar";
        return signalPassFailure();
      }
      if (dims[0].isSplit())
        dataAxis = dims[0].axis;
      inputs.push_back({i, what, type, dims});
    }
    for (const Input &in : inputs)
      if (dataAxis && in.dims[0].axis != *dataAxis) {
        fn.emitError("pipeline micro-batches: ")
            << in.what << " is not split along its batch like the others "
            << "(over mesh axis " << *dataAxis << ")";
        return signalPassFailure();
      }
    if (dataAxis)
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (ShardingAttr sharding = getArgSharding(fn, i);
            sharding && fn.getArgAttr(i, DistDialect::kOptimizerStateAttrName))
          for (DenseI64ArrayAttr axes : sharding.getSplitAxes())
            if (llvm::is_contained(axes.asArrayRef(), *dataAxis)) {
              fn.emitError("ZeRO (optimizer state split over the "
                           "data-parallel axis) with pipeline stages is not "
                           "supported yet");
              return signalPassFailure();
            }
    // With data parallelism, its axis holds (device, micro-batch) pairs,
    // micro-batch minor: block d * M + m of the batch is device d's
    // micro-batch m. Without, a new axis holds the micro-batches.
    bool appended = !dataAxis;
    int64_t axis = dataAxis ? *dataAxis : static_cast<int64_t>(shape.size());
    int64_t devices = dataAxis ? shape[axis] : 1;
    if (appended)
      shape.push_back(microbatches);
    else
      shape[axis] *= microbatches;
    for (Input &in : inputs) {
      int64_t pieces = devices * microbatches;
      if (in.type.getDimSize(0) % pieces != 0) {
        fn.emitError("pipeline micro-batches: the batch of ")
            << in.what << " (" << in.type.getDimSize(0) << ", type "
            << in.type << ") does not split into " << microbatches
            << " micro-batches"
            << (devices > 1 ? " on each of " + std::to_string(devices) +
                                  " data-parallel ranks"
                            : std::string())
            << "; compile with a batch that is a multiple of " << pieces
            << " or change microbatches";
        return signalPassFailure();
      }
      // One micro-batch: nothing more to split.
      if (microbatches == 1)
        continue;
      in.dims[0] = DimSharding::split(axis);
      fn.setArgAttr(in.index, DistDialect::kShardingAttrName,
                    ShardingAttr::get(ctx, in.dims));
    }
    // Results without a sharding are whole.
    for (unsigned r = 0; r < fn.getNumResults(); ++r)
      if (!fn.getResultAttr(r, DistDialect::kShardingAttrName)) {
        Attribute sharding;
        if (auto updates = fn.getResultAttrOfType<IntegerAttr>(
                r, DistDialect::kUpdatesAttrName))
          sharding =
              fn.getArgAttr(updates.getInt(), DistDialect::kShardingAttrName);
        if (!sharding)
          sharding = ShardingAttr::get(
              ctx, replicatedSharding(
                       cast<RankedTensorType>(fn.getResultTypes()[r])
                           .getRank()));
        fn.setResultAttr(r, DistDialect::kShardingAttrName, sharding);
      }
    // Arguments without one are whole too.
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (!fn.getArgAttr(i, DistDialect::kShardingAttrName))
        fn.setArgAttr(i, DistDialect::kShardingAttrName,
                      ShardingAttr::get(
                          ctx, replicatedSharding(
                                   cast<RankedTensorType>(
                                       fn.getArgument(i).getType())
                                       .getRank())));
    OpBuilder b(mesh);
    auto grown = MeshOp::create(b, mesh.getLoc(), mesh.getSymName(), shape);
    for (NamedAttribute attr : mesh->getDiscardableAttrs())
      grown->setAttr(attr.getName(), attr.getValue());
    NamedAttrList micro;
    micro.append("axis", b.getI64IntegerAttr(axis));
    micro.append("microbatches", b.getI64IntegerAttr(microbatches));
    micro.append("appended", b.getBoolAttr(appended));
    grown->setAttr(DistDialect::kMicrobatchAxisAttrName,
                   micro.getDictionary(ctx));
    mesh.erase();
  }
};

} // namespace
