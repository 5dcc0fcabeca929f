//===- ConvertLayout.cpp - ONNX DepthToSpace, SpaceToDepth, Tile, Pad -----===//
//
// Data movement that is a reshape, a transpose or a broadcast and a reshape;
// Pad as slices and a concatenation along each padded axis (so its gradient
// is theirs).
//
//===----------------------------------------------------------------------===//

#include "passes/Import/NodeImporter.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// reshape(x, split) -> transpose(perm) -> reshape(merged).
static LogicalResult bindShuffle(NodeImporter &n, Value x,
                                 ArrayRef<int64_t> split,
                                 ArrayRef<int64_t> perm,
                                 ArrayRef<int64_t> merged) {
  Value t = n.buildValue<TransposeOp>(n.reshape(x, split), perm);
  if (!t)
    return failure();
  n.setOutput(0, n.reshape(t, merged));
  return success();
}

/// The NCHW input and block size of DepthToSpace/SpaceToDepth, checked.
static FailureOr<std::pair<Value, int64_t>> blockedInput(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t block = n.intAttr("blocksize", 0);
  if (type.getRank() != 4)
    return n.emitError() << "input must be N x C x H x W, got " << type,
           failure();
  if (block <= 0)
    return n.emitError() << "blocksize must be positive, got " << block,
           failure();
  return std::make_pair(x, block);
}

static LogicalResult convertDepthToSpace(NodeImporter &n) {
  FailureOr<std::pair<Value, int64_t>> in = blockedInput(n);
  if (failed(in))
    return failure();
  auto [x, b] = *in;
  ArrayRef<int64_t> s = cast<RankedTensorType>(x.getType()).getShape();
  if (s[1] % (b * b) != 0)
    return n.emitError() << "channels (" << s[1]
                         << ") must be a multiple of blocksize^2 (" << b * b
                         << ")",
           failure();
  int64_t c = s[1] / (b * b);
  SmallVector<int64_t> merged = {s[0], c, s[2] * b, s[3] * b};
  if (n.stringAttr("mode", "DCR") == "CRD")
    return bindShuffle(n, x, {s[0], c, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3},
                       merged);
  return bindShuffle(n, x, {s[0], b, b, c, s[2], s[3]}, {0, 3, 4, 1, 5, 2},
                     merged);
}

static LogicalResult convertSpaceToDepth(NodeImporter &n) {
  FailureOr<std::pair<Value, int64_t>> in = blockedInput(n);
  if (failed(in))
    return failure();
  auto [x, b] = *in;
  ArrayRef<int64_t> s = cast<RankedTensorType>(x.getType()).getShape();
  if (s[2] % b != 0 || s[3] % b != 0)
    return n.emitError() << "height and width (" << s[2] << ", " << s[3]
                         << ") must be multiples of blocksize (" << b << ")",
           failure();
  return bindShuffle(n, x, {s[0], s[1], s[2] / b, b, s[3] / b, b},
                     {0, 3, 5, 1, 2, 4},
                     {s[0], s[1] * b * b, s[2] / b, s[3] / b});
}

/// Tile: each dimension d repeated r times is a broadcast of [1, d] to
/// [r, d] flattened, done for all dimensions at once.
static LogicalResult convertTile(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  FailureOr<SmallVector<int64_t>> repeats = n.constantShape(1, "repeats");
  if (failed(repeats))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  if (static_cast<int64_t>(repeats->size()) != type.getRank())
    return n.emitError() << "repeats has " << repeats->size()
                         << " entries for an input of rank " << type.getRank(),
           failure();
  SmallVector<int64_t> interleaved, broadcast, tiled;
  for (auto [d, r] : llvm::zip(type.getShape(), *repeats)) {
    interleaved.append({1, d});
    broadcast.append({r, d});
    tiled.push_back(r * d);
  }
  Value spread = n.reshape(x, interleaved);
  if (ArrayRef<int64_t>(broadcast) != ArrayRef<int64_t>(interleaved))
    spread = n.create<BroadcastOp>(type.clone(broadcast), spread);
  n.setOutput(0, n.reshape(spread, tiled));
  return success();
}

