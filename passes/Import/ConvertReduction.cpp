//===- ConvertReduction.cpp - ONNX reductions, softmax, norms, losses -----===//

#include "passes/Import/Conv3D.h"
#include "passes/Import/Decompose.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// The reduced axes of a Reduce* node on a rank-`rank` input: sorted and
/// distinct, all axes when none are given, or nullopt when the node reduces
/// nothing (`noop_with_empty_axes`, or a 0-d input).
static FailureOr<std::optional<SmallVector<int64_t>>>
reducedAxes(NodeImporter &n, int64_t rank) {
  // ReduceSum takes its axes as an input from opset 13; the others from 18.
  std::optional<SmallVector<int64_t>> axes = n.intsAttr("axes");
  if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  SmallVector<int64_t> normalized;
  if (!axes || axes->empty()) {
    if (n.intAttr("noop_with_empty_axes", 0))
      return std::optional<SmallVector<int64_t>>();
    normalized = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  } else {
    for (int64_t axis : *axes) {
      FailureOr<int64_t> a = n.normalizeAxis(axis, rank, "axis");
      if (failed(a))
        return failure();
      normalized.push_back(*a);
    }
    llvm::sort(normalized);
    normalized.erase(std::unique(normalized.begin(), normalized.end()),
                     normalized.end());
  }
  if (normalized.empty())
    return std::optional<SmallVector<int64_t>>();
  return std::optional<SmallVector<int64_t>>(std::move(normalized));
}

/// A reduction op of `x` over `axes`.
template <typename OpTy>
static Value reduce(NodeImporter &n, Value x, ArrayRef<int64_t> axes,
                    bool keepDims) {
  return x ? n.buildValue<OpTy>(x, axes, keepDims) : Value();
}

using ReduceFn = Value (*)(NodeImporter &, Decomposer &, Value,
                           ArrayRef<int64_t>, bool);

/// Converter for a Reduce* node whose reduction `fn` builds; when nothing is
/// reduced, `onNothing` builds the elementwise part alone.
template <ReduceFn fn> static LogicalResult convertReduceWith(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  FailureOr<std::optional<SmallVector<int64_t>>> axes = reducedAxes(n, rank);
  if (failed(axes))
    return failure();
  Decomposer d(n, x);
  bool keepDims = n.intAttr("keepdims", 1) != 0;
  return d.bind(fn(n, d, x,
                   *axes ? ArrayRef<int64_t>(**axes) : ArrayRef<int64_t>(),
                   keepDims));
}

/// A plain reduction; reducing nothing is the identity.
template <typename OpTy>
static Value plainReduce(NodeImporter &n, Decomposer &, Value x,
                         ArrayRef<int64_t> axes, bool keepDims) {
  return axes.empty() ? x : reduce<OpTy>(n, x, axes, keepDims);
}

static Value reduceL1(NodeImporter &n, Decomposer &d, Value x,
                      ArrayRef<int64_t> axes, bool keepDims) {
  return plainReduce<ReduceSumOp>(n, d, d.abs(x), axes, keepDims);
}

static Value reduceSumSquare(NodeImporter &n, Decomposer &d, Value x,
                             ArrayRef<int64_t> axes, bool keepDims) {
  return plainReduce<ReduceSumOp>(n, d, d.mul(x, x), axes, keepDims);
}

static Value reduceL2(NodeImporter &n, Decomposer &d, Value x,
                      ArrayRef<int64_t> axes, bool keepDims) {
  Value sum = reduceSumSquare(n, d, x, axes, keepDims);
  // ONNX computes integer L2 norms in floating point and casts back.
  Type type = getElementTypeOrSelf(x.getType());
  if (isa<FloatType>(type))
    return d.unary<SqrtOp>(sum);
  Type f64 = n.builder.getF64Type();
  return d.cast(d.unary<SqrtOp>(d.cast(sum, f64)), type);
}

static Value reduceLogSum(NodeImporter &n, Decomposer &d, Value x,
                          ArrayRef<int64_t> axes, bool keepDims) {
  return d.log(plainReduce<ReduceSumOp>(n, d, x, axes, keepDims));
}

/// log(sum(exp(x))), as m + log(sum(exp(x - m))) with m the maximum.
static Value reduceLogSumExp(NodeImporter &n, Decomposer &d, Value x,
                             ArrayRef<int64_t> axes, bool keepDims) {
  if (axes.empty())
    return d.log(d.exp(x));
  Value m = reduce<ReduceMaxOp>(n, x, axes, /*keepDims=*/true);
  Value sum =
      plainReduce<ReduceSumOp>(n, d, d.exp(d.sub(x, m)), axes, keepDims);
  if (!sum)
    return {};
  Value shift = n.reshape(m, cast<RankedTensorType>(sum.getType()).getShape());
  return d.add(d.log(sum), shift);
}

