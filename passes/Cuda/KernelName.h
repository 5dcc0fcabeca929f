//===- KernelName.h - Kernel names that say which op they compute -*- C++ -*-===//
//
// A CUDA error names the kernel that failed (runtime/src/cuda); the kernel
// is named after the model node its op came from, so that the message
// points at the node.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CUDA_KERNELNAME_H
#define PASSES_CUDA_KERNELNAME_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::dist {

/// Names the kernel `launch` will be outlined to (its `function`
/// attribute): `<function>_k<index>` then the first name in `source`'s
/// location (the ONNX node, `/h.0/attn/MatMul` -> `_h_0_attn_MatMul`),
/// letters, digits and underscores only, at most 120 characters.
void nameKernel(gpu::LaunchOp launch, Operation *source, unsigned index);

} // namespace mlir::dist

#endif // PASSES_CUDA_KERNELNAME_H
