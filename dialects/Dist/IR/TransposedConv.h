//===- TransposedConv.h - Transposed convolution out of dist ops -*- C++ -*-===//
//
// A transposed convolution is the gradient of a convolution with respect to
// its input. Both the gradient of dist.conv2d and the importer's ONNX
// ConvTranspose build it here, from dist.insert_slice (spreading the input
// out by the stride), a dist.conv2d with the flipped kernel, and a slice.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_TRANSPOSEDCONV_H
#define DIALECTS_DIST_IR_TRANSPOSEDCONV_H

#include "dialects/Dist/IR/DistBuilder.h"

namespace mlir::dist {

/// Swaps the two dimensions of every group of dimension 0 and 1 of `value`:
/// [A, G*B, ...] becomes [B, G*A, ...] with piece (a, g*B + b) moved to
/// (b, g*A + a). With one group, a transpose of the first two dimensions.
Value swapGrouped(DistBuilder &g, Value value, int64_t groups);

/// The transposed convolution of `x` by `weight`, in the terms of the
/// convolution it transposes: with `weight` [F, C/G, KH, KW], `x` [N, F,
/// OH, OW] and `resultShape` [N, C, H, W], returns
///   y[n, c, h, w] = sum x[n, f, oh, ow] * weight[f, c', kh, kw]
/// over h = oh * stride + kh * dilation - pad_begin (and the same for w),
/// c' being c within its group and f ranging over that group. That is the
/// gradient with respect to the input of
/// `dist.conv2d(input : resultShape, weight)` with these attributes, and
/// ONNX ConvTranspose of `x` by `weight`. `pads` are [top, left, bottom,
/// right] of that convolution; any `resultShape` is allowed (positions no
/// product reaches are 0, products falling outside are dropped).
Value buildTransposedConv2D(DistBuilder &g, Value x, Value weight,
                            ArrayRef<int64_t> resultShape,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                            ArrayRef<int64_t> dilations, int64_t groups);

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_TRANSPOSEDCONV_H
