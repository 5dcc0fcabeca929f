//===- Partitioner.h - Rebuilding a step as one rank's program --*- C++ -*-===//
//
// dist-partition's state: each global value as one rank holds it (its local
// value, sharding and pending partial sums), and the rebuilding of ops on
// those. Ops whose split needs collectives rebuild themselves through
// ShardingOpInterface::partition, which sees this state as a
// SplitOpPartitioner.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_SHARDING_PARTITIONER_H
#define PASSES_SHARDING_PARTITIONER_H

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/Sharding/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace mlir::dist::detail {

/// A global value as one rank holds it.
struct LocalValue {
  Value value;
  SmallVector<DimSharding> sharding;
  /// Mesh axes over which the ranks hold contributions still to be combined
  /// by `kind` (sorted).
  SmallVector<int64_t> partial;
  CollectiveKind kind = CollectiveKind::sum;
};

/// Names `collective`'s location after the value it moves ("dist.matmul at
/// model.onnx:3:7", a NameLoc around its own), for dist-explain-plan;
/// returns `collective`. A location, not an attribute, so that CSE merges
/// the collectives partitioning repeats.
Value markOrigin(Value collective, Value global);

class Partitioner final : public SplitOpPartitioner {
public:
  Partitioner(func::FuncOp fn, ArrayRef<int64_t> mesh, bool reduceScatter,
              bool reduceWidened)
      : fn(fn), meshShape(mesh), reduceScatter(reduceScatter),
        reduceWidened(reduceWidened), b(fn.getContext()) {}

  LogicalResult run();

  // SplitOpPartitioner: what an op's `partition` method builds with.
  OpBuilder &builder() override { return b; }
  ArrayRef<int64_t> mesh() const override { return meshShape; }
  SmallVector<Value> localOperands(Operation *op, const ShardingRule &rule,
                                   ArrayRef<DimSharding> factors) override;
  Value allReduce(Location loc, Value global, CollectiveKind kind, Value value,
                  ArrayRef<int64_t> axes) override;
  Value blockStart(Location loc, Value global, int64_t size, int64_t axis,
                   Type elementType) override;
  void setResult(Value global, Value local, ArrayRef<DimSharding> sharding,
                 ArrayRef<int64_t> partial) override;

private:
  func::FuncOp fn;
  ArrayRef<int64_t> meshShape;
  bool reduceScatter;
  /// Partial sums in bfloat16 / float16 pass through casts to float32, so
  /// they are reduced in float32.
  bool reduceWidened;
  OpBuilder b;
  DenseMap<Value, LocalValue> state;
  /// Reshardings done: (local value, wanted sharding) to the result.
  std::map<std::pair<void *, const void *>, Value> reshards;
  /// maskToOneRank's tensor<1xi1> per group of mesh axes (the step is one
  /// block: the first dominates the later uses).
  std::map<SmallVector<int64_t>, Value> firstRankMasks;

  RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  SmallVector<DimSharding> replicated(Value v) {
    return replicatedSharding(typeOf(v).getRank());
  }

  /// Combines the partial contributions of `global`, into the sharding
  /// `wanted` where an axis of the partial can split a dimension.
  void resolvePartial(Location loc, Value global, ArrayRef<DimSharding> wanted);
  /// `global` held with sharding `wanted` (partial sums combined first
  /// unless `keepPartial`).
  Value reshard(Location loc, Value global, ArrayRef<DimSharding> wanted,
                bool keepPartial = false);
  /// All-gathers (or slices out this rank's block of) dimension `dim` of
  /// `v`, the local value of `global`, split as `entry`.
  Value gatherOrSlice(Location loc, Value global, Value v, int64_t dim,
                      DimSharding entry, bool gather);
  LogicalResult partitionOp(Operation *op);
  /// The ranks' parts of a sum, stacked (a dist.broadcast marked
  /// dist.rank_parts, its new dimension 0 split over the axis the operand
  /// is a partial sum over): each rank's slice is its own partial value (a
  /// whole operand: the value on the group's first rank, zeros on the
  /// others). No communication.
  LogicalResult partitionRankParts(BroadcastOp op,
                                   ArrayRef<DimSharding> factors);
  /// The dimensions of the function argument's or result's sharding `attr`
  /// (none: `out` stays whole), or an error naming `what`.
  LogicalResult readSharding(ShardingAttr attr, StringRef what,
                             SmallVectorImpl<DimSharding> &out);
  /// Operands of a linear `op` that may stay partial sums, or empty. For a
  /// sum of partial sums and whole scalars, `masked` gets the scalars: each
  /// is kept by one rank of the partial's group and zeroed on the others
  /// (maskToOneRank), so the sum stays partial and a chain of them (the
  /// gradient norm over split and whole parameters) is combined once.
  SmallVector<unsigned> linearPartialOperands(Operation *op,
                                              SmallVector<unsigned> &masked);
  /// `v` on the first rank of the group over mesh axes `axes`, zeros on
  /// the others: a partial sum of `v` over those axes, for the op computing
  /// `global` (markOrigin).
  Value maskToOneRank(Location loc, Value global, Value v,
                      ArrayRef<int64_t> axes);
};

} // namespace mlir::dist::detail

#endif // PASSES_SHARDING_PARTITIONER_H