template <typename OpTy> static LogicalResult convertSoftmax(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  FailureOr<int64_t> a = n.axisAttr(n.opset >= 13 ? -1 : 1, rank);
  if (failed(a))
    return failure();
  // Before opset 13, softmax flattens dimensions axis.. into one.
  if (n.opset < 13 && *a != rank - 1)
    return n.unsupported("before opset 13 softmax over several trailing "
                         "dimensions is not supported; re-export with opset "
                         ">= 13");
  n.setOutput(0, n.create<OpTy>(x, *a));
  return success();
}

static LogicalResult convertLayerNorm(NodeImporter &n) {
  Value x = n.input(0), scale = n.input(1);
  if (!x || !scale)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  FailureOr<int64_t> axis = n.axisAttr(-1, type.getRank());
  if (failed(axis))
    return failure();
  float epsilon = n.floatAttr("epsilon", 1e-5f);
  // The optional statistics outputs (what a training graph saves for the
  // backward pass), in the stash type (f32 unless stash_type says otherwise).
  if (n.hasOutput(1) || n.hasOutput(2)) {
    Type stash = n.intAttr("stash_type", 1) == 1 ? n.builder.getF32Type()
                                                 : type.getElementType();
    Decomposer d(n, stash);
    Value xs = d.cast(x, stash);
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(*axis, type.getRank()));
    Value mean = reduce<ReduceMeanOp>(n, xs, axes, /*keepDims=*/true);
    Value centered = d.sub(xs, mean);
    Value variance =
        reduce<ReduceMeanOp>(n, d.mul(centered, centered), axes, true);
    Value invStdDev = d.unary<RsqrtOp>(d.add(variance, d.c(epsilon)));
    if (!mean || !invStdDev)
      return failure();
    if (n.hasOutput(1))
      n.setOutput(1, mean);
    if (n.hasOutput(2))
      n.setOutput(2, invStdDev);
  }
  Value bias;
  if (n.hasInput(2)) {
    bias = n.input(2);
  } else {
    auto scaleType = cast<RankedTensorType>(scale.getType());
    bias = n.create<ConstantOp>(DenseElementsAttr::get(
        scaleType, n.builder.getFloatAttr(scaleType.getElementType(), 0.0)));
  }
  if (!bias)
    return failure();
  Value result =
      n.buildValue<LayerNormOp>(x, scale, bias, static_cast<uint64_t>(*axis),
                                APFloat(static_cast<double>(epsilon)));
  n.setOutput(0, result);
  return success(result != nullptr);
}

/// SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss. The optional
/// log_prob output of the former is log_softmax over the classes; when it is
/// used, the loss is the NLL of that output so it is computed once.
template <typename OpTy> static LogicalResult convertLoss(NodeImporter &n) {
  Value input = n.input(0), labels = n.input(1);
  if (!input || !labels)
    return failure();
  Value weight;
  if (n.hasInput(2) && !(weight = n.input(2)))
    return failure();
  std::string reduction = n.stringAttr("reduction", "mean");
  std::optional<LossReduction> kind = symbolizeLossReduction(reduction);
  if (!kind)
    return n.emitError() << "unknown reduction '" << reduction << "'",
           failure();
  IntegerAttr ignore;
  if (const onnx::AttributeProto *a = n.attribute("ignore_index"))
    ignore = n.builder.getI64IntegerAttr(a->i());
  Value result;
  if (std::is_same_v<OpTy, CrossEntropyOp> && n.hasOutput(1)) {
    if (cast<RankedTensorType>(input.getType()).getRank() < 2)
      return n.emitError() << "input must be N x C or N x C x d1 x ...",
             failure();
    Value logProb = n.create<LogSoftmaxOp>(input, 1);
    n.setOutput(1, logProb);
    result = n.buildValue<NllLossOp>(*kind, logProb, labels, weight, ignore);
  } else {
    result = n.buildValue<OpTy>(*kind, input, labels, weight, ignore);
  }
  n.setOutput(0, result);
  return success(result != nullptr);
}

template <typename OpTy>
static LogicalResult convertArgReduce(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  FailureOr<int64_t> axis = n.axisAttr(0, rank);
  if (failed(axis))
    return failure();
  Value result = n.buildValue<OpTy>(x, static_cast<uint64_t>(*axis),
                                    n.intAttr("keepdims", 1) != 0,
                                    n.intAttr("select_last_index", 0) != 0);
  n.setOutput(0, result);
  return success(result != nullptr);
}

static LogicalResult convertCumSum(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  FailureOr<SmallVector<int64_t>> axis = n.constantInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return n.emitError() << "axis must hold one value", failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  FailureOr<int64_t> a = n.normalizeAxis(axis->front(), rank, "axis");
  if (failed(a))
    return failure();
  n.setOutput(0, n.create<CumSumOp>(x, static_cast<uint64_t>(*a),
                                    n.intAttr("exclusive", 0) != 0,
                                    n.intAttr("reverse", 0) != 0));
  return success();
}

