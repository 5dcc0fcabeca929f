//===- ConvertConv.cpp - ONNX convolutions, pooling, normalization -------===//

#include "passes/Import/Conv3D.h"
#include "passes/Import/Decompose.h"

#include "dialects/Dist/IR/TransposedConv.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// A 1-D window is a 1 x k window over a 1 x L image: the attributes of
/// a 1-D node become 2-D ones (stride, dilation 1 and no padding on the
/// added dimension).
static void liftWindowTo2D(SmallVectorImpl<int64_t> &strides,
                           SmallVectorImpl<int64_t> &pads,
                           SmallVectorImpl<int64_t> &dilations) {
  strides.insert(strides.begin(), 1);
  dilations.insert(dilations.begin(), 1);
  pads.assign({0, pads[0], 0, pads[1]});
}

/// Reads `strides` and `dilations` (1s by default) and the ints attribute
/// `extraName` (`extraSize` zeros by default: pads, output_padding) of a
/// node over `rank` spatial dimensions, and checks them: one value per
/// dimension (`extraSize` for the extra), strides and dilations positive,
/// the extra not negative.
static LogicalResult windowInts(NodeImporter &n, size_t rank,
                                StringRef extraName, size_t extraSize,
                                SmallVectorImpl<int64_t> &strides,
                                SmallVectorImpl<int64_t> &dilations,
                                SmallVectorImpl<int64_t> &extra) {
  strides.assign(
      n.intsAttr("strides").value_or(SmallVector<int64_t>(rank, 1)));
  dilations.assign(
      n.intsAttr("dilations").value_or(SmallVector<int64_t>(rank, 1)));
  extra.assign(
      n.intsAttr(extraName).value_or(SmallVector<int64_t>(extraSize, 0)));
  if (strides.size() != rank || dilations.size() != rank ||
      extra.size() != extraSize)
    return n.emitError() << "strides, dilations and " << extraName
                         << " must have one value per spatial dimension ("
                         << rank << ")"
                         << (extraSize != rank ? Twine("; ") + extraName +
                                                     " two"
                                               : Twine()),
           failure();
  if (llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(extra, [](int64_t v) { return v < 0; }))
    return n.emitError() << "strides and dilations must be positive and "
                         << extraName << " not negative",
           failure();
  return success();
}

/// Reads the window attributes of a 1-D or 2-D conv or pool node as 2-D
/// ones (liftWindowTo2D); `kernel` is the window size, used to resolve
/// auto_pad.
static LogicalResult windowAttrs(NodeImporter &n, ArrayRef<int64_t> spatial,
                                 ArrayRef<int64_t> kernel,
                                 SmallVectorImpl<int64_t> &strides,
                                 SmallVectorImpl<int64_t> &pads,
                                 SmallVectorImpl<int64_t> &dilations) {
  size_t rank = spatial.size();
  if (kernel.size() != rank)
    return n.emitError() << "the kernel must have one size per spatial "
                            "dimension ("
                         << rank << ")",
           failure();
  if (failed(windowInts(n, rank, "pads", 2 * rank, strides, dilations, pads)))
    return failure();
  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    pads.assign(2 * rank, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t d = 0; d < rank; ++d) {
      int64_t out = (spatial[d] + strides[d] - 1) / strides[d];
      int64_t extent = dilations[d] * (kernel[d] - 1) + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[d] + extent - spatial[d]);
      int64_t small = total / 2, large = total - small;
      pads[d] = autoPad == "SAME_UPPER" ? small : large;
      pads[d + rank] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return n.emitError() << "unknown auto_pad '" << autoPad << "'", failure();
  }
  if (rank == 1)
    liftWindowTo2D(strides, pads, dilations);
  return success();
}

/// `value` ([N, C, L], or a 1-D kernel [F, C, K]) with a dimension of 1
/// inserted before the last: the 2-D form of a 1-D convolution or pooling.
static Value liftTo2D(NodeImporter &n, Value value) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  return n.reshape(value, {shape[0], shape[1], 1, shape[2]});
}

