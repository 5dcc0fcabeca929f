//===- InitAll.h - The one registration point of dist-opt -------*- C++ -*-===//
//
// `dist-opt`, `dist-compile`, tests and examples all register dialects and
// passes through these two functions, so a pass registered here is available
// everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_INITALL_H
#define PASSES_INITALL_H

namespace mlir {
class DialectRegistry;

namespace dist {

/// Registers the `dist` dialect, every upstream dialect with its external
/// models (bufferization, deallocation, conversion to LLVM), and the LLVM IR
/// translations of the builtin, llvm, gpu and nvvm dialects.
void registerAllDialects(DialectRegistry &registry);

/// Registers every pass and named pipeline of dist-opt, and the upstream
/// passes (canonicalize, cse, sharding-propagation, ...) users compose them
/// with.
void registerAllPasses();

} // namespace dist
} // namespace mlir

#endif // PASSES_INITALL_H
