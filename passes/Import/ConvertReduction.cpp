//===- ConvertReduction.cpp - ONNX reductions, softmax, norms, losses -----===//

#include "passes/Import/NodeImporter.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

template <typename OpTy> static LogicalResult convertReduce(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
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
    if (n.intAttr("noop_with_empty_axes", 0)) {
      n.setOutput(0, x);
      return success();
    }
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
  if (normalized.empty()) { // a 0-d input: nothing to reduce
    n.setOutput(0, x);
    return success();
  }
  Value result = n.buildValue<OpTy>(x, ArrayRef<int64_t>(normalized),
                                    n.intAttr("keepdims", 1) != 0);
  n.setOutput(0, result);
  return success(result != nullptr);
}

template <typename OpTy> static LogicalResult convertSoftmax(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  int64_t axis = n.intAttr("axis", n.opset >= 13 ? -1 : 1);
  FailureOr<int64_t> a = n.normalizeAxis(axis, rank, "axis");
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
  if (n.hasOutput(1) || n.hasOutput(2))
    return n.unsupported("the Mean and InvStdDev outputs are not supported");
  auto type = cast<RankedTensorType>(x.getType());
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.intAttr("axis", -1), type.getRank(), "axis");
  if (failed(axis))
    return failure();
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
  Value result = n.buildValue<LayerNormOp>(
      x, scale, bias, static_cast<uint64_t>(*axis),
      APFloat(static_cast<double>(n.floatAttr("epsilon", 1e-5f))));
  n.setOutput(0, result);
  return success(result != nullptr);
}

template <typename OpTy> static LogicalResult convertLoss(NodeImporter &n) {
  Value input = n.input(0), labels = n.input(1);
  if (!input || !labels)
    return failure();
  if (n.hasInput(2))
    return n.unsupported("class weights are not supported");
  if (n.hasOutput(1))
    return n.unsupported("the log_prob output is not supported");
  std::string reduction = n.stringAttr("reduction", "mean");
  std::optional<LossReduction> kind = symbolizeLossReduction(reduction);
  if (!kind)
    return n.emitError() << "unknown reduction '" << reduction << "'",
           failure();
  IntegerAttr ignore;
  if (const onnx::AttributeProto *a = n.attribute("ignore_index"))
    ignore = n.builder.getI64IntegerAttr(a->i());
  Value result = n.buildValue<OpTy>(*kind, input, labels, ignore);
  n.setOutput(0, result);
  return success(result != nullptr);
}

void mlir::dist::onnx_import::addReductionConverters(ConverterTable &table) {
  table["ReduceSum"] = convertReduce<ReduceSumOp>;
  table["ReduceMean"] = convertReduce<ReduceMeanOp>;
  table["ReduceMax"] = convertReduce<ReduceMaxOp>;
  table["ReduceMin"] = convertReduce<ReduceMinOp>;
  table["Softmax"] = convertSoftmax<SoftmaxOp>;
  table["LogSoftmax"] = convertSoftmax<LogSoftmaxOp>;
  table["LayerNormalization"] = convertLayerNorm;
  table["SoftmaxCrossEntropyLoss"] = convertLoss<CrossEntropyOp>;
  table["NegativeLogLikelihoodLoss"] = convertLoss<NllLossOp>;
}