/// The 1-D result of a lifted 2-D one: [N, C, 1, L] to [N, C, L].
static Value dropLift(NodeImporter &n, Value value) {
  if (!value)
    return value;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  return n.reshape(value, {shape[0], shape[1], shape[3]});
}

/// Checks that `x` and `w` (a convolution's input and weight, or a
/// transposed convolution's) are 1-D, 2-D or 3-D alike, with static shapes.
static LogicalResult checkConvOperands(NodeImporter &n, Value x, Value w) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (xType.getRank() < 3 || xType.getRank() > 5 ||
      wType.getRank() != xType.getRank())
    return n.unsupported("only 1-D, 2-D and 3-D convolutions (input and "
                         "weight of rank 3 to 5) are supported");
  if (!xType.hasStaticShape() || !wType.hasStaticShape())
    return n.emitError() << "input and weight need static shapes", failure();
  return success();
}

static LogicalResult convertConv(NodeImporter &n) {
  Value x = n.input(0), w = n.input(1);
  if (!x || !w || failed(checkConvOperands(n, x, w)))
    return failure();
  ArrayRef<int64_t> xShape = n.inputType(0).getShape();
  ArrayRef<int64_t> wShape = n.inputType(1).getShape();
  Value bias = n.hasInput(2) ? n.input(2) : Value();
  if (n.hasInput(2) && !bias)
    return failure();
  SmallVector<int64_t> strides, pads, dilations;
  if (failed(windowAttrs(n, xShape.drop_front(2), wShape.drop_front(2),
                         strides, pads, dilations)))
    return failure();
  int64_t groups = n.intAttr("group", 1);
  if (xShape.size() == 5) {
    if (groups < 1 || xShape[1] != wShape[1] * groups ||
        wShape[0] % groups != 0)
      return n.emitError() << "the input's channels (" << xShape[1]
                           << ") must be the weight's second dimension times "
                              "group ("
                           << groups << "); got weight " << n.inputType(1),
             failure();
    Value result =
        buildConv3D(n, x, w, bias, strides, pads, dilations, groups);
    n.setOutput(0, result);
    return success(result != nullptr);
  }
  bool is1D = xShape.size() == 3;
  Value result = n.buildValue<Conv2DOp>(
      is1D ? liftTo2D(n, x) : x, is1D ? liftTo2D(n, w) : w, bias,
      ArrayRef<int64_t>(strides), ArrayRef<int64_t>(pads),
      ArrayRef<int64_t>(dilations),
      static_cast<uint64_t>(n.intAttr("group", 1)));
  n.setOutput(0, is1D ? dropLift(n, result) : result);
  return success(result != nullptr);
}

