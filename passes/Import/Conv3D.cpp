//===- Conv3D.cpp - 3-D and dilated windows from 2-D ops and slices -----===//

#include "passes/Import/Conv3D.h"
#include "passes/Import/Decompose.h"

#include "dialects/Dist/IR/TransposedConv.h"

#include <limits>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;


Value mlir::dist::onnx_import::padAlong(NodeImporter &n, Value x,
                                        int64_t axis, int64_t before,
                                        int64_t after, double fill) {
  if (!x || (before == 0 && after == 0))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  auto planes = [&](int64_t count) {
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = count;
    return n.create<ConstantOp>(DenseElementsAttr::get(
        type.clone(shape), FloatAttr::get(type.getElementType(), fill)));
  };
  SmallVector<Value> pieces;
  if (before > 0)
    pieces.push_back(planes(before));
  pieces.push_back(x);
  if (after > 0)
    pieces.push_back(planes(after));
  return n.buildValue<ConcatOp>(pieces, static_cast<uint64_t>(axis));
}

/// `x` [N, C, D, H, W] with `before` and `after` planes of `fill` around its
/// depth, moved next to the batch: [N, D', C, H, W].
static Value padDepthFirst(NodeImporter &n, Value x, int64_t before,
                           int64_t after, double fill) {
  Value padded = padAlong(n, x, 2, before, after, fill);
  if (!padded)
    return {};
  return n.buildValue<TransposeOp>(padded, ArrayRef<int64_t>{0, 2, 1, 3, 4});
}

/// The output size of a pooling window of `extent` along a dimension of
/// `in` with pads `begin` and `end` (the 2-D ops' rule: in ceil mode a last
/// window that would start in the end padding is dropped, as PyTorch
/// does), or nullopt when the window does not fit.
static std::optional<int64_t> pooledSize(int64_t in, int64_t extent,
                                         int64_t stride, int64_t begin,
                                         int64_t end, bool ceilMode) {
  int64_t span = in + begin + end - extent;
  if (span < 0)
    return std::nullopt;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + begin)
    --out;
  return out;
}

Value mlir::dist::onnx_import::buildDilatedMaxPool2D(
    NodeImporter &n, Value x, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
    ArrayRef<int64_t> dilations, bool ceilMode) {
  SmallVector<int64_t> shape(shapeOf(x));
  SmallVector<int64_t> outSizes;
  Value padded = x;
  for (int d = 0; d < 2; ++d) {
    int64_t in = shape[2 + d];
    int64_t extent = dilations[d] * (kernel[d] - 1) + 1;
    std::optional<int64_t> out = pooledSize(in, extent, strides[d], pads[d],
                                            pads[d + 2], ceilMode);
    if (!out)
      return n.emitError() << "the dilated window's extent " << extent
                           << " does not fit spatial dimension " << d
                           << " of size " << in << " with padding",
             Value();
    outSizes.push_back(*out);
    // Ceil mode's last window may reach past the end padding.
    int64_t reach = (*out - 1) * strides[d] + extent;
    padded = padAlong(n, padded, 2 + d, pads[d],
                      std::max(pads[d + 2], reach - in - pads[d]),
                      -std::numeric_limits<double>::infinity());
    if (!padded)
      return {};
  }
  auto resultType = cast<RankedTensorType>(x.getType())
                        .clone(ArrayRef<int64_t>{shape[0], shape[1],
                                                 outSizes[0], outSizes[1]});
  Value result;
  for (int64_t a = 0; a < kernel[0]; ++a)
    for (int64_t b = 0; b < kernel[1]; ++b) {
      Value taken = n.create<SliceOp>(
          resultType, padded,
          ArrayRef<int64_t>{0, 0, a * dilations[0], b * dilations[1]},
          ArrayRef<int64_t>{1, 1, strides[0], strides[1]});
      result = result ? n.buildValue<MaxOp>(result, taken) : taken;
      if (!result)
        return {};
    }
  return result;
}

/// The `depths` input planes a kernel depth reads, every `stride`-th from
/// `start`, of `xt` [N, D', C, H, W], as a batch of images [N * depths, C,
/// H, W].
static Value depthSlices(NodeImporter &n, Value xt, int64_t start,
                         int64_t stride, int64_t depths) {
  ArrayRef<int64_t> shape = shapeOf(xt);
  auto type = cast<RankedTensorType>(xt.getType())
                  .clone(ArrayRef<int64_t>{shape[0], depths, shape[2],
                                           shape[3], shape[4]});
  Value slice = n.create<SliceOp>(type, xt,
                                  ArrayRef<int64_t>{0, start, 0, 0, 0},
                                  ArrayRef<int64_t>{1, stride, 1, 1, 1});
  return n.reshape(slice, {shape[0] * depths, shape[2], shape[3], shape[4]});
}

