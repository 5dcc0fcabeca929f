//===- Conv3D.h - 3-D and dilated windows from 2-D ops, slices -*- C++ -*-===//
//
// dist's convolution and pooling ops are 2-D. A 3-D one is a 2-D one per
// position of the depth window: the input, padded along depth, is sliced at
// each kernel depth `kd` (every output depth's `kd`-th input slice, one
// strided slice), the output depths fold into the batch, and the 2-D op runs
// on `[N * Do, C, H, W]` with the kernel's `kd`-th plane. The results add up
// (convolution, average) or take the maximum (max pooling), so the cost is
// the 3-D op's, in KD ops whatever the depth, and every op has a gradient.
//
// A dilated max pooling (which dist.max_pool2d is not) is the maximum of
// KH * KW strided slices of the input padded with minus infinity.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_IMPORT_CONV3D_H
#define PASSES_IMPORT_CONV3D_H

#include "passes/Import/NodeImporter.h"

namespace mlir::dist::onnx_import {

/// Conv of `x` [N, C, D, H, W] with `w` [F, C / groups, KD, KH, KW] (and
/// `bias` [F], or null); `strides` and `dilations` have 3 values, `pads` 6
/// (the begins, then the ends). Null after an error at the node.
Value buildConv3D(NodeImporter &n, Value x, Value w, Value bias,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                  ArrayRef<int64_t> dilations, int64_t groups);

/// ConvTranspose of `x` [N, Cin, D, H, W] by `w` [Cin, Cout / groups, KD,
/// KH, KW] to `resultShape` [N, Cout, D', H', W'] (which the caller derives
/// from pads, output_padding or output_shape), without the bias: per kernel
/// depth, a 2-D transposed convolution of every input plane, written at
/// output depths `id * stride + kd * dilation - pad` by a strided
/// `dist.insert_slice` and added up.
Value buildConvTranspose3D(NodeImporter &n, Value x, Value w,
                           ArrayRef<int64_t> resultShape,
                           ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                           ArrayRef<int64_t> dilations, int64_t groups);

/// `x` with `before` and `after` elements of `fill` around dimension `axis`
/// (itself when both are 0). Null after an error at the node.
Value padAlong(NodeImporter &n, Value x, int64_t axis, int64_t before,
               int64_t after, double fill);

/// MaxPool of `x` [N, C, H, W] with `dilations` (2 values) other than 1:
/// the maximum of one strided slice per window position. `pads` are [top,
/// left, bottom, right]. Null after an error at the node.
Value buildDilatedMaxPool2D(NodeImporter &n, Value x, ArrayRef<int64_t> kernel,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                            ArrayRef<int64_t> dilations, bool ceilMode);

/// MaxPool (`isMax`) or AveragePool of `x` [N, C, D, H, W] over a `kernel`
/// window (3 values), as ONNX defines them with `ceilMode` and, for the
/// average, `countIncludePad`. Null after an error at the node.
Value buildPool3D(NodeImporter &n, Value x, bool isMax,
                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> pads, bool ceilMode, bool countIncludePad);

} // namespace mlir::dist::onnx_import

#endif // PASSES_IMPORT_CONV3D_H
