//===- ConvertShape.cpp - ONNX shape and data movement ops to dist --------===//
//
// Shape sub-graphs (Shape, Gather, Unsqueeze, Concat, ...) are evaluated when
// their inputs are known, so Reshape/Expand/Slice get static operands.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/ConstantEval.h"
#include "passes/Import/NodeImporter.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

static int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

static DenseElementsAttr i64Vector(MLIRContext *context, ArrayRef<int64_t> v) {
  auto type = RankedTensorType::get({static_cast<int64_t>(v.size())},
                                    IntegerType::get(context, 64));
  return DenseElementsAttr::get(type, v);
}

/// Binds output 0 to `input` reshaped to `shape`, folding constants.
static LogicalResult bindReshaped(NodeImporter &n, unsigned input,
                                  ArrayRef<int64_t> shape) {
  RankedTensorType type = n.inputType(input).clone(shape);
  if (DenseElementsAttr c = n.constantInput(input)) {
    n.setConstantOutput(0, c.reshape(type));
    return success();
  }
  Value x = n.input(input);
  if (!x)
    return failure();
  n.setOutput(
      0, x.getType() == type ? x : n.create<ReshapeOp>(type, x).getResult());
  return success();
}

static LogicalResult convertConstant(NodeImporter &n) {
  MLIRContext *ctx = n.getContext();
  if (const onnx::AttributeProto *a = n.attribute("value")) {
    FailureOr<DenseElementsAttr> c = n.tensorAttr(a->t());
    if (failed(c))
      return failure();
    n.setConstantOutput(0, *c);
    return success();
  }
  Builder b(ctx);
  if (const onnx::AttributeProto *a = n.attribute("value_float")) {
    n.setConstantOutput(
        0, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                  a->f()));
    return success();
  }
  if (const onnx::AttributeProto *a = n.attribute("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    n.setConstantOutput(
        0, DenseElementsAttr::get(
               RankedTensorType::get({int64_t(v.size())}, b.getF32Type()),
               ArrayRef<float>(v)));
    return success();
  }
  if (const onnx::AttributeProto *a = n.attribute("value_int")) {
    n.setConstantOutput(
        0, DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                  static_cast<int64_t>(a->i())));
    return success();
  }
  if (std::optional<SmallVector<int64_t>> v = n.intsAttr("value_ints")) {
    n.setConstantOutput(0, i64Vector(ctx, *v));
    return success();
  }
  return n.unsupported("only tensor, float(s) and int(s) values are supported");
}

static LogicalResult convertShape(NodeImporter &n) {
  ArrayRef<int64_t> shape = n.inputType(0).getShape();
  int64_t rank = shape.size();
  auto clampAxis = [&](int64_t a) {
    a = a < 0 ? a + rank : a;
    return std::clamp<int64_t>(a, 0, rank);
  };
  int64_t start = clampAxis(n.intAttr("start", 0));
  int64_t end = clampAxis(n.intAttr("end", rank));
  n.setConstantOutput(
      0, i64Vector(n.getContext(),
                   shape.slice(start, std::max<int64_t>(end - start, 0))));
  return success();
}

static LogicalResult convertSize(NodeImporter &n) {
  n.setConstantOutput(0, DenseElementsAttr::get(
                             RankedTensorType::get({}, n.builder.getI64Type()),
                             product(n.inputType(0).getShape())));
  return success();
}

