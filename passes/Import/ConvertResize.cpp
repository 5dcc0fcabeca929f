//===- ConvertResize.cpp - ONNX Resize and Upsample to dist ---------------===//
//
// Every mode of Resize is separable and linear: along each resized axis,
// output position o is a weighted sum of a few input positions (its
// "taps"), whose indices and weights follow from the sizes and the
// attributes alone. They are computed here, in double precision, and the
// resize becomes ops dist already differentiates, axis by axis:
// - nearest neighbours repeating each position r times: a broadcast and a
//   reshape (gradient: a sum);
// - other nearest neighbours: a dist.gather of constant indices;
// - linear and cubic: a product with a constant `in x out` matrix of the
//   weights (gradient: the transposed product).
// tf_crop_and_resize's extrapolated positions take the extrapolation value:
// their rows of the matrix are zero and the value is added.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

namespace {

/// How output positions map to input coordinates and taps.
struct ResizeAttrs {
  std::string mode;       // nearest, linear, cubic
  std::string transform;  // coordinate_transformation_mode
  std::string nearest;    // nearest_mode
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
};

/// One resized axis: `taps` weights per output position, with the input
/// index of each (weight 0 where a position has fewer).
struct AxisTaps {
  int64_t in = 0, out = 0, taps = 0;
  SmallVector<int64_t> index;
  SmallVector<double> weight;
  /// tf_crop_and_resize: positions outside the input.
  SmallVector<bool> outside;
};

} // namespace