/// [N * Do, F, H, W] back to [N, F, Do, H, W], scaled per output depth by
/// `depthScale` ([Do], or empty).
static Value restoreDepth(NodeImporter &n, Value images, int64_t batch,
                          int64_t depths, ArrayRef<double> depthScale) {
  if (!images)
    return {};
  ArrayRef<int64_t> shape = shapeOf(images);
  Value split =
      n.reshape(images, {batch, depths, shape[1], shape[2], shape[3]});
  if (!depthScale.empty()) {
    auto type = cast<RankedTensorType>(split.getType());
    auto scaleType = type.clone(ArrayRef<int64_t>{depths, 1, 1, 1});
    SmallVector<Attribute> values;
    for (double s : depthScale)
      values.push_back(FloatAttr::get(type.getElementType(), s));
    Value scale =
        n.create<ConstantOp>(DenseElementsAttr::get(scaleType, values));
    split = n.buildValue<MulOp>(split, scale);
    if (!split)
      return {};
  }
  return n.buildValue<TransposeOp>(split, ArrayRef<int64_t>{0, 2, 1, 3, 4});
}

Value mlir::dist::onnx_import::buildConv3D(NodeImporter &n, Value x, Value w,
                                           Value bias,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> pads,
                                           ArrayRef<int64_t> dilations,
                                           int64_t groups) {
  ArrayRef<int64_t> xShape = shapeOf(x), wShape = shapeOf(w);
  int64_t kernelDepth = wShape[2];
  int64_t padded = xShape[2] + pads[0] + pads[3];
  int64_t extent = dilations[0] * (kernelDepth - 1) + 1;
  if (padded < extent)
    return n.emitError() << "the kernel's depth extent " << extent
                         << " does not fit the padded input depth " << padded,
           Value();
  int64_t depths = (padded - extent) / strides[0] + 1;
  Value xt = padDepthFirst(n, x, pads[0], pads[3], 0.0);
  if (!xt)
    return {};
  auto planeType = cast<RankedTensorType>(w.getType())
                       .clone(ArrayRef<int64_t>{wShape[0], wShape[1], 1,
                                                wShape[3], wShape[4]});
  Value sum;
  for (int64_t kd = 0; kd < kernelDepth; ++kd) {
    Value images = depthSlices(n, xt, kd * dilations[0], strides[0], depths);
    Value plane = n.reshape(
        n.create<SliceOp>(planeType, w, ArrayRef<int64_t>{0, 0, kd, 0, 0},
                          ArrayRef<int64_t>{1, 1, 1, 1, 1}),
        {wShape[0], wShape[1], wShape[3], wShape[4]});
    Value z = n.buildValue<Conv2DOp>(
        images, plane, kd == 0 ? bias : Value(),
        ArrayRef<int64_t>{strides[1], strides[2]},
        ArrayRef<int64_t>{pads[1], pads[2], pads[4], pads[5]},
        ArrayRef<int64_t>{dilations[1], dilations[2]},
        static_cast<uint64_t>(groups));
    if (!z)
      return {};
    sum = sum ? n.buildValue<AddOp>(sum, z) : z;
  }
  return restoreDepth(n, sum, xShape[0], depths, {});
}

