//===- DistMesh.h - Device meshes and tensor shardings ----------*- C++ -*-===//
//
// A module partitioned over devices holds one `dist.mesh` op, the sizes of
// the mesh axes. A tensor's sharding (#dist.sharding, in memory one
// DimSharding per dimension) names for each dimension the mesh axis it is
// split over, or none; an axis splits at most one dimension of a tensor. A
// dimension of size n split over an axis of size k holds n / k elements on
// each rank.
//
// A *strided* split (groups g > 1) views the dimension as g equal groups
// and splits each group over the axis: a rank holds block r of every group,
// g * n / (g * k) elements in all. This is how a fused weight is split by
// what it fuses: GPT-2's QKV weight [3D, D] split by heads is axis 0 in 3
// groups (rank r holds its heads of q, k and v).
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_DISTMESH_H
#define DIALECTS_DIST_IR_DISTMESH_H

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dist {

/// The mesh of the nearest module enclosing `op` (or `op` itself) that has
/// one, or null.
MeshOp getMesh(Operation *op);

/// The number of ranks in a group over `axes`.
int64_t groupSize(ArrayRef<int64_t> mesh, ArrayRef<int64_t> axes);

/// Checks `sharding` against a tensor of `shape` on `mesh`: one entry per
/// dimension, axes (split and partial) of the mesh, and (unless `local`)
/// every split dimension divisible by its ranks times its groups. `what`
/// names the tensor in messages ("argument #2").
LogicalResult verifySharding(function_ref<InFlightDiagnostic()> emitError,
                             StringRef what, ShardingAttr sharding,
                             ArrayRef<int64_t> shape, ArrayRef<int64_t> mesh,
                             bool local);

/// The shard of a tensor of global `type` split by `sharding`, and back.
RankedTensorType localType(RankedTensorType type,
                           ArrayRef<DimSharding> sharding,
                           ArrayRef<int64_t> mesh);
RankedTensorType globalType(RankedTensorType type,
                            ArrayRef<DimSharding> sharding,
                            ArrayRef<int64_t> mesh);
/// The same for a sharding that may split a dimension over several axes.
RankedTensorType globalType(RankedTensorType type, ShardingAttr sharding,
                            ArrayRef<int64_t> mesh);

/// The `dist.sharding` of argument (result) `i` of `fn`, or null.
ShardingAttr getArgSharding(FunctionOpInterface fn, unsigned i);
ShardingAttr getResultSharding(FunctionOpInterface fn, unsigned i);

/// Whether an argument or result of `fn` carries a `dist.sharding`: the
/// function is to be partitioned.
bool hasShardingAnnotations(Operation *fn);

/// Whether no entry of `sharding` is split.
bool isReplicated(ArrayRef<DimSharding> sharding);

/// A sharding of `rank` whole dimensions.
inline SmallVector<DimSharding> replicatedSharding(int64_t rank) {
  return SmallVector<DimSharding>(rank, DimSharding::replicated());
}

/// "[0, -, 1]" ("0/3" for axis 0 in 3 groups): a sharding for messages.
std::string shardingText(ArrayRef<DimSharding> sharding);

/// Checks the axes of a collective: non-empty, strictly increasing, axes of
/// the mesh. Returns the group size through `size`.
LogicalResult verifyCollectiveAxes(Operation *op, ArrayRef<int64_t> axes,
                                   int64_t &size);

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTMESH_H
