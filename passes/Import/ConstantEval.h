//===- ConstantEval.h - Evaluating shape sub-graphs at import ---*- C++ -*-===//
//
// PyTorch exports shape computations (Shape, Gather, Unsqueeze, Concat, ...)
// as ops on small integer tensors. The importer evaluates them on these
// values so that every Reshape, Expand and Slice sees constant operands.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_CONSTANTEVAL_H
#define PASSES_IMPORT_CONSTANTEVAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::dist::onnx_import {

/// A small integer (or boolean) tensor known at import time.
struct IntTensor {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> data;
  Type elementType;

  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

/// The integer tensor `attr` holds, or nullopt for floats and null.
std::optional<IntTensor> toIntTensor(DenseElementsAttr attr);
/// `t` as an attribute of its element type.
DenseElementsAttr toAttr(const IntTensor &t);
/// `fn` applied elementwise after numpy broadcasting, or nullopt when the
/// shapes do not broadcast or `fn` fails (e.g. division by zero).
std::optional<IntTensor>
evalBroadcast(ArrayRef<const IntTensor *> operands, Type resultType,
              function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fn);
/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape);
/// The tensor of `shape` whose element at each index is `t`'s element at
/// the index `source` gives for it (a slice, a transpose).
IntTensor remapInts(const IntTensor &t, ArrayRef<int64_t> shape,
                    function_ref<void(ArrayRef<int64_t> index,
                                      MutableArrayRef<int64_t> from)>
                        source);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_CONSTANTEVAL_H