Value mlir::dist::onnx_import::buildConvTranspose3D(
    NodeImporter &n, Value x, Value w, ArrayRef<int64_t> resultShape,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
    ArrayRef<int64_t> dilations, int64_t groups) {
  ArrayRef<int64_t> xShape = shapeOf(x), wShape = shapeOf(w);
  int64_t batch = xShape[0], depth = xShape[2], kernelDepth = wShape[2];
  int64_t channels = resultShape[1], outDepth = resultShape[2];
  // Output depths before the begin padding is cropped: every product lands
  // in [0, reach), and the kept ones in [pad, pad + outDepth).
  int64_t reach = (depth - 1) * strides[0] + (kernelDepth - 1) * dilations[0] + 1;
  int64_t buffer = std::max(reach, pads[0] + outDepth);
  Value xt = padDepthFirst(n, x, 0, 0, 0.0);
  if (!xt)
    return {};
  Value images = n.reshape(xt, {batch * depth, xShape[1], xShape[3], xShape[4]});
  auto planeType = cast<RankedTensorType>(w.getType())
                       .clone(ArrayRef<int64_t>{wShape[0], wShape[1], 1,
                                                wShape[3], wShape[4]});
  auto bufferType = cast<RankedTensorType>(x.getType())
                        .clone(ArrayRef<int64_t>{batch, buffer, channels,
                                                 resultShape[3], resultShape[4]});
  Value zeros = n.create<ConstantOp>(DenseElementsAttr::get(
      bufferType, FloatAttr::get(bufferType.getElementType(), 0.0)));
  DistBuilder g(n.builder, n.loc);
  Value sum;
  for (int64_t kd = 0; kd < kernelDepth; ++kd) {
    Value plane = n.reshape(
        n.create<SliceOp>(planeType, w, ArrayRef<int64_t>{0, 0, kd, 0, 0},
                          ArrayRef<int64_t>{1, 1, 1, 1, 1}),
        {wShape[0], wShape[1], wShape[3], wShape[4]});
    Value z = buildTransposedConv2D(
        g, images, plane,
        {batch * depth, channels, resultShape[3], resultShape[4]},
        {strides[1], strides[2]}, {pads[1], pads[2], pads[4], pads[5]},
        {dilations[1], dilations[2]}, groups);
    if (!z)
      return {};
    Value planes = n.reshape(
        z, {batch, depth, channels, resultShape[3], resultShape[4]});
    Value placed = n.create<InsertSliceOp>(
        bufferType, planes, zeros,
        ArrayRef<int64_t>{0, kd * dilations[0], 0, 0, 0},
        ArrayRef<int64_t>{1, strides[0], 1, 1, 1});
    sum = sum ? n.buildValue<AddOp>(sum, placed) : placed;
  }
  auto keptType = bufferType.clone(ArrayRef<int64_t>{
      batch, outDepth, channels, resultShape[3], resultShape[4]});
  Value kept = n.create<SliceOp>(keptType, sum,
                                 ArrayRef<int64_t>{0, pads[0], 0, 0, 0},
                                 ArrayRef<int64_t>{1, 1, 1, 1, 1});
  return n.buildValue<TransposeOp>(kept, ArrayRef<int64_t>{0, 2, 1, 3, 4});
}

Value mlir::dist::onnx_import::buildPool3D(NodeImporter &n, Value x, bool isMax,
                                           ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> pads,
                                           bool ceilMode,
                                           bool countIncludePad) {
  ArrayRef<int64_t> xShape = shapeOf(x);
  int64_t in = xShape[2], window = kernel[0], stride = strides[0];
  std::optional<int64_t> pooled =
      pooledSize(in, window, stride, pads[0], pads[3], ceilMode);
  if (!pooled)
    return n.emitError() << "the window's depth " << window
                         << " does not fit the padded input depth "
                         << in + pads[0] + pads[3],
           Value();
  int64_t depths = *pooled;
  // Ceil mode's last window may reach past the end padding.
  int64_t reach = (depths - 1) * stride + window;
  int64_t after = std::max(pads[3], reach - in - pads[0]);
  double fill = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value xt = padDepthFirst(n, x, pads[0], after, fill);
  if (!xt)
    return {};
  SmallVector<int64_t> kernel2D = {kernel[1], kernel[2]};
  SmallVector<int64_t> strides2D = {strides[1], strides[2]};
  SmallVector<int64_t> pads2D = {pads[1], pads[2], pads[4], pads[5]};
  Value combined;
  for (int64_t kd = 0; kd < window; ++kd) {
    Value images = depthSlices(n, xt, kd, stride, depths);
    Value pooled =
        isMax ? n.buildValue<MaxPool2DOp>(images, ArrayRef(kernel2D),
                                          ArrayRef(strides2D), ArrayRef(pads2D),
                                          ceilMode)
              : n.buildValue<AvgPool2DOp>(images, ArrayRef(kernel2D),
                                          ArrayRef(strides2D), ArrayRef(pads2D),
                                          ceilMode, countIncludePad);
    if (!pooled)
      return {};
    if (!combined)
      combined = pooled;
    else if (isMax)
      combined = n.buildValue<MaxOp>(combined, pooled);
    else
      combined = n.buildValue<AddOp>(combined, pooled);
  }
  // An average divides by the depth extent each window counts (the 2-D
  // average divided by the height and width extents): the padding within
  // [-pad begin, in + pad end) with countIncludePad, the input alone
  // without.
  SmallVector<double> depthScale;
  if (!isMax)
    for (int64_t o = 0; o < depths; ++o) {
      int64_t start = o * stride - pads[0];
      int64_t end = std::min(start + window, in + pads[3]);
      int64_t count = countIncludePad
                          ? end - start
                          : std::min(end, in) - std::max<int64_t>(start, 0);
      depthScale.push_back(1.0 / static_cast<double>(count));
    }
  return restoreDepth(n, combined, xShape[0], depths, depthScale);
}
