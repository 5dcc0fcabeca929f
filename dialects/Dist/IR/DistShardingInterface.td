//===- DistShardingInterface.td - How ops split over a mesh --------------===//
//
// The interface through which sharding propagation and partitioning split
// an op. Each op states its own factor rule (and, where splitting needs
// collectives, how to rebuild it); the passes know no op kinds.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTSHARDINGINTERFACE_TD
#define DIST_IR_DISTSHARDINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def Dist_ShardingOpInterface : OpInterface<"ShardingOpInterface"> {
  let cppNamespace = "::mlir::dist";
  let description = [{
    An op that dist-propagate-sharding and dist-partition can split over a
    device mesh (see ShardingRule in DistShardingInterface.h).

    - `getShardingRule` gives the op's factors and how each operand and
      result dimension is made of them, or std::nullopt with `why` set when
      the op must be computed whole on every rank.
    - `partition` rebuilds the op on local shards when the factors need more
      than a per-block clone (a Collective factor is split, or a mean over
      split positions); false leaves the op to the generic clone.
    - `getPartialSums` says which operands may stay pending partial sums
      through the op (it is linear in them).

    The implementations are external models registered by
    `registerShardingOpInterfaceModels` (dialects/Dist/Sharding).
  }];
  let methods = [
    InterfaceMethod<
      "The op's sharding rule, or std::nullopt with `why` saying why it "
      "cannot be split.",
      "std::optional<::mlir::dist::ShardingRule>", "getShardingRule",
      (ins "std::string &":$why)>,
    InterfaceMethod<
      "Rebuilds the op on one rank's shards, split as `factors` says; false "
      "if the generic per-block clone applies.",
      "bool", "partition",
      (ins "::mlir::dist::SplitOpPartitioner &":$partitioner,
           "const ::mlir::dist::ShardingRule &":$rule,
           "::llvm::ArrayRef<::mlir::dist::DimSharding>":$factors),
      /*methodBody=*/"", /*defaultImplementation=*/"return false;">,
    InterfaceMethod<
      "Through which operands pending partial sums may pass unreduced.",
      "::mlir::dist::PartialSums", "getPartialSums", (ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return ::mlir::dist::PartialSums::none;">
  ];
}

#endif // DIST_IR_DISTSHARDINGINTERFACE_TD
