//===- ConstantTable.h - A mask computed from constants, as a table -*- C++ -*-===//
//
// Attention masks reach the graph as constants or as short chains of dist
// ops on constants the exporter did not fold (Hugging Face LLaMA's causal
// mask: a splat of float32's lowest value, trilu, a multiply by a 0/1
// constant, reshape, broadcast over the batch, slice). Patterns that need
// the mask's values evaluate it here, as a table of its last two
// dimensions: every leading dimension only repeats that table.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_TRANSFORMS_CONSTANTTABLE_H
#define PASSES_TRANSFORMS_CONSTANTTABLE_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::dist {

/// The last two dimensions of a float32 or i1 tensor (i1 as 0 and 1), row by
/// row; a tensor of rank 1 is one row, a scalar one entry.
struct ConstantTable {
  int64_t rows = 0, cols = 0;
  SmallVector<float> values;

  float at(int64_t row, int64_t col) const { return values[row * cols + col]; }
};

/// The values of `value` when it is a constant, or computed from constants
/// by trilu, not, cast, add, sub, mul, select, reshape, broadcast and slice,
/// and is the same table for every index of its leading dimensions; nullopt
/// for anything else or over `maxEntries` entries.
std::optional<ConstantTable> evaluateConstantTable(Value value,
                                                   int64_t maxEntries = 1
                                                                        << 24);

} // namespace mlir::dist

#endif // PASSES_TRANSFORMS_CONSTANTTABLE_H
