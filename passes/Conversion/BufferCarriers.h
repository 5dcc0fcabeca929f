//===- BufferCarriers.h - The values a buffer's memory flows into -*- C++
//-*-===//
//
// Shared by the passes that move memory operations on buffers
// (dist-free-buffers-early, dist-write-updates-early): which values read or
// write a buffer's memory besides the buffer itself.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CONVERSION_BUFFERCARRIERS_H
#define PASSES_CONVERSION_BUFFERCARRIERS_H

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::dist {

/// `buffer` and every value that carries its memory on: views and casts of
/// it, its pointer and metadata (the runtime's gemm calls take raw
/// pointers), and integer arithmetic and casts on those, transitively.
/// Failure if the memory escapes through an op that returns a memref and is
/// none of these.
FailureOr<llvm::DenseSet<Value>> memoryCarriers(Value buffer);

/// Whether `op` or an op nested in it uses a value of `values`.
bool usesAnyOf(Operation *op, const llvm::DenseSet<Value> &values);

} // namespace mlir::dist

#endif // PASSES_CONVERSION_BUFFERCARRIERS_H
