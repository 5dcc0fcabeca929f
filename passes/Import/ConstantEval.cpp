//===- ConstantEval.cpp - Evaluating shape sub-graphs at import -----------===//

#include "passes/Import/ConstantEval.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::dist::onnx_import;

template <typename T>
static KnownTensor<T> withShapeOf(DenseElementsAttr attr) {
  KnownTensor<T> t;
  t.shape.assign(attr.getType().getShape().begin(),
                 attr.getType().getShape().end());
  t.elementType = attr.getElementType();
  return t;
}

std::optional<IntTensor>
mlir::dist::onnx_import::toIntTensor(DenseElementsAttr attr) {
  // Unsigned tensors are data, not shapes: they are not evaluated.
  if (!attr || !attr.getElementType().isSignlessInteger())
    return std::nullopt;
  IntTensor t = withShapeOf<int64_t>(attr);
  bool isBool = t.elementType.isInteger(1);
  for (const APInt &v : attr.getValues<APInt>())
    t.data.push_back(isBool ? static_cast<int64_t>(v.getZExtValue())
                            : v.getSExtValue());
  return t;
}

std::optional<FloatTensor>
mlir::dist::onnx_import::toFloatTensor(DenseElementsAttr attr) {
  if (!attr || !isa<FloatType>(attr.getElementType()) ||
      attr.getNumElements() > kMaxEvaluatedFloats)
    return std::nullopt;
  FloatTensor t = withShapeOf<double>(attr);
  for (APFloat v : attr.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    t.data.push_back(v.convertToDouble());
  }
  return t;
}

DenseElementsAttr mlir::dist::onnx_import::toAttr(const IntTensor &t) {
  auto type = RankedTensorType::get(t.shape, t.elementType);
  unsigned width = t.elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int64_t v : t.data)
    values.push_back(width == 1 ? APInt(1, v != 0)
                                : APInt(width, v, /*isSigned=*/true));
  return DenseElementsAttr::get(type, values);
}

DenseElementsAttr mlir::dist::onnx_import::toAttr(const FloatTensor &t) {
  auto type = RankedTensorType::get(t.shape, t.elementType);
  const llvm::fltSemantics &semantics =
      cast<FloatType>(t.elementType).getFloatSemantics();
  SmallVector<APFloat> values;
  for (double v : t.data) {
    APFloat f(v);
    bool lost;
    f.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    values.push_back(f);
  }
  return DenseElementsAttr::get(type, values);
}

SmallVector<int64_t>
mlir::dist::onnx_import::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

template <typename T>
KnownTensor<T> mlir::dist::onnx_import::remap(
    const KnownTensor<T> &t, ArrayRef<int64_t> shape,
    function_ref<void(ArrayRef<int64_t>, MutableArrayRef<int64_t>)> source) {
  KnownTensor<T> r{SmallVector<int64_t>(shape), {}, t.elementType};
  SmallVector<int64_t> from(t.shape.size()), index(shape.size(), 0),
      strides = stridesOf(t.shape);
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  r.data.reserve(count);
  for (int64_t k = 0; k < count; ++k) {
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1, rest = k; d >= 0;
         --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    source(index, from);
    int64_t offset = 0;
    for (size_t d = 0; d < from.size(); ++d)
      offset += from[d] * strides[d];
    r.data.push_back(t.data[offset]);
  }
  return r;
}

template <typename T>
std::optional<KnownTensor<T>> mlir::dist::onnx_import::evalBroadcast(
    ArrayRef<const KnownTensor<T> *> operands, Type resultType,
    function_ref<std::optional<T>(ArrayRef<T>)> fn) {
  SmallVector<int64_t> shape;
  for (const KnownTensor<T> *t : operands) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, t->shape, next))
      return std::nullopt;
    shape = std::move(next);
  }
  KnownTensor<T> result{shape, {}, resultType};
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  // Broadcasting small operands can make a large result ([N, 1] + [1, N]):
  // that is data for the step, not a number to evaluate here.
  if (count > (std::is_same_v<T, double> ? kMaxEvaluatedFloats
                                         : kMaxEvaluatedInts))
    return std::nullopt;
  SmallVector<int64_t> resultStrides = stridesOf(shape);
  SmallVector<T> args(operands.size());
  for (int64_t flat = 0; flat < count; ++flat) {
    for (auto [k, t] : llvm::enumerate(operands)) {
      // Map the result index to operand `t`'s (right-aligned, size-1 dims
      // broadcast) flat index.
      SmallVector<int64_t> strides = stridesOf(t->shape);
      int64_t offset = shape.size() - t->shape.size(), index = 0;
      for (size_t d = 0; d < t->shape.size(); ++d) {
        int64_t coord = (flat / resultStrides[d + offset]) % shape[d + offset];
        if (t->shape[d] != 1)
          index += coord * strides[d];
      }
      args[k] = t->data[index];
    }
    std::optional<T> v = fn(args);
    if (!v)
      return std::nullopt;
    result.data.push_back(*v);
  }
  return result;
}

namespace mlir::dist::onnx_import {
template IntTensor
remap(const IntTensor &, ArrayRef<int64_t>,
      function_ref<void(ArrayRef<int64_t>, MutableArrayRef<int64_t>)>);
template FloatTensor
remap(const FloatTensor &, ArrayRef<int64_t>,
      function_ref<void(ArrayRef<int64_t>, MutableArrayRef<int64_t>)>);
template std::optional<IntTensor>
evalBroadcast(ArrayRef<const IntTensor *>, Type,
              function_ref<std::optional<int64_t>(ArrayRef<int64_t>)>);
template std::optional<FloatTensor>
evalBroadcast(ArrayRef<const FloatTensor *>, Type,
              function_ref<std::optional<double>(ArrayRef<double>)>);
} // namespace mlir::dist::onnx_import
