//===- ScalarBody.h - What an elementwise linalg body computes -*- C++ -*-===//
//
// Recognizes the function an elementwise linalg.generic computes by running
// its body on sample values, whatever ops spell it (x*x*x or powf, the
// constants' order): dist-matmul-to-runtime folds a bias addition and
// GELU's tanh approximation into cuBLASLt's epilogue only when the body
// computes exactly that.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CONVERSION_SCALARBODY_H
#define PASSES_CONVERSION_SCALARBODY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <functional>
#include <optional>

namespace mlir::dist {

/// The value `op`'s body yields as its `result`-th result for the given
/// values of its inputs (the outputs' block arguments must be unused), in
/// double precision; nullopt when the body has an op other than float
/// arithmetic, constants, and math's tanh, exp, erf, sqrt, powf and fma.
std::optional<double> evaluateScalarBody(linalg::GenericOp op,
                                         ArrayRef<double> inputs,
                                         unsigned result = 0);

/// Whether the body of `op` (with as many inputs as `expected` takes), in
/// its `result`-th result, agrees with `expected` to a relative 1e-6 on a spread of sample points
/// (absolute below 1: float32 constants in the body are that close)
/// (values from -8 to 8, zero included; with several inputs, every input
/// varies).
bool computes(linalg::GenericOp op,
              const std::function<double(ArrayRef<double>)> &expected,
              unsigned result = 0);

/// GELU's tanh approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
/// x^3))), what cuBLASLt's GELU epilogues compute.
double geluTanh(double x);

} // namespace mlir::dist

#endif // PASSES_CONVERSION_SCALARBODY_H