/// ONNX ConvTranspose, 1-D to 3-D: the transposed convolution of
/// TransposedConv.h (the input gradient of the convolution it undoes),
/// plus the bias. Output sizes follow the ONNX formula, from `pads`, from
/// `auto_pad` or from `output_shape`.
static LogicalResult convertConvTranspose(NodeImporter &n) {
  Value x = n.input(0), w = n.input(1);
  if (!x || !w || failed(checkConvOperands(n, x, w)))
    return failure();
  ArrayRef<int64_t> xShape = n.inputType(0).getShape();
  ArrayRef<int64_t> wShape = n.inputType(1).getShape();
  size_t rank = xShape.size() - 2;
  int64_t groups = n.intAttr("group", 1);
  if (groups < 1 || xShape[1] % groups != 0 || wShape[0] != xShape[1])
    return n.emitError() << "the weight's first dimension must equal the "
                            "input's channels ("
                         << xShape[1] << "), divisible by group (" << groups
                         << "); got weight " << n.inputType(1),
           failure();
  Value bias = n.hasInput(2) ? n.input(2) : Value();
  if (n.hasInput(2) && !bias)
    return failure();
  int64_t channels = groups * wShape[1];
  if (bias && n.inputType(2).getShape() != ArrayRef<int64_t>{channels})
    return n.emitError() << "the bias must have one value per output channel ("
                         << channels << "), got " << n.inputType(2),
           failure();

  SmallVector<int64_t> strides, dilations, outputPadding;
  if (failed(windowInts(n, rank, "output_padding", rank, strides, dilations,
                        outputPadding)))
    return failure();
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>(2 * rank, 0));
  if (pads.size() != 2 * rank)
    return n.emitError() << "pads must have two values per spatial "
                            "dimension ("
                         << 2 * rank << ")",
           failure();
  SmallVector<int64_t> kernel(wShape.drop_front(2));
  if (std::optional<SmallVector<int64_t>> k = n.intsAttr("kernel_shape");
      k && ArrayRef<int64_t>(*k) != ArrayRef<int64_t>(kernel))
    return n.emitError() << "kernel_shape does not match the weight's shape "
                         << n.inputType(1),
           failure();

  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return n.emitError() << "unknown auto_pad '" << autoPad << "'", failure();
  std::optional<SmallVector<int64_t>> outputShape = n.intsAttr("output_shape");
  if (outputShape && outputShape->size() == rank + 2)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (outputShape && outputShape->size() != rank)
    return n.emitError() << "output_shape must have one value per spatial "
                            "dimension ("
                         << rank << ")",
           failure();
  if (autoPad == "VALID")
    pads.assign(2 * rank, 0);
  SmallVector<int64_t> resultShape = {xShape[0], channels};
  for (size_t d = 0; d < rank; ++d) {
    int64_t natural = strides[d] * (xShape[2 + d] - 1) + outputPadding[d] +
                      (kernel[d] - 1) * dilations[d] + 1;
    if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      // Pads follow from the output size: the odd one at the end for
      // SAME_UPPER (and an explicit output_shape), at the start otherwise.
      int64_t out =
          outputShape ? (*outputShape)[d] : xShape[2 + d] * strides[d];
      int64_t total = natural - out;
      int64_t half = total / 2;
      bool upper = autoPad != "SAME_LOWER";
      pads[d] = upper ? half : total - half;
      pads[d + rank] = upper ? total - half : half;
    }
    int64_t out = natural - pads[d] - pads[d + rank];
    if (out < 1)
      return n.emitError() << "the output would have no element along "
                              "spatial dimension "
                           << d << " (size " << out << ")",
             failure();
    resultShape.push_back(out);
  }
  if (rank == 3) {
    Value result = buildConvTranspose3D(n, x, w, resultShape, strides, pads,
                                        dilations, groups);
    if (result && bias)
      result = n.buildValue<AddOp>(result,
                                   n.reshape(bias, {channels, 1, 1, 1}));
    n.setOutput(0, result);
    return success(result != nullptr);
  }
  if (rank == 1) {
    liftWindowTo2D(strides, pads, dilations);
    x = liftTo2D(n, x);
    w = liftTo2D(n, w);
    resultShape.insert(resultShape.begin() + 2, 1);
  }
  DistBuilder g(n.builder, n.loc);
  Value result = buildTransposedConv2D(g, x, w, resultShape, strides, pads,
                                       dilations, groups);
  if (bias)
    result = g.add(result, g.reshape(bias, {channels, 1, 1}));
  n.setOutput(0, rank == 1 ? dropLift(n, result) : result);
  return success();
}

