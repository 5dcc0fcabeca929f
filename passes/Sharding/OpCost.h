//===- OpCost.h - What an op costs to run, for placement decisions -*- C++ -*-===//
//
// One cost for every decision that places work (pipeline stages now, the
// planner later): the op's floating-point operations plus the bytes it
// moves through memory, weighted so that both are in "FLOP equivalents".
// The weight is a machine balance: a GPU (or a CPU core with AVX2 FMA)
// does about 10-60 FLOPs in the time it moves one byte from memory, so a
// memory-bound op (an elementwise op, a softmax) costs its bytes times
// kFlopsPerByte and a large matrix product its FLOPs.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_SHARDING_OPCOST_H
#define PASSES_SHARDING_OPCOST_H

#include "dialects/Dist/IR/DistOps.h"

namespace mlir::dist {

/// Ops computing each element from the same element of their operands
/// (rank-0 operands broadcast): what dist-fuse-elementwise fuses.
inline bool isPointwise(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         (op->hasTrait<OpTrait::Elementwise>() ||
          isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, RemOp, AndOp,
              OrOp, XorOp, CompareOp, SelectOp>(op));
}

/// FLOPs one byte of memory traffic is worth (machine balance).
inline constexpr double kFlopsPerByte = 16.0;

struct OpCost {
  double flops = 0; ///< matrix products and convolutions, 2 per FMA
  double bytes = 0; ///< tensors read and written
  double total() const { return flops + kFlopsPerByte * bytes; }
};

/// The forward cost of `op` (its operands read once, its results written
/// once; a product's or convolution's FLOPs).
inline OpCost opCost(Operation *op) {
  OpCost cost;
  if (auto matmul = dyn_cast<MatmulOp>(op))
    cost.flops = static_cast<double>(matmul.getFlops());
  else if (auto gemm = dyn_cast<GemmOp>(op))
    cost.flops = static_cast<double>(gemm.getFlops());
  else if (auto conv = dyn_cast<Conv2DOp>(op))
    cost.flops = static_cast<double>(conv.getFlops());
  else if (auto attention = dyn_cast<AttentionOp>(op))
    cost.flops = static_cast<double>(attention.getFlops());
  else if (auto grad = dyn_cast<AttentionGradOp>(op))
    cost.flops = static_cast<double>(grad.getFlops());
  if (isa<ConstantOp, ReshapeOp>(op))
    return cost; // no data moves
  for (Value v : op->getOperands())
    cost.bytes += static_cast<double>(tensorBytes(v.getType()));
  for (Value v : op->getResults())
    cost.bytes += static_cast<double>(tensorBytes(v.getType()));
  return cost;
}

} // namespace mlir::dist

#endif // PASSES_SHARDING_OPCOST_H