static LogicalResult convertReshape(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> target = n.constantInts(1, "shape");
  if (failed(target))
    return failure();
  ArrayRef<int64_t> in = n.inputType(0).getShape();
  bool allowZero = n.intAttr("allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return n.emitError()
                   << "shape entry " << i
                   << " is 0 (copy) but the input has rank " << in.size(),
               failure();
      d = in[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return n.emitError() << "shape has more than one -1", failure();
      inferred = i;
    } else if (d < 0) {
      return n.emitError() << "shape entry " << d << " is invalid", failure();
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  int64_t total = product(in);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return n.emitError() << "cannot reshape " << total
                           << " elements to a shape with a -1 and known sizes "
                              "multiplying to "
                           << known,
             failure();
    shape[inferred] = total / known;
  }
  if (product(shape) != total)
    return n.emitError() << "cannot reshape " << total << " elements to "
                         << product(shape),
           failure();
  return bindReshaped(n, 0, shape);
}

static LogicalResult convertFlatten(NodeImporter &n) {
  ArrayRef<int64_t> in = n.inputType(0).getShape();
  int64_t rank = in.size();
  int64_t axis = n.intAttr("axis", 1);
  if (axis < -rank || axis > rank)
    return n.emitError() << "axis " << axis << " is out of range for rank "
                         << rank,
           failure();
  if (axis < 0)
    axis += rank;
  return bindReshaped(
      n, 0, {product(in.take_front(axis)), product(in.drop_front(axis))});
}

/// Axes from an attribute (old opsets) or input 1 (new opsets).
static FailureOr<SmallVector<int64_t>>
axesOf(NodeImporter &n, int64_t inputOpset, bool required) {
  if (n.opset >= inputOpset) {
    if (!n.hasInput(1)) {
      if (required)
        return n.emitError() << "the axes input is required", failure();
      return SmallVector<int64_t>();
    }
    return n.constantInts(1, "axes");
  }
  return n.intsAttr("axes").value_or(SmallVector<int64_t>());
}

static LogicalResult convertUnsqueeze(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> axes = axesOf(n, 13, /*required=*/true);
  if (failed(axes))
    return failure();
  ArrayRef<int64_t> in = n.inputType(0).getShape();
  int64_t rank = in.size() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : *axes) {
    FailureOr<int64_t> a = n.normalizeAxis(axis, rank, "axis");
    if (failed(a))
      return failure();
    if (inserted[*a])
      return n.emitError() << "axis " << axis << " is given twice", failure();
    inserted[*a] = true;
  }
  SmallVector<int64_t> shape;
  const int64_t *next = in.begin();
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : *next++);
  return bindReshaped(n, 0, shape);
}

static LogicalResult convertSqueeze(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> axes = axesOf(n, 13, /*required=*/false);
  if (failed(axes))
    return failure();
  ArrayRef<int64_t> in = n.inputType(0).getShape();
  SmallVector<bool> removed(in.size(), false);
  for (int64_t axis : *axes) {
    FailureOr<int64_t> a = n.normalizeAxis(axis, in.size(), "axis");
    if (failed(a))
      return failure();
    if (in[*a] != 1)
      return n.emitError() << "cannot squeeze axis " << axis << " of size "
                           << in[*a],
             failure();
    removed[*a] = true;
  }
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(in))
    if (!(axes->empty() ? size == 1 : removed[d]))
      shape.push_back(size);
  return bindReshaped(n, 0, shape);
}

static LogicalResult convertTranspose(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> perm = n.intsAttr("perm").value_or(
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank))));
  // Integers known at import time (PyTorch's F.pad export transposes its
  // pads as a 2-D table) are transposed now.
  if (static_cast<int64_t>(perm.size()) == rank &&
      llvm::all_of(perm, [&](int64_t p) { return p >= 0 && p < rank; }) &&
      withKnownTensor(n.constantInput(0), [&](const auto &t) {
        SmallVector<int64_t> shape;
        for (int64_t p : perm)
          shape.push_back(t.shape[p]);
        n.setConstantOutput(
            0, toAttr(remap(t, shape, [&](ArrayRef<int64_t> index,
                                          MutableArrayRef<int64_t> from) {
              for (int64_t d = 0; d < rank; ++d)
                from[perm[d]] = index[d];
            })));
      }))
    return success();
  Value x = n.input(0);
  if (!x)
    return failure();
  Value result = n.buildValue<TransposeOp>(x, ArrayRef<int64_t>(perm));
  n.setOutput(0, result);
  return success(result != nullptr);
}

/// Concatenates the node's inputs along `axis` when all are known tensors of
/// one kind, each outer index taking the inputs' blocks in turn.
template <typename T>
static bool concatKnown(NodeImporter &n, int64_t axis, int64_t rank) {
  SmallVector<KnownTensor<T>> parts;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    std::optional<KnownTensor<T>> t = toKnownTensor<T>(n.constantInput(i));
    if (!t || static_cast<int64_t>(t->shape.size()) != rank ||
        (!parts.empty() && t->elementType != parts.front().elementType))
      return false;
    parts.push_back(std::move(*t));
  }
  // Only pieces that agree off the axis (a malformed model's are left to
  // the op's verifier).
  for (const KnownTensor<T> &t : parts)
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t.shape[d] != parts.front().shape[d])
        return false;
  if (parts.empty())
    return false;
  KnownTensor<T> joined{parts.front().shape, {}, parts.front().elementType};
  joined.shape[axis] = 0;
  for (const KnownTensor<T> &t : parts)
    joined.shape[axis] += t.shape[axis];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= joined.shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (const KnownTensor<T> &t : parts) {
      int64_t block = outer ? t.size() / outer : 0;
      llvm::append_range(joined.data, ArrayRef(t.data).slice(o * block, block));
    }
  n.setConstantOutput(0, toAttr(joined));
  return true;
}

