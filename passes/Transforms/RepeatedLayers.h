//===- RepeatedLayers.h - Find a model's repeated layers --------*- C++ -*-===//
//
// A transformer is a prologue (embeddings), L layers of the same shape
// applied one after the other, and an epilogue (head, loss). The planner
// solves one layer and multiplies; --verify-plan runs the plan on a copy
// with fewer layers. Both need the layers found in the forward function:
//
//   - parameters named <prefix>.<i>.<rest> for i = 0..L-1, each index with
//     the same rests and types (h.0.attn.c_attn.weight, ...);
//   - layer i's ops run from its first use of one of its parameters to the
//     op before layer i+1's first (the last layer as long as the others),
//     each layer the same op names in the same order;
//   - layer i reads one value of layer i-1 (the residual stream), of the
//     same type for every layer, and nothing of earlier layers; what the
//     prologue computes (masks, positions) any layer may read.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_TRANSFORMS_REPEATEDLAYERS_H
#define PASSES_TRANSFORMS_REPEATEDLAYERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::dist {

struct RepeatedLayers {
  std::string prefix;           ///< "h" for h.0.attn..., h.1.attn...
  int64_t count = 0;            ///< L
  /// Layer i's ops are [begin[i], begin[i] + opsPerLayer) of the body.
  SmallVector<unsigned> begin;
  unsigned opsPerLayer = 0;
  /// What layer i passes on (out[i]) and the parameter arguments it reads.
  SmallVector<Value> out;
  SmallVector<SmallVector<unsigned>> parameterArgs;
};

/// The repeated layers of `fn`, or why it has none (a sentence).
FailureOr<RepeatedLayers> findRepeatedLayers(func::FuncOp fn,
                                             std::string &whyNot);

/// Keeps the first `keep` (>= 1) of `fn`'s repeated layers: the last
/// kept layer's output takes the place of the last layer's, the others'
/// ops, arguments and (in `module`) parameters are erased.
LogicalResult shrinkLayers(ModuleOp module, func::FuncOp fn,
                           const RepeatedLayers &layers, int64_t keep);

} // namespace mlir::dist

#endif // PASSES_TRANSFORMS_REPEATEDLAYERS_H
