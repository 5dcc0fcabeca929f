//===- Passes.h - Splitting a training step over a device mesh --*- C++ -*-===//

#ifndef PASSES_SHARDING_PASSES_H
#define PASSES_SHARDING_PASSES_H

#include "dialects/Dist/IR/DistOps.h"
#include "passes/ExactDouble.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dist {

#define GEN_PASS_DECL
#include "passes/Sharding/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Sharding/Passes.h.inc"

} // namespace mlir::dist

#endif // PASSES_SHARDING_PASSES_H