static LogicalResult convertConcat(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  FailureOr<int64_t> axis = n.axisAttr(0, rank);
  if (failed(axis))
    return failure();
  // Known inputs (shape vectors, the index tensors of in-place
  // assignments, Resize's scales built as a Concat of Constants):
  // concatenated at import time.
  if (concatKnown<int64_t>(n, *axis, rank) || concatKnown<double>(n, *axis, rank))
    return success();
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    // Empty pieces (a shape sub-graph's leftovers) add nothing.
    if (n.inputType(i).getNumElements() == 0 && n.numInputs() > 1)
      continue;
    Value v = n.input(i);
    if (!v)
      return failure();
    inputs.push_back(v);
  }
  Value result = n.buildValue<ConcatOp>(inputs, *axis);
  n.setOutput(0, result);
  return success(result != nullptr);
}

static LogicalResult convertSplit(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  FailureOr<int64_t> axis = n.axisAttr(0, type.getRank());
  if (failed(axis))
    return failure();
  int64_t outputs = n.node.output_size(), size = type.getDimSize(*axis);
  SmallVector<int64_t> sizes;
  if (n.opset >= 13 && n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (std::optional<SmallVector<int64_t>> attr = n.intsAttr("split")) {
    sizes = *attr;
  } else {
    if (outputs == 0 || size % outputs != 0)
      return n.emitError() << "cannot split size " << size << " into "
                           << outputs << " equal parts",
             failure();
    sizes.assign(outputs, size / outputs);
  }
  if (static_cast<int64_t>(sizes.size()) != outputs)
    return n.emitError() << "split gives " << sizes.size() << " sizes for "
                         << outputs << " outputs",
           failure();
  SmallVector<Type> types;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.emitError() << "split size " << s << " is negative", failure();
    SmallVector<int64_t> shape(type.getShape());
    shape[*axis] = s;
    types.push_back(type.clone(shape));
  }
  // Known tensors (GPT-J splits a constant shape vector): split at import
  // time, each outer index giving each piece its block.
  if (llvm::sum_of(sizes) == size &&
      withKnownTensor(n.constantInput(0), [&](const auto &t) {
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < *axis; ++d)
          outer *= t.shape[d];
        for (int64_t d = *axis + 1; d < type.getRank(); ++d)
          inner *= t.shape[d];
        int64_t offset = 0;
        for (auto [i, s] : llvm::enumerate(sizes)) {
          std::decay_t<decltype(t)> piece{
              llvm::to_vector(cast<RankedTensorType>(types[i]).getShape()),
              {},
              t.elementType};
          for (int64_t o = 0; o < outer; ++o) {
            auto from = t.data.begin() + (o * size + offset) * inner;
            piece.data.append(from, from + s * inner);
          }
          offset += s;
          n.setConstantOutput(i, toAttr(piece));
        }
      }))
    return success();
  Value x = n.input(0);
  if (!x)
    return failure();
  auto op = n.create<SplitOp>(types, x, *axis);
  for (int64_t i = 0; i < outputs; ++i)
    n.setOutput(i, op.getResult(i));
  return success();
}

