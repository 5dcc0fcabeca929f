//===- ConvOps.cpp - Convolution, pooling, batch norm: inference ----------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistTypeInference.h"

using namespace mlir;
using namespace mlir::dist;

/// Checks the window attributes shared by convolution and pooling: two
/// positive `strides` (and `dilations`), four non-negative `pads`.
static LogicalResult checkWindowAttrs(std::optional<Location> loc,
                                      StringRef opName,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> pads,
                                      ArrayRef<int64_t> dilations) {
  auto allPositive = [](ArrayRef<int64_t> v) {
    return llvm::all_of(v, [](int64_t x) { return x > 0; });
  };
  if (strides.size() != 2 || !allPositive(strides))
    return emitOpInferenceError(loc, opName, "strides ", formatList(strides),
                                " must be two positive integers");
  if (dilations.size() != 2 || !allPositive(dilations))
    return emitOpInferenceError(loc, opName, "dilations ",
                                formatList(dilations),
                                " must be two positive integers");
  if (pads.size() != 4 || !llvm::all_of(pads, [](int64_t x) { return x >= 0; }))
    return emitOpInferenceError(
        loc, opName, "pads ", formatList(pads),
        " must be four non-negative integers [top, left, bottom, right]");
  return success();
}

/// Output size of one spatial dimension of a sliding window, or a failure
/// when the window does not fit.
static FailureOr<int64_t> windowOutputSize(std::optional<Location> loc,
                                           StringRef opName, int64_t dim,
                                           int64_t in, int64_t window,
                                           int64_t stride, int64_t padBegin,
                                           int64_t padEnd, bool ceilMode) {
  int64_t span = in + padBegin + padEnd - window;
  if (span < 0)
    return emitOpInferenceError(loc, opName, "window of extent ", window,
                                " does not fit spatial dimension ", dim,
                                " of size ", in, " with padding ", padBegin,
                                " + ", padEnd);
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // As in PyTorch, a ceil-mode window must start inside the padded input.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

//===----------------------------------------------------------------------===//
// Conv2DOp
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  if (!input || !weight || input.getRank() != 4 || weight.getRank() != 4)
    return emitOpInferenceError(
        loc, name,
        "input must be N x C x H x W and weight F x C/groups x KH x KW");
  if (input.getElementType() != weight.getElementType())
    return emitOpInferenceError(loc, name, "input has element type ",
                                input.getElementType(), " but weight has ",
                                weight.getElementType());
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  if (failed(checkWindowAttrs(loc, name, strides, pads, dilations)))
    return failure();
  int64_t groups = adaptor.getGroups();
  int64_t channels = input.getDimSize(1), filters = weight.getDimSize(0);
  if (groups <= 0 || channels % groups != 0 || filters % groups != 0)
    return emitOpInferenceError(loc, name, "groups = ", groups,
                                " must be positive and divide both the ",
                                channels, " input channels and the ", filters,
                                " filters");
  if (weight.getDimSize(1) * groups != channels)
    return emitOpInferenceError(
        loc, name, "weight expects ", weight.getDimSize(1) * groups,
        " input channels (", weight.getDimSize(1), " per group x ", groups,
        " groups), input has ", channels);
  if (Value bias = adaptor.getBias()) {
    auto type = dyn_cast<RankedTensorType>(bias.getType());
    if (!type || type.getShape() != ArrayRef<int64_t>{filters} ||
        type.getElementType() != input.getElementType())
      return emitOpInferenceError(loc, name, "bias of type ", bias.getType(),
                                  " must have one element per filter (",
                                  filters, ")");
  }
  SmallVector<int64_t> shape = {input.getDimSize(0), filters};
  for (int d = 0; d < 2; ++d) {
    int64_t extent = dilations[d] * (weight.getDimSize(2 + d) - 1) + 1;
    FailureOr<int64_t> out =
        windowOutputSize(loc, name, 2 + d, input.getDimSize(2 + d), extent,
                         strides[d], pads[d], pads[d + 2], /*ceilMode=*/false);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  types.push_back(input.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult mlir::dist::inferPool2DResultType(
    std::optional<Location> loc, StringRef opName, Type inputType,
    ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
    bool ceilMode, SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  if (!input || input.getRank() != 4)
    return emitOpInferenceError(loc, opName,
                                "input must be N x C x H x W, got ", inputType);
  if (kernel.size() != 2 ||
      !llvm::all_of(kernel, [](int64_t k) { return k > 0; }))
    return emitOpInferenceError(loc, opName, "kernel ", formatList(kernel),
                                " must be two positive integers");
  int64_t unitDilations[] = {1, 1};
  if (failed(checkWindowAttrs(loc, opName, strides, pads, unitDilations)))
    return failure();
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  for (int d = 0; d < 2; ++d) {
    if (pads[d] >= kernel[d] || pads[d + 2] >= kernel[d])
      return emitOpInferenceError(loc, opName, "pads ", formatList(pads),
                                  " must be smaller than the kernel ",
                                  formatList(kernel));
    FailureOr<int64_t> out =
        windowOutputSize(loc, opName, 2 + d, input.getDimSize(2 + d), kernel[d],
                         strides[d], pads[d], pads[d + 2], ceilMode);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  types.push_back(input.clone(shape));
  return success();
}

/// The pooling gradients: grad_output has the type pooling the input gives,
/// and the result is the input's type.
template <typename GradOp> static LogicalResult verifyPoolGrad(GradOp op) {
  SmallVector<Type> pooled;
  if (failed(inferPool2DResultType(op.getLoc(), op->getName().getStringRef(),
                                   op.getInput().getType(), op.getKernel(),
                                   op.getStrides(), op.getPads(),
                                   op.getCeilMode(), pooled)))
    return failure();
  if (pooled.front() != op.getGradOutput().getType())
    return op.emitOpError("grad_output must have the pooled type ")
           << pooled.front() << ", got " << op.getGradOutput().getType();
  if (op.getType() != op.getInput().getType())
    return op.emitOpError("result must have the input's type ")
           << op.getInput().getType() << ", got " << op.getType();
  return success();
}

LogicalResult MaxPool2DGradOp::verify() { return verifyPoolGrad(*this); }
LogicalResult AvgPool2DGradOp::verify() { return verifyPoolGrad(*this); }

LogicalResult GlobalAvgPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input || input.getRank() < 3)
    return emitOpInferenceError(loc, getOperationName(),
                                "input must be N x C x d1 x ..., got ",
                                adaptor.getInput().getType());
  SmallVector<int64_t> shape(input.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  types.push_back(input.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input || input.getRank() < 2)
    return emitOpInferenceError(loc, name, "input must be N x C x ..., got ",
                                adaptor.getInput().getType());
  if (adaptor.getEpsilon().convertToDouble() < 0.0)
    return emitOpInferenceError(loc, name, "epsilon must not be negative");
  int64_t channels = input.getDimSize(1);
  std::pair<StringRef, Value> perChannel[] = {
      {"scale", adaptor.getScale()},
      {"bias", adaptor.getBias()},
      {"mean", adaptor.getMean()},
      {"variance", adaptor.getVariance()}};
  for (auto [what, value] : perChannel) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getShape() != ArrayRef<int64_t>{channels} ||
        type.getElementType() != input.getElementType())
      return emitOpInferenceError(loc, name, what, " of type ", value.getType(),
                                  " must be a vector of ", channels, " ",
                                  input.getElementType(), " (one per channel)");
  }
  types.push_back(input);
  return success();
}

int64_t Conv2DOp::getFlops() {
  // Each output element: C/groups x KH x KW multiply-adds (the weight's
  // inner dimensions).
  auto weight = cast<RankedTensorType>(getWeight().getType());
  auto result = dyn_cast<RankedTensorType>(getType());
  if (!result || !result.hasStaticShape() || !weight.hasStaticShape())
    return 0;
  return 2 * result.getNumElements() * weight.getDimSize(1) *
         weight.getDimSize(2) * weight.getDimSize(3);
}
