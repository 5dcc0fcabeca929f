//===- Combiners.h - Reductions a GPU block can fold ------------*- C++ -*-===//
//
// Shared by dist-linalg-to-gpu and dist-row-kernels: a reduction generic
// whose every output is `yield combine(out, x)` with an associative
// combiner that gpu.all_reduce knows folds in any order across a block.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CUDA_COMBINERS_H
#define PASSES_CUDA_COMBINERS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::dist {

/// How output `output` of a reduction is computed: `yield combine(out, x)`.
struct Combiner {
  unsigned output; // the generic's init it folds into
  Operation *combine;
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// The combiners of every output of `op`, or nothing when some output is
/// not a plain associative fold of values that do not read any output.
std::optional<SmallVector<Combiner>> matchCombiners(linalg::GenericOp op);

/// `combine(acc, x)`: `c`'s op with the output's value `acc` and the folded
/// value `x`.
Value combine(OpBuilder &b, linalg::GenericOp op, const Combiner &c,
              Value acc, Value x);

} // namespace mlir::dist

#endif // PASSES_CUDA_COMBINERS_H