static LogicalResult convertSlice(NodeImporter &n) {
  if (n.opset < 10)
    return n.unsupported("Slice before opset 10 is not supported");
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  FailureOr<SmallVector<int64_t>> starts = n.constantInts(1, "starts");
  FailureOr<SmallVector<int64_t>> ends = n.constantInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  if (n.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  SmallVector<int64_t> steps(starts->size(), 1);
  if (n.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(4, "steps");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return n.emitError() << "starts, ends, axes and steps differ in length",
           failure();
  SmallVector<int64_t> begin(rank, 0), stride(rank, 1), shape(type.getShape());
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = n.normalizeAxis(axes[i], rank, "axis");
    if (failed(axis))
      return failure();
    int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return n.emitError() << "step of axis " << axes[i] << " is 0", failure();
    int64_t s = (*starts)[i], e = (*ends)[i];
    s = s < 0 ? s + dim : s;
    e = e < 0 ? e + dim : e;
    if (dim == 0) {
      s = e = 0; // nothing to take, in either direction
    } else if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t count =
        step > 0 ? (e - s + step - 1) / step : (s - e - step - 1) / -step;
    begin[*axis] = s;
    stride[*axis] = step;
    shape[*axis] = std::max<int64_t>(count, 0);
  }
  RankedTensorType resultType = type.clone(shape);
  // Slices of integers known at import time (shape vectors, F.pad's pads
  // table) are evaluated now.
  if (withKnownTensor(n.constantInput(0), [&](const auto &t) {
        n.setConstantOutput(
            0, toAttr(remap(t, shape, [&](ArrayRef<int64_t> index,
                                          MutableArrayRef<int64_t> from) {
              for (int64_t d = 0; d < rank; ++d)
                from[d] = begin[d] + index[d] * stride[d];
            })));
      }))
    return success();
  Value x = n.input(0);
  if (!x)
    return failure();
  n.setOutput(0,
              x.getType() == resultType &&
                      llvm::all_of(begin, [](int64_t b) { return b == 0; }) &&
                      llvm::all_of(stride, [](int64_t s) { return s == 1; })
                  ? x
                  : n.create<SliceOp>(resultType, x,
                                      n.builder.getDenseI64ArrayAttr(begin),
                                      n.builder.getDenseI64ArrayAttr(stride))
                        .getResult());
  return success();
}

static LogicalResult convertGather(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  FailureOr<int64_t> axis = n.axisAttr(0, rank);
  if (failed(axis))
    return failure();
  // Picking entries of a known vector (a shape; Funnel's float positions).
  std::optional<IntTensor> indices = toIntTensor(n.constantInput(1));
  int64_t bad = 0;
  bool outOfRange = false;
  if (indices && rank == 1 &&
      withKnownTensor(n.constantInput(0), [&](const auto &data) {
        std::decay_t<decltype(data)> r{indices->shape, {}, data.elementType};
        for (int64_t i : indices->data) {
          int64_t k = i < 0 ? i + data.size() : i;
          if (k < 0 || k >= data.size()) {
            bad = i;
            outOfRange = true;
            return;
          }
          r.data.push_back(data.data[k]);
        }
        n.setConstantOutput(0, toAttr(r));
      }))
    return outOfRange ? (n.emitError() << "index " << bad
                                       << " is out of range for size "
                                       << n.inputType(0).getDimSize(0),
                         failure())
                      : success();
  Value x = n.input(0), idx = n.input(1);
  if (!x || !idx)
    return failure();
  Value result = n.buildValue<GatherOp>(x, idx, *axis, IntegerAttr());
  n.setOutput(0, result);
  return success(result != nullptr);
}

static LogicalResult convertExpand(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.constantShape(1, "shape");
  if (failed(shape))
    return failure();
  RankedTensorType type = n.inputType(0);
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(type.getShape(), *shape, result))
    return n.emitError() << "cannot expand a tensor of type " << type
                         << " to the requested shape",
           failure();
  RankedTensorType resultType = type.clone(result);
  // A constant expands at import time (index computations of in-place
  // assignments feed ScatterND, which needs its indices known).
  if (DenseElementsAttr c = n.constantInput(0)) {
    if (c.isSplat()) {
      n.setConstantOutput(
          0, DenseElementsAttr::get(resultType, c.getSplatValue<Attribute>()));
      return success();
    }
    constexpr int64_t kMaxFoldedElements = 1 << 16;
    bool expanded = false;
    if (resultType.getNumElements() <= kMaxFoldedElements)
      withKnownTensor(c, [&](const auto &t) {
        using Known = std::decay_t<decltype(t)>;
        using T = std::decay_t<decltype(t.data.front())>;
        Known target{result, SmallVector<T>(resultType.getNumElements(), T()),
                     t.elementType};
        if (std::optional<Known> r = evalBroadcast<T>(
                {&t, &target}, t.elementType,
                [](ArrayRef<T> v) -> std::optional<T> { return v[0]; })) {
          n.setConstantOutput(0, toAttr(*r));
          expanded = true;
        }
      });
    if (expanded)
      return success();
  }
  Value x = n.input(0);
  if (!x)
    return failure();
  n.setOutput(0, resultType == type
                     ? x
                     : n.create<BroadcastOp>(resultType, x).getResult());
  return success();
}

