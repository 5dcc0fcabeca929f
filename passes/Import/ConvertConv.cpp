//===- ConvertConv.cpp - ONNX convolution, pooling, batch norm to dist ----===//

#include "passes/Import/Decompose.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// Reads the window attributes of a 2-D conv or pool node; `kernel` is the
/// window size, used to resolve auto_pad.
static LogicalResult windowAttrs(NodeImporter &n, ArrayRef<int64_t> inputHW,
                                 ArrayRef<int64_t> kernel,
                                 SmallVectorImpl<int64_t> &strides,
                                 SmallVectorImpl<int64_t> &pads,
                                 SmallVectorImpl<int64_t> &dilations) {
  strides.assign(n.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1}));
  dilations.assign(
      n.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1}));
  pads.assign(n.intsAttr("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0}));
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    return n.unsupported("only 2-D windows are supported");
  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    pads.assign(4, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int d = 0; d < 2; ++d) {
      int64_t out = (inputHW[d] + strides[d] - 1) / strides[d];
      int64_t extent = dilations[d] * (kernel[d] - 1) + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[d] + extent - inputHW[d]);
      int64_t small = total / 2, large = total - small;
      pads[d] = autoPad == "SAME_UPPER" ? small : large;
      pads[d + 2] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return n.emitError() << "unknown auto_pad '" << autoPad << "'", failure();
  }
  return success();
}

static LogicalResult convertConv(NodeImporter &n) {
  Value x = n.input(0), w = n.input(1);
  if (!x || !w)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return n.unsupported("only 2-D convolutions (rank-4 input and weight) are "
                         "supported");
  Value bias = n.hasInput(2) ? n.input(2) : Value();
  if (n.hasInput(2) && !bias)
    return failure();
  SmallVector<int64_t> strides, pads, dilations;
  if (failed(windowAttrs(n, xType.getShape().drop_front(2),
                         wType.getShape().drop_front(2), strides, pads,
                         dilations)))
    return failure();
  Value result = n.buildValue<Conv2DOp>(
      x, w, bias, ArrayRef<int64_t>(strides), ArrayRef<int64_t>(pads),
      ArrayRef<int64_t>(dilations),
      static_cast<uint64_t>(n.intAttr("group", 1)));
  n.setOutput(0, result);
  return success(result != nullptr);
}

template <typename OpTy> static LogicalResult convertPool(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  std::optional<SmallVector<int64_t>> kernel = n.intsAttr("kernel_shape");
  if (xType.getRank() != 4 || !kernel || kernel->size() != 2)
    return n.unsupported("only 2-D pooling is supported");
  if (n.hasOutput(1))
    return n.unsupported("the Indices output is not supported");
  SmallVector<int64_t> strides, pads, dilations;
  if (failed(windowAttrs(n, xType.getShape().drop_front(2), *kernel, strides,
                         pads, dilations)))
    return failure();
  if (dilations[0] != 1 || dilations[1] != 1)
    return n.unsupported("dilated pooling is not supported");
  bool ceilMode = n.intAttr("ceil_mode", 0) != 0;
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
  n.setOutput(0, op->getResult());
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
  table["MaxPool"] = convertPool<MaxPool2DOp>;
  table["AveragePool"] = convertPool<AvgPool2DOp>;
  table["GlobalAveragePool"] = convertGlobalAvgPool;
  table["BatchNormalization"] = convertBatchNorm;
}
