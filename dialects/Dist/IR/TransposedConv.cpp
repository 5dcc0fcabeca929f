//===- TransposedConv.cpp - Transposed convolution out of dist ops --------===//

#include "dialects/Dist/IR/TransposedConv.h"

using namespace mlir;
using namespace mlir::dist;

Value mlir::dist::swapGrouped(DistBuilder &g, Value value, int64_t groups) {
  ArrayRef<int64_t> shape = shapeOf(value);
  int64_t a = shape[0], b = shape[1] / groups;
  SmallVector<int64_t> split = {a, groups, b}, perm = {2, 1, 0};
  SmallVector<int64_t> joined = {b, groups * a};
  for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d) {
    split.push_back(shape[d]);
    perm.push_back(d + 1);
    joined.push_back(shape[d]);
  }
  if (groups == 1)
    return g.transpose(value, {1, 0, 2, 3});
  return g.reshape(g.transpose(g.reshape(value, split), perm), joined);
}

Value mlir::dist::buildTransposedConv2D(DistBuilder &g, Value x, Value weight,
                                        ArrayRef<int64_t> resultShape,
                                        ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> pads,
                                        ArrayRef<int64_t> dilations,
                                        int64_t groups) {
  ArrayRef<int64_t> xShape = shapeOf(x), wShape = shapeOf(weight);
  int64_t n = xShape[0], f = xShape[1];
  // Spread x out by the stride.
  SmallVector<int64_t> spreadShape = {n, f, (xShape[2] - 1) * strides[0] + 1,
                                      (xShape[3] - 1) * strides[1] + 1};
  Value spread = x;
  if (strides[0] != 1 || strides[1] != 1) {
    Type type = RankedTensorType::get(spreadShape, elementTypeOf(x));
    spread = InsertSliceOp::create(
        g.getBuilder(), g.getLoc(), x, g.zeros(type),
        ArrayRef<int64_t>{0, 0, 0, 0},
        ArrayRef<int64_t>{1, 1, strides[0], strides[1]});
  }
  // Flip the kernel spatially and swap its F and C within each group.
  Value flipped = g.slice(weight, {0, 0, wShape[2] - 1, wShape[3] - 1},
                          {1, 1, -1, -1}, wShape);
  Value kernel =
      g.transpose(swapGrouped(g, g.transpose(flipped, {1, 0, 2, 3}), groups),
                  {1, 0, 2, 3});
  // Result row h reads spread rows h + pad_begin - kh * d: correlating with
  // the flipped kernel, that is a padding of d*(k-1) - pad_begin before
  // and whatever reaches the result's end after, each clamped at zero and
  // the excess cropped after.
  SmallVector<int64_t> convPads(4), offsets(2);
  for (int d = 0; d < 2; ++d) {
    int64_t before = dilations[d] * (wShape[2 + d] - 1) - pads[d];
    int64_t after = resultShape[2 + d] - spreadShape[2 + d] + pads[d];
    convPads[d] = std::max<int64_t>(0, before);
    convPads[d + 2] = std::max<int64_t>(0, after);
    offsets[d] = convPads[d] - before;
  }
  Value full = Conv2DOp::create(g.getBuilder(), g.getLoc(), spread, kernel,
                                Value(), ArrayRef<int64_t>{1, 1},
                                ArrayRef<int64_t>(convPads), dilations, groups);
  return g.slice(full, {0, 0, offsets[0], offsets[1]}, {1, 1, 1, 1},
                 resultShape);
}
