//===- PowerSgd.h - PowerSGD gradient compression in dist ops ---*- C++ -*-===//
//
// PowerSGD (Vogels et al., NeurIPS 2019) as PyTorch's powerSGD_hook computes
// it, written in the global view for dist-optimizer{grad-compression=
// powersgd:R}: each rank's part of a data-parallel gradient, plus its own
// error-feedback residual, is multiplied by a shared low-rank basis Q; the
// ranks sum P = M Q (an all-reduce of rows x R), orthogonalize it, sum
// Q = M^T P (cols x R), and the gradient the update reads is P Q^T. See
// docs/decisions.md 49.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_PASSES_TRANSFORMS_POWERSGD_H
#define DIST_PASSES_TRANSFORMS_POWERSGD_H

#include "dialects/Dist/IR/DistBuilder.h"

#include <optional>

namespace mlir::dist {

/// A gradient viewed as the matrix PowerSGD compresses: its first dimension
/// by the product of the others, approximated at rank `rank`.
struct PowerSgdMatrix {
  int64_t rows, cols, rank;
};

/// The matrix PowerSGD compresses a float32 gradient of `shape` as, or none
/// when, as in PyTorch's hook (min_compression_rate 2), a tensor of rank
/// below 2 or one whose rows + cols times the rank is not under half its
/// size is summed uncompressed.
std::optional<PowerSgdMatrix> powerSgdMatrix(ArrayRef<int64_t> shape,
                                             int64_t rank);

/// The basis the first step starts from, cols x rank: element (i, j) is
/// frac(k * 0.6180339887498949) - 0.5 with k = i * rank + j + 1, computed
/// in double and rounded (the reference in the tests computes the same).
Value powerSgdInitialBasis(DistBuilder &g, const PowerSgdMatrix &matrix);

/// PyTorch's _orthogonalize_gram_schmidt of each matrix (k x rank), with
/// the matrices of one shape stacked and orthogonalized together (as
/// powerSGD_hook's batch_tensors_with_same_shape): fewer, larger ops.
SmallVector<Value> orthogonalizeEach(DistBuilder &g, ArrayRef<Value> matrices);

/// One PowerSGD step in the making: the ranks' stacked inputs M (ranks x
/// rows x cols), P (rows x rank) and, after sumPowerSgdBases, the sum
/// Q = M^T P over the ranks (cols x rank).
struct PowerSgdStep {
  Value inputs;
  Value p;
  Value q;
};

/// The first part of one PowerSGD step on `gradient` (a sum over the
/// `ranks` data-parallel ranks in the global view): each rank's part plus
/// its residual (`error`: the residuals stacked on a leading dimension of
/// size `ranks`, split over the data-parallel axis), times the basis
/// (`basis`, cols x rank, orthogonalized), summed over the ranks.
PowerSgdStep startPowerSgd(DistBuilder &g, Value gradient, Value basis,
                           Value error, int64_t ranks,
                           const PowerSgdMatrix &matrix);

/// The second: each P orthogonalized, and Q = M^T P summed over the ranks.
/// Built for every gradient before any is finished, so that the sums of Q
/// share one bucket.
void sumPowerSgdBases(DistBuilder &g, MutableArrayRef<PowerSgdStep> steps);

/// The last: the gradient P Q^T (of `shape`), and each rank's new residual,
/// its input minus its share (1 / ranks) of the gradient. (The next basis
/// is Q orthogonalized: orthogonalizeEach of the steps' Q.)
std::pair<Value, Value> finishPowerSgd(DistBuilder &g,
                                       const PowerSgdStep &step,
                                       ArrayRef<int64_t> shape, int64_t ranks);

} // namespace mlir::dist

#endif // DIST_PASSES_TRANSFORMS_POWERSGD_H
