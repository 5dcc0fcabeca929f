//===- Passes.h - Graph-level transformations of the dist dialect -*- C++
//-*-===//

#ifndef PASSES_TRANSFORMS_PASSES_H
#define PASSES_TRANSFORMS_PASSES_H

#include "dialects/Dist/IR/DistOps.h"
#include "passes/ExactDouble.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace dist {

#define GEN_PASS_DECL
#include "passes/Transforms/Passes.h.inc"

/// Patterns folding PyTorch's decomposed layer norm into dist.layer_norm.
void populateRaiseLayerNormPatterns(RewritePatternSet &patterns);
/// Patterns folding PyTorch's decomposed GELU (erf and tanh forms) into
/// dist.gelu.
void populateRaiseGeluPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "passes/Transforms/Passes.h.inc"

} // namespace dist
} // namespace mlir

#endif // PASSES_TRANSFORMS_PASSES_H
