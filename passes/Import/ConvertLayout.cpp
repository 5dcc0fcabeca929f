//===- ConvertLayout.cpp - ONNX DepthToSpace, SpaceToDepth, Tile ----------===//
//
// Data movement that is a reshape, a transpose or a broadcast and a reshape.
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

void mlir::dist::onnx_import::addLayoutConverters(ConverterTable &table) {
  table["DepthToSpace"] = convertDepthToSpace;
  table["SpaceToDepth"] = convertSpaceToDepth;
  table["Tile"] = convertTile;
}