static LogicalResult convertConstantOfShape(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.constantShape(0, "shape");
  if (failed(shape))
    return failure();
  DenseElementsAttr value = DenseElementsAttr::get(
      RankedTensorType::get({1}, n.builder.getF32Type()), 0.0f);
  if (const onnx::AttributeProto *a = n.attribute("value")) {
    FailureOr<DenseElementsAttr> v = n.tensorAttr(a->t());
    if (failed(v))
      return failure();
    value = *v;
  }
  if (value.getNumElements() != 1)
    return n.emitError() << "value must hold one element", failure();
  auto type = RankedTensorType::get(*shape, value.getElementType());
  n.setConstantOutput(
      0, DenseElementsAttr::get(type, *value.value_begin<Attribute>()));
  return success();
}

/// Range of floating-point bounds known at import time, as a constant.
static LogicalResult convertFloatRange(NodeImporter &n) {
  double bounds[3];
  Type elementType;
  for (unsigned i = 0; i < 3; ++i) {
    DenseElementsAttr c = n.constantInput(i);
    if (!c || !isa<FloatType>(c.getElementType()) || c.getNumElements() != 1)
      return n.unsupported("only ranges whose start, limit and delta are "
                           "known at import time are supported");
    bounds[i] = (*c.getValues<APFloat>().begin()).convertToDouble();
    elementType = c.getElementType();
  }
  auto [start, limit, delta] = bounds;
  if (delta == 0.0 || !std::isfinite(start) || !std::isfinite(limit) ||
      !std::isfinite(delta))
    return n.emitError() << "delta must be nonzero and bounds finite",
           failure();
  double count = std::max(0.0, std::ceil((limit - start) / delta));
  if (count > double(int64_t(1) << 24))
    return n.emitError() << "range of " << count << " elements is too large",
           failure();
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i)
    values.push_back(n.builder.getFloatAttr(elementType, start + i * delta));
  n.setConstantOutput(
      0, DenseElementsAttr::get(
             RankedTensorType::get({static_cast<int64_t>(count)}, elementType),
             values));
  return success();
}

static LogicalResult convertRange(NodeImporter &n) {
  if (DenseElementsAttr c = n.constantInput(0))
    if (isa<FloatType>(c.getElementType()))
      return convertFloatRange(n);
  std::optional<IntTensor> start = toIntTensor(n.constantInput(0));
  std::optional<IntTensor> limit = toIntTensor(n.constantInput(1));
  std::optional<IntTensor> delta = toIntTensor(n.constantInput(2));
  for (auto [t, what] : {std::pair{&start, "start"}, std::pair{&limit, "limit"},
                         std::pair{&delta, "delta"}})
    if (!*t || (*t)->size() != 1)
      return n.unsupported(
          Twine("only integer ranges known at import time are supported, and "
                "its '") +
          what +
          "' is not an integer scalar computed from constants and input "
          "shapes (dist needs static shapes)");
  int64_t s = start->data[0], l = limit->data[0], d = delta->data[0];
  if (d == 0)
    return n.emitError() << "delta is 0", failure();
  int64_t count = std::max<int64_t>(0, (l - s + d + (d > 0 ? -1 : 1)) / d);
  if (count > (int64_t(1) << 24))
    return n.emitError() << "range of " << count << " elements is too large",
           failure();
  IntTensor r{{count}, {}, start->elementType};
  for (int64_t i = 0; i < count; ++i)
    r.data.push_back(s + i * d);
  n.setConstantOutput(0, toAttr(r));
  return success();
}

static LogicalResult convertTrilu(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t k = 0;
  if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "k");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return n.emitError() << "k must be a scalar", failure();
    k = given->front();
  }
  if (cast<RankedTensorType>(x.getType()).getRank() < 2)
    return n.emitError() << "input must have rank >= 2", failure();
  n.setOutput(0, n.create<TriluOp>(x, k, n.intAttr("upper", 1) != 0));
  return success();
}

void mlir::dist::onnx_import::addShapeConverters(ConverterTable &table) {
  table["Constant"] = convertConstant;
  table["Shape"] = convertShape;
  table["Size"] = convertSize;
  table["Reshape"] = convertReshape;
  table["Flatten"] = convertFlatten;
  table["Unsqueeze"] = convertUnsqueeze;
  table["Squeeze"] = convertSqueeze;
  table["Transpose"] = convertTranspose;
  table["Concat"] = convertConcat;
  table["Split"] = convertSplit;
  table["Slice"] = convertSlice;
  table["Gather"] = convertGather;
  table["Expand"] = convertExpand;
  table["ConstantOfShape"] = convertConstantOfShape;
  table["Range"] = convertRange;
  table["Trilu"] = convertTrilu;
}