template <typename OpTy> static LogicalResult convertPool(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  std::optional<SmallVector<int64_t>> kernel = n.intsAttr("kernel_shape");
  if (!kernel)
    return n.emitError() << "kernel_shape is required", failure();
  int64_t rank = xType.getRank();
  if (rank < 3 || rank > 5 || static_cast<int64_t>(kernel->size()) != rank - 2)
    return n.unsupported("only 1-D, 2-D and 3-D pooling is supported");
  if (n.hasOutput(1))
    return n.unsupported("the Indices output is not supported");
  SmallVector<int64_t> strides, pads, dilations;
  if (failed(windowAttrs(n, xType.getShape().drop_front(2), *kernel, strides,
                         pads, dilations)))
    return failure();
  bool dilated = llvm::any_of(dilations, [](int64_t d) { return d != 1; });
  constexpr bool isMax = std::is_same_v<OpTy, MaxPool2DOp>;
  if (dilated && (!isMax || rank == 5))
    return n.unsupported("dilated pooling is supported for 1-D and 2-D "
                         "MaxPool only");
  bool ceilMode = n.intAttr("ceil_mode", 0) != 0;
  if (rank == 5) {
    Value result =
        buildPool3D(n, x, isMax, *kernel, strides, pads, ceilMode,
                    n.intAttr("count_include_pad", 0) != 0);
    n.setOutput(0, result);
    return success(result != nullptr);
  }
  bool is1D = rank == 3;
  if (is1D) {
    kernel->insert(kernel->begin(), 1);
    x = liftTo2D(n, x);
  }
  if (dilated) {
    Value result = buildDilatedMaxPool2D(n, x, *kernel, strides, pads,
                                         dilations, ceilMode);
    n.setOutput(0, is1D ? dropLift(n, result) : result);
    return success(result != nullptr);
  }
  FailureOr<OpTy> op;
  if constexpr (std::is_same_v<OpTy, AvgPool2DOp>)
    op = n.build<OpTy>(x, ArrayRef<int64_t>(*kernel),
                       ArrayRef<int64_t>(strides), ArrayRef<int64_t>(pads),
                       ceilMode, n.intAttr("count_include_pad", 0) != 0);
  else
    op =
        n.build<OpTy>(x, ArrayRef<int64_t>(*kernel), ArrayRef<int64_t>(strides),
                      ArrayRef<int64_t>(pads), ceilMode);
  if (failed(op))
    return failure();
  n.setOutput(0, is1D ? dropLift(n, op->getResult()) : op->getResult());
  return success();
}

static LogicalResult convertGlobalAvgPool(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Value result = n.buildValue<GlobalAvgPoolOp>(x);
  n.setOutput(0, result);
  return success(result != nullptr);
}

/// GlobalMaxPool: the maximum over every spatial dimension, kept as 1s.
static LogicalResult convertGlobalMaxPool(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.inputType(0).getRank();
  if (rank < 3)
    return n.emitError() << "the input must be N x C x d1 x ..., got "
                         << n.inputType(0),
           failure();
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  Value result = n.buildValue<ReduceMaxOp>(x, axes, /*keep_dims=*/true);
  n.setOutput(0, result);
  return success(result != nullptr);
}

/// Whether `value` is known at import time to hold `expected` everywhere.
static bool isSplat(DenseElementsAttr value, double expected) {
  return value && value.isSplat() &&
         isa<FloatType>(value.getElementType()) &&
         value.getSplatValue<APFloat>().convertToDouble() == expected;
}

