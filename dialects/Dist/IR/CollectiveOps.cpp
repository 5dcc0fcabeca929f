//===- CollectiveOps.cpp - Communication ops: checks ----------------------===//

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistOps.h"

using namespace mlir;
using namespace mlir::dist;

bool mlir::dist::isCollective(Operation *op) {
  return isa<AllReduceOp, AllGatherOp, ReduceScatterOp, ShardSliceOp,
             AllReduceStartOp, WaitOp, SendOp, RecvOp>(op);
}

int64_t mlir::dist::tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return 0;
  return t.getNumElements() *
         std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

LogicalResult AllReduceOp::verify() {
  int64_t size;
  if (failed(verifyCollectiveAxes(*this, getAxes(), size)))
    return failure();
  if (getKind() == CollectiveKind::mean &&
      !isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("mean needs a float tensor");
  return success();
}

/// Checks that `result` is `input` with dimension `dim` scaled by `size`
/// (`grow`) or divided by it.
static LogicalResult verifyResizedDim(Operation *op, Value input, Value result,
                                      int64_t dim, ArrayRef<int64_t> axes,
                                      bool grow) {
  int64_t size;
  if (failed(verifyCollectiveAxes(op, axes, size)))
    return failure();
  auto in = cast<RankedTensorType>(input.getType());
  auto out = cast<RankedTensorType>(result.getType());
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError("dimension ")
           << dim << " is out of range for rank " << in.getRank();
  if (!grow && in.getDimSize(dim) % size != 0)
    return op->emitOpError("dimension ")
           << dim << " of size " << in.getDimSize(dim)
           << " does not split into " << size << " equal blocks";
  SmallVector<int64_t> shape(in.getShape());
  shape[dim] = grow ? shape[dim] * size : shape[dim] / size;
  RankedTensorType expected = in.clone(shape);
  if (out != expected)
    return op->emitOpError("result type ")
           << out << " should be " << expected << " for a group of " << size;
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyResizedDim(*this, getInput(), getResult(), getDim(), getAxes(),
                          /*grow=*/true);
}

LogicalResult ReduceScatterOp::verify() {
  if (getKind() == CollectiveKind::mean &&
      !isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("mean needs a float tensor");
  return verifyResizedDim(*this, getInput(), getResult(), getDim(), getAxes(),
                          /*grow=*/false);
}

LogicalResult ShardSliceOp::verify() {
  return verifyResizedDim(*this, getInput(), getResult(), getDim(), getAxes(),
                          /*grow=*/false);
}

void AllReduceStartOp::getAsmResultNames(OpAsmSetValueNameFn setName) {
  setName(getBucket(), "bucket");
  setName(getRequest(), "request");
}

LogicalResult AllReduceStartOp::verify() {
  int64_t size;
  if (failed(verifyCollectiveAxes(*this, getAxes(), size)))
    return failure();
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  Type element = getBucket().getType().getElementType();
  int64_t total = 0;
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != element)
      return emitOpError("input of type ")
             << t << " differs from the bucket's element type " << element;
    total += t.getNumElements();
  }
  auto bucket = cast<RankedTensorType>(getBucket().getType());
  if (bucket.getRank() != 1 || bucket.getDimSize(0) != total)
    return emitOpError("bucket type ")
           << bucket << " should be 1-D with the inputs' " << total
           << " elements";
  if (getKind() == CollectiveKind::mean && !isa<FloatType>(element))
    return emitOpError("mean needs a float tensor");
  auto wait = getBucket().hasOneUse()
                  ? dyn_cast<WaitOp>(*getBucket().getUsers().begin())
                  : WaitOp();
  if (!wait)
    return emitOpError("bucket must have exactly one use, a dist.wait");
  if (!getRequest().hasOneUse() || wait.getRequest() != getRequest())
    return emitOpError("request must have exactly one use, the dist.wait of "
                       "the bucket");
  return success();
}

LogicalResult WaitOp::verify() {
  auto start = getBucket().getDefiningOp<AllReduceStartOp>();
  if (!start)
    return emitOpError("waits for a bucket no dist.all_reduce_start made");
  if (getRequest() != start.getRequest())
    return emitOpError("request is not the one the bucket's "
                       "dist.all_reduce_start returned");
  if (start.getInputs().getTypes() != getResults().getTypes())
    return emitOpError("result types must be the started inputs' types");
  return success();
}

/// Checks a point-to-point op's axis, peer and tag against the mesh (when
/// the module has one yet).
static LogicalResult verifyPeer(Operation *op, int64_t axis, int64_t peer,
                                int64_t tag) {
  if (axis < 0 || peer < 0 || tag < 0)
    return op->emitOpError("axis, peer and tag must be >= 0");
  MeshOp mesh = getMesh(op);
  if (!mesh)
    return success();
  ArrayRef<int64_t> shape = mesh.getShape();
  if (axis >= static_cast<int64_t>(shape.size()))
    return op->emitOpError("axis ")
           << axis << " is not an axis of the mesh (it has " << shape.size()
           << ")";
  if (peer >= shape[axis])
    return op->emitOpError("peer ")
           << peer << " is not a coordinate of mesh axis " << axis
           << " (size " << shape[axis] << ")";
  return success();
}

LogicalResult SendOp::verify() {
  return verifyPeer(*this, getAxis(), getPeer(), getTag());
}

LogicalResult RecvOp::verify() {
  return verifyPeer(*this, getAxis(), getPeer(), getTag());
}
