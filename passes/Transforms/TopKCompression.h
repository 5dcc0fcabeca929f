//===- TopKCompression.h - Top-k gradient compression in dist ops -*- C++ -*-===//
//
// dist-optimizer{grad-compression=topk:F} in the global view: each rank adds
// its part of a data-parallel gradient to its error-feedback residual,
// keeps the k = ceil(F n) elements largest in magnitude for sending
// (dist.sparsify_top_k) and the rest as its next residual. The ranks' values
// and indices are gathered by one sum each over the ranks (each rank's
// selection placed in its own row, zeros elsewhere: an all-reduce, bucketed
// and overlapped like a gradient's), and every rank adds them up into the
// gradient the update reads. See docs/decisions.md 51.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_PASSES_TRANSFORMS_TOPKCOMPRESSION_H
#define DIST_PASSES_TRANSFORMS_TOPKCOMPRESSION_H

#include "dialects/Dist/IR/DistBuilder.h"

#include <optional>

namespace mlir::dist {

/// F of "topk:F" (0 < F <= 1), or none.
std::optional<double> topKFraction(StringRef spec);

/// The elements of `n` that top-k at `fraction` sends: ceil(F n), at least
/// 1 (as parameter-server pushes, runtime/src/main/PushCodec.h).
int64_t topKKept(double fraction, int64_t n);

/// Top-k of one gradient in the making: the ranks' selections gathered
/// (ranks x k values and indices, whole on every rank) and each rank's new
/// residual (stacked like the residuals).
struct TopKStep {
  Value values, indices, residual;
};

/// Where `gradient` (a sum over `ranks` data-parallel ranks) is made: each
/// rank's part plus its residual (`error`, the residuals stacked on a
/// leading dimension of size `ranks`), its top `k` and their sums over the
/// ranks.
TopKStep startTopK(DistBuilder &g, Value gradient, Value error, int64_t ranks,
                   int64_t k);

/// Where the update starts: the gradient (of `type`) the ranks' selections
/// add up to, in rank order.
Value finishTopK(DistBuilder &g, const TopKStep &step, Type type);

} // namespace mlir::dist

#endif // DIST_PASSES_TRANSFORMS_TOPKCOMPRESSION_H
