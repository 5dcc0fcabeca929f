//===- ConstantMatchers.h - Reading splat constants in patterns -*- C++ -*-===//

#ifndef PASSES_TRANSFORMS_CONSTANTMATCHERS_H
#define PASSES_TRANSFORMS_CONSTANTMATCHERS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <optional>

namespace mlir::dist {

/// The value of a float splat constant, or nullopt.
inline std::optional<double> getSplatFloat(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `value` is a float splat constant within relative 1e-4 of
/// `expected` (exporters round constants such as sqrt(2) to float).
inline bool isSplatNear(Value value, double expected) {
  std::optional<double> v = getSplatFloat(value);
  return v && std::abs(*v - expected) <= 1e-4 * std::abs(expected);
}

} // namespace mlir::dist

#endif // PASSES_TRANSFORMS_CONSTANTMATCHERS_H
