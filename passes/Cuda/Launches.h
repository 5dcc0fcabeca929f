//===- Launches.h - Building the kernels of the CUDA passes -----*- C++ -*-===//
//
// Shared by dist-linalg-to-gpu and dist-loops-to-gpu: one-dimensional
// launches, one thread per point, and kernel names that say which op they
// compute (a CUDA error names the kernel that failed, runtime/src/cuda, so
// the message points at the model node).
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CUDA_LAUNCHES_H
#define PASSES_CUDA_LAUNCHES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::dist {

/// Threads per block for `points` one-thread-per-point work: whole warps,
/// at most `blockSize`.
int64_t threadsPerBlock(int64_t points, int64_t blockSize);

/// Threads of a block that folds `length` points: whole warps, a power of
/// 2, at most `blockSize`.
int64_t reductionThreads(int64_t length, int64_t blockSize);

/// Fails with an error on `func` naming `pass` unless `blockSize` is a
/// power of 2 from 32 to 1024.
LogicalResult checkBlockSize(Operation *func, llvm::StringRef pass,
                             int64_t blockSize);

/// A terminated `gpu.launch` of `blocks` x `threads` threads along x, with
/// a workgroup (shared memory) buffer of each of `workgroup`'s types.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks,
                           int64_t threads, TypeRange workgroup = {});

/// A launch of ceil(points / threads) blocks of `threads`, and a builder
/// inside its `if (id < points)`, where `id` is the thread's global index.
struct PointLaunch {
  gpu::LaunchOp launch;
  OpBuilder body;
  Value id;
};
PointLaunch createPointLaunch(OpBuilder &b, Location loc, int64_t points,
                              int64_t threads);

/// Splits `linear` into coordinates over `sizes` (row-major: the last size
/// varies fastest).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> sizes);

/// Names the kernel `launch` will be outlined to (its `function`
/// attribute): `<function>_k<index>` then the first name in `source`'s
/// location (the ONNX node, `/h.0/attn/MatMul` -> `_h_0_attn_MatMul`),
/// letters, digits and underscores only, at most 120 characters, then
/// `suffix` (a second kernel of the same op). `kind` tells the passes'
/// numberings apart (`k`: dist-linalg-to-gpu's, `r`: dist-row-kernels').
void nameKernel(gpu::LaunchOp launch, Operation *source, unsigned index,
                llvm::StringRef suffix = "", char kind = 'k');

} // namespace mlir::dist

#endif // PASSES_CUDA_LAUNCHES_H
