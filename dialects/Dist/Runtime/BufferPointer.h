//===- BufferPointer.h - The address of a buffer's first element -*- C++ -*-===//
//
// Shared by the passes that hand buffers to runtime calls
// (dist-matmul-to-runtime, dist-host-memory-to-gpu).
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_RUNTIME_BUFFERPOINTER_H
#define DIALECTS_DIST_RUNTIME_BUFFERPOINTER_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::dist {

/// The bytes one element of `elementType` takes in a buffer: its bit width
/// rounded up to whole bytes (an i1 takes a byte, as LLVM stores it).
int64_t elementStorageBytes(Type elementType);

/// An `!llvm.ptr` to the first element of the memref `buffer` (its aligned
/// pointer plus its offset), and the strided metadata read to compute it.
std::pair<Value, memref::ExtractStridedMetadataOp>
bufferPointer(OpBuilder &b, Location loc, Value buffer);

} // namespace mlir::dist

#endif // DIALECTS_DIST_RUNTIME_BUFFERPOINTER_H