/// The input coordinate of output position `o` (ONNX's
/// coordinate_transformation_mode). `out` is the resized length: with
/// scales, the input length times the scale, not rounded (as the ONNX
/// reference has it: align_corners downsampling by 0.6 from 4 positions
/// maps to 2.4, not 2).
static double sourceCoordinate(const ResizeAttrs &a, int64_t o, int64_t in,
                               double out, double scale, double roiStart,
                               double roiEnd) {
  double x = static_cast<double>(o);
  const std::string &t = a.transform;
  if (t == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (t == "half_pixel_symmetric") {
    double adjustment = out / (scale * in);
    double center = in / 2.0;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  if (t == "pytorch_half_pixel")
    return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (t == "align_corners")
    return out == 1 ? 0.0 : x * (in - 1) / (out - 1);
  if (t == "asymmetric")
    return x / scale;
  if (t == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  // tf_crop_and_resize
  return out > 1 ? roiStart * (in - 1) + x * (roiEnd - roiStart) * (in - 1) /
                                             (out - 1)
                 : 0.5 * (roiStart + roiEnd) * (in - 1);
}

/// Cubic convolution weights of the four taps floor(x)-1 .. floor(x)+2 at
/// fraction `t` of the way from floor(x), for coefficient `A`.
static std::array<double, 4> cubicWeights(double t, double A) {
  auto far = [&](double s) { return ((A * s - 5 * A) * s + 8 * A) * s - 4 * A; };
  auto near = [&](double s) { return ((A + 2) * s - (A + 3)) * s * s + 1; };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

/// The nearest input position to coordinate `x` (ONNX's nearest_mode).
static int64_t nearestIndex(const std::string &mode, double x) {
  double f = std::floor(x);
  if (mode == "floor")
    return static_cast<int64_t>(f);
  if (mode == "ceil")
    return static_cast<int64_t>(std::ceil(x));
  if (x - f == 0.5)
    return static_cast<int64_t>(mode == "round_prefer_ceil" ? f + 1 : f);
  return static_cast<int64_t>(std::round(x));
}

static AxisTaps axisTaps(const ResizeAttrs &a, int64_t in, int64_t out,
                         double length, double scale, double roiStart,
                         double roiEnd) {
  AxisTaps axis;
  axis.in = in;
  axis.out = out;
  axis.taps = a.mode == "nearest" ? 1 : a.mode == "linear" ? 2 : 4;
  auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  for (int64_t o = 0; o < out; ++o) {
    double x = sourceCoordinate(a, o, in, length, scale, roiStart, roiEnd);
    bool outside =
        a.transform == "tf_crop_and_resize" && (x < 0 || x > in - 1);
    axis.outside.push_back(outside);
    if (a.mode == "nearest") {
      axis.index.push_back(clamp(nearestIndex(a.nearest, x)));
      axis.weight.push_back(outside ? 0.0 : 1.0);
      continue;
    }
    double f = std::floor(x), t = x - f;
    int64_t first = static_cast<int64_t>(f);
    SmallVector<double, 4> w;
    if (a.mode == "linear") {
      w = {1 - t, t};
    } else {
      std::array<double, 4> c = cubicWeights(t, a.cubicA);
      w.assign(c.begin(), c.end());
      first -= 1;
    }
    // exclude_outside: taps outside the input weigh nothing, the others
    // are renormalized; otherwise they read the edge.
    if (a.excludeOutside) {
      double sum = 0;
      for (size_t k = 0; k < w.size(); ++k) {
        int64_t i = first + static_cast<int64_t>(k);
        if (i < 0 || i >= in)
          w[k] = 0;
        sum += w[k];
      }
      for (double &v : w)
        v = sum != 0 ? v / sum : 0;
    }
    for (size_t k = 0; k < w.size(); ++k) {
      axis.index.push_back(clamp(first + static_cast<int64_t>(k)));
      axis.weight.push_back(outside ? 0.0 : w[k]);
    }
  }
  return axis;
}

/// Whether the axis only copies: every output position reads the input
/// position of the same index with weight 1.
static bool isIdentity(const AxisTaps &axis) {
  if (axis.in != axis.out)
    return false;
  for (int64_t o = 0; o < axis.out; ++o) {
    for (int64_t k = 0; k < axis.taps; ++k) {
      double w = axis.weight[o * axis.taps + k];
      int64_t i = axis.index[o * axis.taps + k];
      if (w != 0 && (i != o || w != 1))
        return false;
    }
    if (axis.outside[o])
      return false;
  }
  return true;
}

/// For nearest neighbours that repeat every input position `r` times in
/// order (upsampling by an integer factor), `r`; 0 otherwise.
static int64_t repeatFactor(const AxisTaps &axis) {
  if (axis.taps != 1 || axis.out % axis.in != 0 ||
      llvm::is_contained(axis.outside, true))
    return 0;
  int64_t r = axis.out / axis.in;
  for (int64_t o = 0; o < axis.out; ++o)
    if (axis.index[o] != o / r)
      return 0;
  return r;
}

/// A constant of `type` holding `values` (converted to its element type).
static Value floatConstant(NodeImporter &n, RankedTensorType type,
                           ArrayRef<double> values) {
  auto elementType = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> converted;
  converted.reserve(values.size());
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(elementType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    converted.push_back(f);
  }
  return n.create<ConstantOp>(DenseElementsAttr::get(type, converted));
}

/// `x` resized along `axis` as `taps` says.
static Value resizeAxis(NodeImporter &n, const ResizeAttrs &a, Value x,
                        int64_t axis, const AxisTaps &taps) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t rank = type.getRank();
  SmallVector<int64_t> resultShape(shape);
  resultShape[axis] = taps.out;

  if (int64_t r = repeatFactor(taps)) {
    SmallVector<int64_t> split(shape), repeated(shape);
    split.insert(split.begin() + axis + 1, 1);
    repeated.insert(repeated.begin() + axis + 1, r);
    Value spread =
        n.create<BroadcastOp>(type.clone(repeated), n.reshape(x, split));
    return n.reshape(spread, resultShape);
  }
  if (taps.taps == 1 && !llvm::is_contained(taps.outside, true)) {
    auto indexType =
        RankedTensorType::get({taps.out}, n.builder.getI64Type());
    Value indices = n.create<ConstantOp>(
        DenseElementsAttr::get(indexType, ArrayRef<int64_t>(taps.index)));
    return n.buildValue<GatherOp>(x, indices, static_cast<uint64_t>(axis),
                                  IntegerAttr());
  }
  if (!isa<FloatType>(type.getElementType()))
    return (void)(n.emitError()
                  << "mode '" << a.mode
                  << "' (and extrapolation) needs a floating-point input, got "
                  << type),
           Value();

  // The weights as an `in x out` matrix, applied along the last dimension
  // (moved there and back by transposes when it is another).
  SmallVector<double> matrix(taps.in * taps.out, 0.0);
  for (int64_t o = 0; o < taps.out; ++o)
    for (int64_t k = 0; k < taps.taps; ++k)
      matrix[taps.index[o * taps.taps + k] * taps.out + o] +=
          taps.weight[o * taps.taps + k];
  Value weights = floatConstant(
      n, RankedTensorType::get({taps.in, taps.out}, type.getElementType()),
      matrix);
  SmallVector<int64_t> toLast;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      toLast.push_back(d);
  toLast.push_back(axis);
  bool last = axis == rank - 1;
  Value moved = last ? x : n.buildValue<TransposeOp>(x, toLast);
  if (!moved)
    return {};
  // dist.matmul wants rank 2 at least.
  SmallVector<int64_t> movedShape(cast<RankedTensorType>(moved.getType()).getShape());
  if (rank == 1)
    moved = n.reshape(moved, {1, taps.in});
  Value product = n.buildValue<MatmulOp>(moved, weights, false, false);
  if (!product)
    return {};
  movedShape.back() = taps.out;
  product = n.reshape(product, movedShape);
  if (llvm::is_contained(taps.outside, true)) {
    SmallVector<double> fill;
    for (bool outside : taps.outside)
      fill.push_back(outside ? a.extrapolation : 0.0);
    product = n.buildValue<AddOp>(
        product, floatConstant(n,
                               RankedTensorType::get({taps.out},
                                                     type.getElementType()),
                               fill));
    if (!product)
      return {};
  }
  if (last)
    return product;
  SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  return n.buildValue<TransposeOp>(product, back);
}

/// Input `i` as floats known at import time (or nullopt when absent).
static FailureOr<std::optional<SmallVector<double>>>
constantFloats(NodeImporter &n, unsigned i, StringRef what) {
  if (!n.hasInput(i))
    return std::optional<SmallVector<double>>();
  DenseElementsAttr c = n.constantInput(i);
  if (!c || !isa<FloatType>(c.getElementType()))
    return (void)n.unsupported(Twine(what) +
                               " must be floats known at import time (a "
                               "Constant or an initializer)"),
           failure();
  SmallVector<double> values;
  for (const APFloat &v : c.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  if (values.empty())
    return std::optional<SmallVector<double>>();
  return std::optional<SmallVector<double>>(values);
}

/// Limits on one resized axis, so that a malformed size is an error, not
/// an allocation that fails.
static constexpr int64_t kMaxResizedLength = int64_t(1) << 24;
static constexpr int64_t kMaxWeights = int64_t(1) << 26;

/// Resize (opset 10 on) and Upsample (opset 7 to 9).
static LogicalResult convertResize(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  if (!type.hasStaticShape())
    return n.emitError() << "the input needs a static shape, got " << type,
           failure();
  int64_t rank = type.getRank();
  bool upsample = n.node.op_type() == "Upsample";
  bool modern = !upsample && n.opset >= 11;

  ResizeAttrs a;
  a.mode = n.stringAttr("mode", "nearest");
  // Before opset 11 coordinates are asymmetric and nearest rounds down.
  a.transform = modern ? n.stringAttr("coordinate_transformation_mode",
                                      "half_pixel")
                       : "asymmetric";
  a.nearest = modern ? n.stringAttr("nearest_mode", "round_prefer_floor")
                     : "floor";
  a.cubicA = n.floatAttr("cubic_coeff_a", -0.75f);
  a.excludeOutside = n.intAttr("exclude_outside", 0) != 0;
  a.extrapolation = n.floatAttr("extrapolation_value", 0.0f);
  if (a.mode == "bilinear") // Upsample-7's spelling
    a.mode = "linear";
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic")
    return n.emitError() << "unknown mode '" << a.mode << "'", failure();
  static constexpr StringRef transforms[] = {
      "half_pixel",   "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners", "asymmetric",          "tf_half_pixel_for_nn",
      "tf_crop_and_resize"};
  if (!llvm::is_contained(transforms, a.transform))
    return n.emitError() << "unknown coordinate_transformation_mode '"
                         << a.transform << "'",
           failure();
  static constexpr StringRef nearestModes[] = {
      "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(nearestModes, a.nearest))
    return n.emitError() << "unknown nearest_mode '" << a.nearest << "'",
           failure();
  if (n.intAttr("antialias", 0) != 0 && a.mode != "nearest")
    return n.unsupported("antialias is not supported; export without it");
  if (n.stringAttr("keep_aspect_ratio_policy", "stretch") != "stretch")
    return n.unsupported("only keep_aspect_ratio_policy 'stretch' is "
                         "supported; give the output sizes instead");

  // The resized axes (opset 18's `axes`; all by default).
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (std::optional<SmallVector<int64_t>> given = n.intsAttr("axes")) {
    axes.clear();
    for (int64_t axis : *given) {
      FailureOr<int64_t> d = n.normalizeAxis(axis, rank, "axes");
      if (failed(d))
        return failure();
      axes.push_back(*d);
    }
  }

  // Scales, sizes and the region of interest.
  std::optional<SmallVector<double>> scales, roi;
  std::optional<SmallVector<int64_t>> sizes;
  if (upsample && n.opset < 9) {
    const onnx::AttributeProto *attr = n.attribute("scales");
    if (!attr)
      return n.emitError() << "the scales attribute is required", failure();
    scales.emplace(attr->floats().begin(), attr->floats().end());
  } else {
    unsigned scalesInput = modern ? 2 : 1;
    FailureOr<std::optional<SmallVector<double>>> s =
        constantFloats(n, scalesInput, "scales");
    if (failed(s))
      return failure();
    scales = *s;
    if (modern && n.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> z = n.constantInts(3, "sizes");
      if (failed(z))
        return failure();
      if (!z->empty())
        sizes = *z;
    }
    if (modern && a.transform == "tf_crop_and_resize") {
      FailureOr<std::optional<SmallVector<double>>> r =
          constantFloats(n, 1, "roi");
      if (failed(r))
        return failure();
      roi = *r;
    }
  }
  size_t count = axes.size();
  if (scales.has_value() == sizes.has_value())
    return n.emitError() << "exactly one of scales and sizes must be given",
           failure();
  if ((scales && scales->size() != count) || (sizes && sizes->size() != count))
    return n.emitError() << "scales or sizes must have one value per resized "
                            "axis ("
                         << count << ")",
           failure();
  if (roi && roi->size() != 2 * count)
    return n.emitError() << "roi must have two values per resized axis ("
                         << 2 * count << ")",
           failure();
  if (a.transform == "tf_crop_and_resize" && !roi)
    return n.emitError() << "tf_crop_and_resize needs the roi input",
           failure();

  // Resize the axes from the last to the first.
  Value result = x;
  for (size_t i = count; i-- > 0;) {
    int64_t axis = axes[i], in = type.getDimSize(axis);
    double start = roi ? (*roi)[i] : 0.0, end = roi ? (*roi)[i + count] : 1.0;
    int64_t out;
    double scale, length;
    if (sizes) {
      out = (*sizes)[i];
      scale = in > 0 ? static_cast<double>(out) / in : 1.0;
      length = static_cast<double>(out);
    } else {
      scale = (*scales)[i];
      if (!(scale > 0))
        return n.emitError() << "scales must be positive, got " << scale,
               failure();
      double extent = a.transform == "tf_crop_and_resize" ? end - start : 1.0;
      double scaled = std::floor(in * extent * scale);
      out = !(scaled >= 1) ? 0
            : scaled > double(kMaxResizedLength) ? kMaxResizedLength + 1
                                                 : static_cast<int64_t>(scaled);
      length = in * scale;
    }
    if (out < 1 || in < 1)
      return n.emitError() << "axis " << axis << " would resize from " << in
                           << " to " << out << " positions",
             failure();
    // The taps, and for weighted modes an in x out matrix, are built at
    // import time.
    bool weighted = a.mode != "nearest" || a.transform == "tf_crop_and_resize";
    if (out > kMaxResizedLength || (weighted && in * out > kMaxWeights))
      return n.emitError() << "axis " << axis << " would resize from " << in
                           << " to " << out
                           << " positions; at most " << kMaxResizedLength
                           << " positions and " << kMaxWeights
                           << " input-output pairs per axis are supported",
             failure();
    AxisTaps taps = axisTaps(a, in, out, length, scale, start, end);
    if (isIdentity(taps))
      continue;
    result = resizeAxis(n, a, result, axis, taps);
    if (!result)
      return failure();
  }
  n.setOutput(0, result);
  return success();
}

void mlir::dist::onnx_import::addResizeConverters(ConverterTable &table) {
  table["Resize"] = convertResize;
  table["Upsample"] = convertResize;
}
