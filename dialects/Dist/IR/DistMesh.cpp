//===- DistMesh.cpp - Device meshes and tensor shardings ------------------===//

#include "dialects/Dist/IR/DistMesh.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::dist;

MeshOp mlir::dist::getMesh(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto module = dyn_cast<ModuleOp>(op)) {
      auto meshes = module.getOps<MeshOp>();
      if (!meshes.empty())
        return *meshes.begin();
    }
  return {};
}

int64_t mlir::dist::groupSize(ArrayRef<int64_t> mesh, ArrayRef<int64_t> axes) {
  int64_t size = 1;
  for (int64_t axis : axes)
    size *= mesh[axis];
  return size;
}

LogicalResult
mlir::dist::verifySharding(function_ref<InFlightDiagnostic()> emitError,
                           StringRef what, ShardingAttr sharding,
                           ArrayRef<int64_t> shape, ArrayRef<int64_t> mesh,
                           bool local) {
  if (sharding.getRank() != static_cast<int64_t>(shape.size()))
    return emitError() << "the sharding of " << what << " has "
                       << sharding.getRank() << " entries for a tensor of rank "
                       << shape.size();
  int64_t numAxes = mesh.size();
  for (int64_t axis : sharding.getPartialAxes())
    if (axis >= numAxes)
      return emitError() << "the sharding of " << what << " is partial over "
                         << "axis " << axis << ", but the mesh has " << numAxes
                         << " axes";
  for (auto [dim, axesAttr] : llvm::enumerate(sharding.getSplitAxes())) {
    ArrayRef<int64_t> axes = axesAttr.asArrayRef();
    int64_t groups = sharding.getGroups()[dim];
    for (int64_t axis : axes)
      if (axis >= numAxes)
        return emitError() << "the sharding of " << what << " splits dimension "
                           << dim << " over axis " << axis
                           << ", but the mesh has " << numAxes << " axes";
    if (axes.empty())
      continue;
    int64_t ranks = groupSize(mesh, axes);
    auto over = [&] {
      std::string text = axes.size() == 1 ? "mesh axis " : "mesh axes ";
      for (auto [i, axis] : llvm::enumerate(axes))
        text += (i ? ", " : "") + std::to_string(axis);
      return text + (axes.size() == 1 ? " of size " : " of sizes ") +
             std::to_string(ranks);
    };
    if (!local && shape[dim] % (ranks * groups) != 0)
      return emitError() << "the sharding of " << what << " splits dimension "
                         << dim << " of size " << shape[dim] << " over "
                         << over()
                         << (groups > 1
                                 ? " in " + std::to_string(groups) + " groups"
                                 : std::string())
                         << ", which does not divide it";
    if (local && shape[dim] % groups != 0)
      return emitError() << "the sharding of " << what << " splits dimension "
                         << dim << " of size " << shape[dim] << " in " << groups
                         << " groups, which does not divide it";
  }
  return success();
}

/// `type` with each split dimension divided (or multiplied) by its axis.
static RankedTensorType scaleSplitDims(RankedTensorType type,
                                       ArrayRef<DimSharding> sharding,
                                       ArrayRef<int64_t> mesh, bool divide) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [dim, entry] : llvm::enumerate(sharding)) {
    if (!entry.isSplit())
      continue;
    int64_t ranks = mesh[entry.axis];
    shape[dim] = divide ? shape[dim] / ranks : shape[dim] * ranks;
  }
  return type.clone(shape);
}

RankedTensorType mlir::dist::localType(RankedTensorType type,
                                       ArrayRef<DimSharding> sharding,
                                       ArrayRef<int64_t> mesh) {
  return scaleSplitDims(type, sharding, mesh, /*divide=*/true);
}

RankedTensorType mlir::dist::globalType(RankedTensorType type,
                                        ArrayRef<DimSharding> sharding,
                                        ArrayRef<int64_t> mesh) {
  return scaleSplitDims(type, sharding, mesh, /*divide=*/false);
}

RankedTensorType mlir::dist::globalType(RankedTensorType type,
                                        ShardingAttr sharding,
                                        ArrayRef<int64_t> mesh) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes()))
    shape[dim] *= groupSize(mesh, axes.asArrayRef());
  return type.clone(shape);
}

ShardingAttr mlir::dist::getArgSharding(FunctionOpInterface fn, unsigned i) {
  return fn.getArgAttrOfType<ShardingAttr>(i, DistDialect::kShardingAttrName);
}

ShardingAttr mlir::dist::getResultSharding(FunctionOpInterface fn, unsigned i) {
  return fn.getResultAttrOfType<ShardingAttr>(i,
                                              DistDialect::kShardingAttrName);
}

bool mlir::dist::hasShardingAnnotations(Operation *op) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return false;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (fn.getArgAttr(i, DistDialect::kShardingAttrName))
      return true;
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (fn.getResultAttr(i, DistDialect::kShardingAttrName))
      return true;
  return false;
}

bool mlir::dist::isReplicated(ArrayRef<DimSharding> sharding) {
  return llvm::none_of(sharding,
                       [](const DimSharding &d) { return d.isSplit(); });
}

std::string mlir::dist::shardingText(ArrayRef<DimSharding> sharding) {
  std::string text = "[";
  for (auto [i, entry] : llvm::enumerate(sharding)) {
    if (i)
      text += ", ";
    if (!entry.isSplit())
      text += "-";
    else
      text += std::to_string(entry.axis) +
              (entry.groups > 1 ? "/" + std::to_string(entry.groups)
                                : std::string());
  }
  return text + "]";
}

LogicalResult mlir::dist::verifyCollectiveAxes(Operation *op,
                                               ArrayRef<int64_t> axes,
                                               int64_t &size) {
  MeshOp mesh = getMesh(op);
  if (!mesh)
    return op->emitOpError(
        "needs a device mesh: no enclosing module has a dist.mesh op");
  ArrayRef<int64_t> shape = mesh.getShape();
  if (axes.empty())
    return op->emitOpError("needs at least one mesh axis");
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
      return op->emitOpError("axis ")
             << axis << " is not an axis of the mesh (it has " << shape.size()
             << ")";
    if (i && axis <= axes[i - 1])
      return op->emitOpError("axes must be strictly increasing");
  }
  size = groupSize(shape, axes);
  return success();
}
