//===- KernelSignature.h - Text that identifies what a kernel does -*- C++
//-*-===//
//
// The layers of a model repeat their kernels; dist-outline-kernels (CPU)
// and dist-dedupe-gpu-kernels (CUDA) keep one copy of each set of kernels
// that do the same thing, found by this text.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CONVERSION_KERNELSIGNATURE_H
#define PASSES_CONVERSION_KERNELSIGNATURE_H

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>

namespace mlir::dist {

/// The generic-form text of `kernel` under a fixed name (block arguments
/// and values numbered locally): equal for kernels that do the same thing.
std::string kernelSignature(FunctionOpInterface kernel);

} // namespace mlir::dist

#endif // PASSES_CONVERSION_KERNELSIGNATURE_H