/// InstanceNormalization (and so PyTorch's GroupNorm, exported as one over
/// [N, groups, -1]): dist.layer_norm over the spatial dimensions, then the
/// per-channel scale and bias. Scales of one and biases of zero known at
/// import time (GroupNorm's) are left out.
static LogicalResult convertInstanceNorm(NodeImporter &n) {
  Value x = n.input(0), scale = n.input(1), bias = n.input(2);
  if (!x || !scale || !bias)
    return failure();
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 3 || !type.hasStaticShape())
    return n.emitError() << "the input must be N x C x d1 x ... with a "
                            "static shape, got "
                         << type,
           failure();
  int64_t channels = type.getDimSize(1);
  for (unsigned i : {1u, 2u})
    if (n.inputType(i).getShape() != ArrayRef<int64_t>{channels})
      return n.emitError() << (i == 1 ? "scale" : "B")
                           << " must have one value per channel (" << channels
                           << "), got " << n.inputType(i),
             failure();
  auto trailing = RankedTensorType::get(type.getShape().drop_front(2),
                                        type.getElementType());
  auto filled = [&](double v) -> Value {
    return n.create<ConstantOp>(DenseElementsAttr::get(
        trailing, n.builder.getFloatAttr(type.getElementType(), v)));
  };
  Value result = n.buildValue<LayerNormOp>(
      x, filled(1.0), filled(0.0), /*axis=*/uint64_t(2),
      APFloat(static_cast<double>(n.floatAttr("epsilon", 1e-5f))));
  SmallVector<int64_t> perChannel(rank, 1);
  perChannel[1] = channels;
  Decomposer d(n, type.getElementType());
  if (!isSplat(n.constantInput(1), 1.0))
    result = d.mul(result, n.reshape(scale, perChannel));
  if (!isSplat(n.constantInput(2), 0.0))
    result = d.add(result, n.reshape(bias, perChannel));
  return d.bind(result);
}

static LogicalResult convertBatchNorm(NodeImporter &n) {
  SmallVector<Value> operands;
  for (unsigned i = 0; i < 5; ++i) {
    Value v = n.input(i);
    if (!v)
      return failure();
    operands.push_back(v);
  }
  // training_mode is an attribute from opset 14; before it, the number of
  // outputs tells (running statistics are outputs only in training).
  bool training = n.opset >= 14 ? n.intAttr("training_mode", 0) != 0
                                : n.node.output_size() > 1;
  Value result = n.buildValue<BatchNormOp>(
      operands[0], operands[1], operands[2], operands[3], operands[4],
      APFloat(static_cast<double>(n.floatAttr("epsilon", 1e-5f))),
      APFloat(static_cast<double>(n.floatAttr("momentum", 0.9f))), training);
  if (!result)
    return failure();
  n.setOutput(0, result);
  // Running-statistic outputs of training mode: the statistics update is part
  // of the training step (not the forward graph), so they read the inputs.
  n.setOutput(1, operands[3]);
  n.setOutput(2, operands[4]);
  // Opsets before 14 also have the batch's own mean and (biased) variance
  // as optional outputs 3 and 4; PyTorch exports them unused.
  if (n.hasOutput(3) || n.hasOutput(4)) {
    Decomposer d(
        n, cast<RankedTensorType>(operands[0].getType()).getElementType());
    int64_t rank = n.inputType(0).getRank();
    SmallVector<int64_t> axes = {0};
    for (int64_t a = 2; a < rank; ++a)
      axes.push_back(a);
    Value mean = n.buildValue<ReduceMeanOp>(operands[0], axes, true);
    Value centered = mean ? d.sub(operands[0], mean) : Value();
    Value var = centered ? n.buildValue<ReduceMeanOp>(d.mul(centered, centered),
                                                      axes, false)
                         : Value();
    if (!var)
      return failure();
    SmallVector<int64_t> channels = {n.inputType(0).getDimSize(1)};
    n.setOutput(3, n.reshape(mean, channels));
    n.setOutput(4, var);
  }
  return success();
}

void mlir::dist::onnx_import::addConvConverters(ConverterTable &table) {
  table["Conv"] = convertConv;
  table["ConvTranspose"] = convertConvTranspose;
  table["MaxPool"] = convertPool<MaxPool2DOp>;
  table["AveragePool"] = convertPool<AvgPool2DOp>;
  table["GlobalAveragePool"] = convertGlobalAvgPool;
  table["GlobalMaxPool"] = convertGlobalMaxPool;
  table["InstanceNormalization"] = convertInstanceNorm;
  table["BatchNormalization"] = convertBatchNorm;
}
