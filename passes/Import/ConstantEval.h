//===- ConstantEval.h - Evaluating shape sub-graphs at import ---*- C++ -*-===//
//
// PyTorch exports shape computations (Shape, Gather, Unsqueeze, Concat, ...)
// as ops on small integer tensors. The importer evaluates them on these
// values so that every Reshape, Expand and Slice sees constant operands.
// Some models compute such numbers in floating point first (Funnel
// Transformer's pooled positions: a float Slice, Concat, Gather, Sub and Add,
// then a Cast to int64 that bounds a Range), so small float constants are
// evaluated too.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_CONSTANTEVAL_H
#define PASSES_IMPORT_CONSTANTEVAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::dist::onnx_import {

/// A small tensor known at import time: integers (and booleans) as int64_t,
/// floats as double (which holds every f16, bf16, f32 and f64 value
/// exactly).
template <typename T> struct KnownTensor {
  SmallVector<int64_t> shape;
  SmallVector<T> data;
  Type elementType;

  int64_t size() const { return static_cast<int64_t>(data.size()); }
};
using IntTensor = KnownTensor<int64_t>;
using FloatTensor = KnownTensor<double>;

/// Float constants larger than this are left to the step (they are data,
/// e.g. a mask table, not numbers that decide a shape).
constexpr int64_t kMaxEvaluatedFloats = 1 << 16;
/// The largest result an integer evaluation builds (shape arithmetic and
/// index tables are far smaller).
constexpr int64_t kMaxEvaluatedInts = 1 << 22;

/// The integer tensor `attr` holds, or nullopt for floats and null.
std::optional<IntTensor> toIntTensor(DenseElementsAttr attr);
/// The float tensor `attr` holds, or nullopt for integers, null, and more
/// than kMaxEvaluatedFloats elements.
std::optional<FloatTensor> toFloatTensor(DenseElementsAttr attr);
/// toIntTensor or toFloatTensor, by `T`.
template <typename T>
std::optional<KnownTensor<T>> toKnownTensor(DenseElementsAttr attr) {
  if constexpr (std::is_same_v<T, int64_t>)
    return toIntTensor(attr);
  else
    return toFloatTensor(attr);
}
/// `t` as an attribute of its element type (a float result rounded to it
/// once, to nearest even).
DenseElementsAttr toAttr(const IntTensor &t);
DenseElementsAttr toAttr(const FloatTensor &t);

/// Calls `fn` with the IntTensor or FloatTensor `attr` holds (for ops that
/// only move elements: slices, concatenations, transposes); false when it
/// holds neither.
template <typename Fn> bool withKnownTensor(DenseElementsAttr attr, Fn &&fn) {
  if (std::optional<IntTensor> t = toIntTensor(attr))
    return fn(*t), true;
  if (std::optional<FloatTensor> t = toFloatTensor(attr))
    return fn(*t), true;
  return false;
}

/// `fn` applied elementwise after numpy broadcasting, or nullopt when the
/// shapes do not broadcast or `fn` fails (e.g. division by zero).
template <typename T>
std::optional<KnownTensor<T>>
evalBroadcast(ArrayRef<const KnownTensor<T> *> operands, Type resultType,
              function_ref<std::optional<T>(ArrayRef<T>)> fn);
/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape);
/// The tensor of `shape` whose element at each index is `t`'s element at
/// the index `source` gives for it (a slice, a transpose).
template <typename T>
KnownTensor<T> remap(const KnownTensor<T> &t, ArrayRef<int64_t> shape,
                     function_ref<void(ArrayRef<int64_t> index,
                                       MutableArrayRef<int64_t> from)>
                         source);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_CONSTANTEVAL_H