/// Hardmax: 1 where the first maximum along the axis is, else 0.
static Value hardmax(NodeImporter &n, Decomposer &d, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = n.axisAttr(n.opset >= 13 ? -1 : 1, rank);
  if (failed(axis))
    return {};
  if (n.opset < 13 && *axis != rank - 1)
    return (void)n.unsupported("before opset 13 hardmax over several "
                               "trailing dimensions is not supported; "
                               "re-export with opset >= 13"),
           Value();
  Value index = n.buildValue<ArgMaxOp>(x, static_cast<uint64_t>(*axis),
                                       /*keep_dims=*/true,
                                       /*select_last_index=*/false);
  Value positions = d.iota(rank, *axis, type.getDimSize(*axis));
  return d.cast(d.cmp(ComparePredicate::eq, index, positions),
                type.getElementType());
}

/// LRN: x / (bias + alpha / size * s)^beta, s the sum of squares over the
/// `size` channels around each one (floor((size-1)/2) before, the rest
/// after, clipped at the ends): the squares padded with zeros along the
/// channels, summed over `size` shifted slices.
static Value lrn(NodeImporter &n, Decomposer &d, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t size = n.intAttr("size", 0);
  if (type.getRank() < 3 || !type.hasStaticShape())
    return (void)(n.emitError() << "the input must be N x C x d1 x ... with "
                                   "a static shape, got "
                                << type),
           Value();
  if (size < 1)
    return (void)(n.emitError() << "size must be a positive number of "
                                   "channels, got "
                                << size),
           Value();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value squares = padAlong(n, d.mul(x, x), 1, before, after, 0.0);
  Value sum;
  SmallVector<int64_t> starts(type.getRank(), 0), strides(type.getRank(), 1);
  for (int64_t i = 0; i < size && squares; ++i) {
    starts[1] = i;
    Value window = n.create<SliceOp>(type, squares, starts, strides);
    sum = sum ? d.add(sum, window) : window;
  }
  double alpha = n.floatAttr("alpha", 1e-4f), beta = n.floatAttr("beta", 0.75f),
         bias = n.floatAttr("bias", 1.0f);
  Value base = d.add(d.c(bias), d.mul(d.c(alpha / size), sum));
  return d.div(x, d.binary<PowOp>(base, d.c(beta)));
}

/// MeanVarianceNormalization, as ONNX's function body: (x - E[x]) /
/// (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes` (default [0, 2, 3]).
static Value meanVarianceNorm(NodeImporter &n, Decomposer &d, Value x) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> axes;
  for (int64_t axis : n.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3})) {
    FailureOr<int64_t> a = n.normalizeAxis(axis, rank, "axes");
    if (failed(a))
      return {};
    axes.push_back(*a);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  auto mean = [&](Value v) {
    return v ? n.buildValue<ReduceMeanOp>(v, ArrayRef(axes), true) : Value();
  };
  Value mu = mean(x);
  Value variance = d.sub(mean(d.mul(x, x)), d.mul(mu, mu));
  return d.div(d.sub(x, mu), d.add(d.unary<SqrtOp>(variance), d.c(1e-9)));
}

void mlir::dist::onnx_import::addReductionConverters(ConverterTable &table) {
  table["LRN"] = convertExpression<lrn>;
  table["MeanVarianceNormalization"] = convertExpression<meanVarianceNorm>;
  table["ReduceSum"] = convertReduceWith<plainReduce<ReduceSumOp>>;
  table["ReduceMean"] = convertReduceWith<plainReduce<ReduceMeanOp>>;
  table["ReduceMax"] = convertReduceWith<plainReduce<ReduceMaxOp>>;
  table["ReduceMin"] = convertReduceWith<plainReduce<ReduceMinOp>>;
  table["ReduceProd"] = convertReduceWith<plainReduce<ReduceProdOp>>;
  table["ReduceL1"] = convertReduceWith<reduceL1>;
  table["ReduceL2"] = convertReduceWith<reduceL2>;
  table["ReduceSumSquare"] = convertReduceWith<reduceSumSquare>;
  table["ReduceLogSum"] = convertReduceWith<reduceLogSum>;
  table["ReduceLogSumExp"] = convertReduceWith<reduceLogSumExp>;
  table["ArgMax"] = convertArgReduce<ArgMaxOp>;
  table["ArgMin"] = convertArgReduce<ArgMinOp>;
  table["CumSum"] = convertCumSum;
  table["Hardmax"] = convertExpression<hardmax>;
  table["Softmax"] = convertSoftmax<SoftmaxOp>;
  table["LogSoftmax"] = convertSoftmax<LogSoftmaxOp>;
  table["LayerNormalization"] = convertLayerNorm;
  table["SoftmaxCrossEntropyLoss"] = convertLoss<CrossEntropyOp>;
  table["NegativeLogLikelihoodLoss"] = convertLoss<NllLossOp>;
}