/// `x` padded along `axis` by `before` and `after` elements (negative:
/// cropped) in `mode`: constant (`fill`), edge (the first or last element
/// repeated) or reflect (mirrored, without the edge element).
static Value padAxis(NodeImporter &n, Value x, int64_t axis, int64_t before,
                     int64_t after, StringRef mode, Attribute fill) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  auto slice = [&](Value v, int64_t start, int64_t stride, int64_t count) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> starts(rank, 0), strides(rank, 1),
        shape(t.getShape());
    starts[axis] = start;
    strides[axis] = stride;
    shape[axis] = count;
    return n.create<SliceOp>(t.clone(shape), v,
                             n.builder.getDenseI64ArrayAttr(starts),
                             n.builder.getDenseI64ArrayAttr(strides))
        .getResult();
  };
  int64_t size = type.getDimSize(axis);
  if (before < 0 || after < 0) {
    int64_t from = std::max<int64_t>(-before, 0);
    size -= from + std::max<int64_t>(-after, 0);
    x = slice(x, from, 1, size);
    before = std::max<int64_t>(before, 0);
    after = std::max<int64_t>(after, 0);
  }
  if (before == 0 && after == 0)
    return x;
  auto block = [&](bool first, int64_t count) -> Value {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[axis] = count;
    if (mode == "edge")
      return n.create<BroadcastOp>(t.clone(shape),
                                   slice(x, first ? 0 : size - 1, 1, 1))
          .getResult();
    if (mode == "reflect")
      return first ? slice(x, count, -1, count)
                   : slice(x, size - 2, -1, count);
    return n.create<ConstantOp>(
                DenseElementsAttr::get(t.clone(shape), fill))
        .getResult();
  };
  SmallVector<Value> pieces;
  if (before > 0)
    pieces.push_back(block(true, before));
  pieces.push_back(x);
  if (after > 0)
    pieces.push_back(block(false, after));
  return n.buildValue<ConcatOp>(pieces, axis);
}

static LogicalResult convertPad(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  std::string mode = n.stringAttr("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return n.unsupported("mode '" + mode +
                         "' (constant, edge and reflect are supported)");
  SmallVector<int64_t> pads;
  Attribute fill = n.builder.getZeroAttr(type.getElementType());
  if (n.opset < 11) {
    pads = n.intsAttr("pads").value_or(SmallVector<int64_t>());
    if (isa<FloatType>(type.getElementType()))
      fill = n.builder.getFloatAttr(type.getElementType(),
                                    n.floatAttr("value", 0.0f));
  } else {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "pads");
    if (failed(given))
      return failure();
    pads = *given;
    if (n.hasInput(2)) {
      DenseElementsAttr value = n.constantInput(2);
      if (!value || value.getNumElements() != 1)
        return n.emitError() << "input 'constant_value' must be one value "
                                "known at import time",
               failure();
      fill = *value.getValues<Attribute>().begin();
    }
  }
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (n.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(3, "axes");
    if (failed(given))
      return failure();
    axes.clear();
    for (int64_t a : *given) {
      FailureOr<int64_t> axis = n.normalizeAxis(a, rank, "axes");
      if (failed(axis))
        return failure();
      axes.push_back(*axis);
    }
  }
  if (pads.size() != 2 * axes.size())
    return n.emitError() << "pads has " << pads.size() << " values for "
                         << axes.size() << " axes (it needs two per axis)",
           failure();
  Value x = n.input(0);
  if (!x)
    return failure();
  for (auto [i, axis] : llvm::enumerate(axes)) {
    int64_t before = pads[i], after = pads[i + axes.size()],
            size = type.getDimSize(axis);
    // What is left after the crops is what edge and reflect read.
    size += std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0);
    if (size < 0)
      return n.emitError() << "pads crop more than axis " << axis
                           << "'s " << type.getDimSize(axis) << " elements",
             failure();
    if (mode == "reflect" && (before >= size || after >= size))
      return n.emitError() << "reflect pads of axis " << axis
                           << " must be smaller than its size " << size,
             failure();
    if (mode == "edge" && size == 0 && (before > 0 || after > 0))
      return n.emitError() << "edge pads an empty axis " << axis,
             failure();
    x = padAxis(n, x, axis, before, after, mode, fill);
    if (!x)
      return failure();
  }
  n.setOutput(0, x);
  return success();
}

void mlir::dist::onnx_import::addLayoutConverters(ConverterTable &table) {
  table["Pad"] = convertPad;
  table["DepthToSpace"] = convertDepthToSpace;
  table["SpaceToDepth"] = convertSpaceToDepth;
  table["Tile"] = convertTile;
}
