//===- ShardingRule.h - How an op's dimensions may be split -----*- C++ -*-===//
//
// The passes' entry to the sharding rules: each op's rule comes from its
// ShardingOpInterface model (dialects/Dist/IR/DistShardingInterface.h
// explains factors; the models are the <Family>Sharding.cpp files here),
// and the merging of operand and result shardings into one split per
// factor is common to all ops.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_SHARDING_SHARDINGRULE_H
#define DIALECTS_DIST_SHARDING_SHARDINGRULE_H

#include "dialects/Dist/IR/DistShardingInterface.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::dist {

/// Attaches ShardingOpInterface to every dist op that may be split.
void registerShardingOpInterfaceModels(DialectRegistry &registry);

/// The rule of `op`, or std::nullopt with `why` set when the op cannot be
/// split (it is then computed whole on every rank). Ops with no operands
/// (constants) have no rule and an empty `why`: replicating them is free.
std::optional<ShardingRule> getShardingRule(Operation *op, std::string &why);

/// Per factor, how it is split (over a mesh axis, in groups when the factor
/// itself is split in groups, see DistMesh.h), merged from the given shardings
/// of `op`'s operands and results (null entries are unknown). The first value
/// that splits a factor decides it; a factor's axis must divide its size (each
/// group's), it may not be Fixed, and an axis splits at most one factor. A
/// strided split of a dimension falls on the factor its groups end before.
SmallVector<DimSharding>
mergeFactorAxes(const ShardingRule &rule,
                ArrayRef<const SmallVector<DimSharding> *> operandShardings,
                ArrayRef<const SmallVector<DimSharding> *> resultShardings,
                ArrayRef<int64_t> mesh);

/// The sharding of a value whose dimensions are `dims`, given factor axes: a
/// dimension is split over the axis of its first split factor, in as many
/// groups as the factors before it hold indices (a block split when that
/// factor is the major one).
SmallVector<DimSharding>
shardingFromFactors(const ShardingRule &rule,
                    ArrayRef<SmallVector<int64_t, 2>> dims,
                    ArrayRef<DimSharding> factorAxes);

} // namespace mlir::dist

#endif // DIALECTS_DIST_SHARDING_SHARDINGRULE_H
