//===- DistMesh.cpp - Device meshes and tensor shardings ------------------===//

#include "dialects/Dist/IR/DistMesh.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::dist;

DenseI64ArrayAttr mlir::dist::getMesh(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto mesh =
            op->getAttrOfType<DenseI64ArrayAttr>(DistDialect::kMeshAttrName))
      return mesh;
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
                           StringRef what, ArrayRef<int64_t> sharding,
                           ArrayRef<int64_t> shape, ArrayRef<int64_t> mesh,
                           bool local) {
  if (sharding.size() != shape.size())
    return emitError() << "the sharding of " << what << " has "
                       << sharding.size() << " entries for a tensor of rank "
                       << shape.size();
  SmallVector<bool> used(mesh.size(), false);
  for (auto [dim, entry] : llvm::enumerate(sharding)) {
    if (entry == kReplicated)
      continue;
    int64_t axis = shardAxis(entry), groups = shardGroups(entry);
    // One spelling per split: a block split is the axis itself.
    if (entry < 0 || (entry >= kGroupStride && groups < 2))
      return emitError() << "the sharding of " << what << " has entry " << entry
                         << " for dimension " << dim
                         << ": expected -1, a mesh axis, or groups * "
                         << kGroupStride << " + axis with at least 2 groups";
    if (axis >= static_cast<int64_t>(mesh.size()))
      return emitError() << "the sharding of " << what << " splits dimension "
                         << dim << " over axis " << axis << ", but the mesh "
                         << "has " << mesh.size() << " axes";
    if (used[axis])
      return emitError() << "the sharding of " << what << " uses mesh axis "
                         << axis << " twice";
    used[axis] = true;
    if (!local && shape[dim] % (mesh[axis] * groups) != 0)
      return emitError() << "the sharding of " << what << " splits dimension "
                         << dim << " of size " << shape[dim] << " over mesh "
                         << "axis " << axis << " of size " << mesh[axis]
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
                                       ArrayRef<int64_t> sharding,
                                       ArrayRef<int64_t> mesh, bool divide) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [dim, entry] : llvm::enumerate(sharding)) {
    if (entry == kReplicated)
      continue;
    int64_t ranks = mesh[shardAxis(entry)];
    shape[dim] = divide ? shape[dim] / ranks : shape[dim] * ranks;
  }
  return type.clone(shape);
}

RankedTensorType mlir::dist::localType(RankedTensorType type,
                                       ArrayRef<int64_t> sharding,
                                       ArrayRef<int64_t> mesh) {
  return scaleSplitDims(type, sharding, mesh, /*divide=*/true);
}

RankedTensorType mlir::dist::globalType(RankedTensorType type,
                                        ArrayRef<int64_t> sharding,
                                        ArrayRef<int64_t> mesh) {
  return scaleSplitDims(type, sharding, mesh, /*divide=*/false);
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

bool mlir::dist::isReplicated(ArrayRef<int64_t> sharding) {
  return llvm::all_of(sharding, [](int64_t a) { return a == kReplicated; });
}

std::string mlir::dist::shardingText(ArrayRef<int64_t> sharding) {
  std::string text = "[";
  for (auto [i, axis] : llvm::enumerate(sharding)) {
    if (i)
      text += ", ";
    if (axis == kReplicated)
      text += "-";
    else
      text += std::to_string(shardAxis(axis)) +
              (shardGroups(axis) > 1 ? "/" + std::to_string(shardGroups(axis))
                                     : std::string());
  }
  return text + "]";
}

LogicalResult mlir::dist::verifyCollectiveAxes(Operation *op,
                                               ArrayRef<int64_t> axes,
                                               int64_t &size) {
  DenseI64ArrayAttr mesh = getMesh(op);
  if (!mesh)
    return op->emitOpError("needs a device mesh: no enclosing module has a '")
           << DistDialect::kMeshAttrName << "' attribute";
  if (axes.empty())
    return op->emitOpError("needs at least one mesh axis");
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= static_cast<int64_t>(mesh.size()))
      return op->emitOpError("axis ")
             << axis << " is not an axis of the mesh (it has " << mesh.size()
             << ")";
    if (i && axis <= axes[i - 1])
      return op->emitOpError("axes must be strictly increasing");
  }
  size = groupSize(mesh.asArrayRef(), axes);
  return success();
}
