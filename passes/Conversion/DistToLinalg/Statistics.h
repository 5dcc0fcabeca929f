//===- Statistics.h - Per-row statistics shared by several lowerings ------===//
//
// Softmax, log-softmax and cross-entropy need the max and the sum of
// exp(x - max) along the class axis; layer norm and training-mode batch norm
// need the mean and the biased variance over a set of axes. Each is built
// here once, in `acc` precision (f32 for f16/bf16 inputs), as tensors without
// the reduced dimensions.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CONVERSION_DISTTOLINALG_STATISTICS_H
#define PASSES_CONVERSION_DISTTOLINALG_STATISTICS_H

#include "mlir/IR/Builders.h"

#include <utility>

namespace mlir::dist {

/// (max over `axis`, sum over `axis` of exp(x - max)).
std::pair<Value, Value> softmaxStatistics(OpBuilder &b, Location loc, Value x,
                                          int64_t axis, Type acc);

/// (mean, biased variance) over `axes` (sorted), the variance computed in a
/// second pass over x - mean.
std::pair<Value, Value> meanAndVariance(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<int64_t> axes, Type acc);

} // namespace mlir::dist

#endif // PASSES_CONVERSION_DISTTOLINALG_STATISTICS_H
