//===- DistMesh.h - Device meshes and tensor shardings ----------*- C++ -*-===//
//
// A module partitioned over devices carries `dist.mesh = array<i64: ...>`,
// the sizes of the mesh axes. A tensor's sharding is one entry per tensor
// dimension: the mesh axis that dimension is split over, or -1 (kReplicated);
// an axis splits at most one dimension of a tensor. A dimension of size n
// split over an axis of size k holds n / k elements on each rank.
//
// A *strided* split, written g * 100 + axis (g > 1), views the dimension as
// g equal groups and splits each group over the axis: a rank holds block r
// of every group, g * n / (g * k) elements in all. This is how a fused
// weight is split by what it fuses: GPT-2's QKV weight [3D, D] split by
// heads is 300 (axis 0 in 3 groups: rank r holds its heads of q, k and v).
// The encoding keeps every comparison of shardings exact; shardAxis and
// shardGroups read an entry.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_DISTMESH_H
#define DIALECTS_DIST_IR_DISTMESH_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace mlir::dist {

/// A dimension (or factor) that is not split.
constexpr int64_t kReplicated = -1;

/// The function attribute of a per-rank program (dist-partition): its
/// argument and result types are the local shards their `dist.sharding`
/// describes.
constexpr llvm::StringLiteral kPartitionedAttrName = "dist.partitioned";

/// The multiplier of a strided split's group count in a sharding entry.
constexpr int64_t kGroupStride = 100;

/// The mesh axis of a sharding entry (kReplicated stays kReplicated).
inline int64_t shardAxis(int64_t entry) {
  return entry < 0 ? kReplicated : entry % kGroupStride;
}
/// The number of groups of a sharding entry (1: a block split or none).
inline int64_t shardGroups(int64_t entry) {
  return entry < kGroupStride ? 1 : entry / kGroupStride;
}
/// The entry splitting over `axis` in `groups` groups.
inline int64_t stridedShard(int64_t axis, int64_t groups) {
  return axis < 0 || groups <= 1 ? axis : groups * kGroupStride + axis;
}

/// The mesh of the module enclosing `op` (or `op` itself), or null.
DenseI64ArrayAttr getMesh(Operation *op);

/// The number of ranks in a group over `axes`.
int64_t groupSize(ArrayRef<int64_t> mesh, ArrayRef<int64_t> axes);

/// Checks `sharding` against a tensor of `shape` on `mesh`: one entry per
/// dimension, each -1 or an axis of the mesh, no axis twice, and (unless
/// `local`) every split dimension divisible by its axis. `what` names the
/// tensor in messages ("argument #2").
LogicalResult verifySharding(function_ref<InFlightDiagnostic()> emitError,
                             StringRef what, ArrayRef<int64_t> sharding,
                             ArrayRef<int64_t> shape, ArrayRef<int64_t> mesh,
                             bool local);

/// The shard of a tensor of global `type` split by `sharding`, and back.
RankedTensorType localType(RankedTensorType type, ArrayRef<int64_t> sharding,
                           ArrayRef<int64_t> mesh);
RankedTensorType globalType(RankedTensorType type, ArrayRef<int64_t> sharding,
                            ArrayRef<int64_t> mesh);

/// Whether an argument or result of `fn` carries a `dist.sharding`: the
/// function is to be partitioned.
bool hasShardingAnnotations(Operation *fn);

/// Whether every entry of `sharding` is kReplicated.
bool isReplicated(ArrayRef<int64_t> sharding);

/// "[0, -, 1]" ("0/3" for axis 0 in 3 groups): a sharding for messages.
std::string shardingText(ArrayRef<int64_t> sharding);

/// Checks the axes of a collective: non-empty, strictly increasing, axes of
/// the mesh. Returns the group size through `size`.
LogicalResult verifyCollectiveAxes(Operation *op, ArrayRef<int64_t> axes,
                                   int64_t &size);

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTMESH_H
