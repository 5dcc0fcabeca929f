//===- CollectiveBufferization.cpp - Collectives become distrt calls -----===//
//
// Collectives (and dist.sparsify_top_k, a selection linalg cannot express)
// stay dist ops on tensors through convert-dist-to-linalg and become distrt
// calls (runtime/include/distrt/distrt.h, "Mesh and
// collectives") when one-shot bufferization meets them, through the
// BufferizableOpInterface models below. Each reads its input buffers at
// that point and writes a fresh buffer:
//
//   %r = dist.all_gather %x dim = 0 axes = [0] : ...
// becomes
//   %out = memref.alloc() : memref<...>
//   call @distrt_all_gather(dtype, ptr(buffer of %x), ptr(%out), outer,
//                           inner, mask)
//
// The bufferization analysis thus sees exactly when a collective reads and
// that it writes nothing it was given. A dist.all_reduce_start's request is
// the handle distrt_all_reduce_start returns; its dist.wait passes it to
// distrt_wait. (Lowering them earlier, to
// bufferization.to_buffer + calls on tensors, was wrong: to_buffer is pure,
// CSE merged two of one tensor, and the later call read a buffer that an
// in-place op had overwritten in between; docs/decisions.md, 22.)
//
//===----------------------------------------------------------------------===//
#include "dialects/Dist/Runtime/CollectiveBufferization.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/Runtime/BufferPointer.h"
#include "dialects/Dist/Runtime/RuntimeTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

/// distrt_dtype of an element type, or -1.
int32_t distrtDtype(Type t) {
  std::optional<distrt_dtype> dtype = runtimeDtype(t);
  return dtype ? static_cast<int32_t>(*dtype) : -1;
}

int64_t axesMask(ArrayRef<int64_t> axes) {
  int64_t mask = 0;
  for (int64_t a : axes)
    mask |= int64_t(1) << a;
  return mask;
}

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
Value i64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

/// The address of a buffer's first element.
Value pointerTo(OpBuilder &b, Location loc, Value memref) {
  return bufferPointer(b, loc, memref).first;
}

/// [outer, inner] of a tensor viewed around dimension `dim`: the product of
/// the dimensions before it, and the dimension times those after it.
std::pair<int64_t, int64_t> outerInner(RankedTensorType t, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < t.getRank(); ++d)
    (d < dim ? outer : inner) *= t.getDimSize(d);
  return {outer, inner};
}

/// distrt_dtype of a collective's element type; an unsigned integer type
/// made signless by convert-dist-to-linalg is marked with
/// DistDialect::kUnsignedAttrName.
int32_t collectiveDtype(Operation *op, Type t) {
  if (op->hasAttr(DistDialect::kUnsignedAttrName))
    t = IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth(),
                         IntegerType::Unsigned);
  return distrtDtype(t);
}

/// The identity-layout buffer type of a tensor type.
MemRefType contiguousType(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// A fresh contiguous buffer for a tensor of `tensorType`.
FailureOr<Value> allocate(OpBuilder &b, Location loc, Type tensorType,
                          const bufferization::BufferizationOptions &options) {
  return options.createAlloc(b, loc, contiguousType(tensorType), ValueRange{});
}

/// The buffer of `tensor` if it is contiguous, else a contiguous copy: the
/// runtime reads a pointer and an element count.
FailureOr<Value>
contiguousBuffer(RewriterBase &rewriter, Location loc, Value tensor,
                 const bufferization::BufferizationOptions &options,
                 const bufferization::BufferizationState &state) {
  FailureOr<Value> buffer =
      bufferization::getBuffer(rewriter, tensor, options, state);
  if (failed(buffer))
    return failure();
  if (cast<MemRefType>(buffer->getType()).getLayout().isIdentity())
    return *buffer;
  FailureOr<Value> copy = allocate(rewriter, loc, tensor.getType(), options);
  if (failed(copy) ||
      failed(options.createMemCpy(rewriter, loc, *buffer, *copy)))
    return failure();
  return *copy;
}

/// A collective's call: what it reads (`in`, contiguous) and the fresh
/// buffer it writes (`out`).
template <typename OpTy>
LogicalResult emitCall(RewriterBase &rewriter, OpTy op, Value in, Value out,
                       const bufferization::BufferizationOptions &options) {
  Location loc = op.getLoc();
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getResult().getType());
  int32_t dtype = collectiveDtype(op, inType.getElementType());
  if (dtype < 0)
    return op.emitOpError("has no runtime type for ")
           << inType.getElementType();
  Value mask = i64(rewriter, loc, axesMask(op.getAxes()));
  SmallVector<Value> args = {i32(rewriter, loc, dtype)};
  StringRef callee;
  if constexpr (std::is_same_v<OpTy, AllReduceOp>) {
    if (failed(options.createMemCpy(rewriter, loc, in, out)))
      return failure();
    callee = "distrt_all_reduce";
    args.append({i32(rewriter, loc, static_cast<int64_t>(op.getKind())),
                 pointerTo(rewriter, loc, out),
                 i64(rewriter, loc, inType.getNumElements()), mask});
  } else {
    // inner is the local block: the input's for a gather, the output's for
    // a scatter or slice.
    constexpr bool gather = std::is_same_v<OpTy, AllGatherOp>;
    auto [outer, inner] = outerInner(gather ? inType : outType, op.getDim());
    if constexpr (std::is_same_v<OpTy, ReduceScatterOp>) {
      callee = "distrt_reduce_scatter";
      args.push_back(i32(rewriter, loc, static_cast<int64_t>(op.getKind())));
    } else {
      callee = gather ? "distrt_all_gather" : "distrt_shard_slice";
    }
    args.append({pointerTo(rewriter, loc, in), pointerTo(rewriter, loc, out),
                 i64(rewriter, loc, outer), i64(rewriter, loc, inner), mask});
  }
  func::CallOp::create(rewriter, loc, callee, TypeRange{}, args);
  return success();
}

/// What every collective tells the bufferization analysis: it reads its
/// tensor operands, writes none of them, and its results are new buffers.
template <typename Model, typename OpTy>
struct CollectiveModelBase
    : bufferization::BufferizableOpInterface::ExternalModel<Model, OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const bufferization::AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return false;
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *, OpOperand &,
                    const bufferization::AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  FailureOr<bufferization::BufferLikeType> getBufferType(
      Operation *, Value value, const bufferization::BufferizationOptions &,
      const bufferization::BufferizationState &, SmallVector<Value> &) const {
    return cast<bufferization::BufferLikeType>(contiguousType(value.getType()));
  }
};

/// all_reduce, all_gather, reduce_scatter, shard_slice.
template <typename OpTy>
struct CollectiveModel : CollectiveModelBase<CollectiveModel<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    Location loc = op->getLoc();
    FailureOr<Value> in =
        contiguousBuffer(rewriter, loc, op->getOperand(0), options, state);
    if (failed(in))
      return failure();
    FailureOr<Value> out =
        allocate(rewriter, loc, op->getResult(0).getType(), options);
    if (failed(out) ||
        failed(emitCall(rewriter, cast<OpTy>(op), *in, *out, options)))
      return failure();
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

/// `buffer` (identity layout) seen as a 1-D buffer of its elements.
Value flatView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t n = type.getNumElements();
  return memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({n}, type.getElementType()), buffer,
      /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{n},
      /*strides=*/ArrayRef<int64_t>{1});
}

/// Elements [offset, offset + n) of a 1-D buffer.
Value range(OpBuilder &b, Location loc, Value flat, int64_t offset, int64_t n) {
  return memref::SubViewOp::create(b, loc, flat, ArrayRef<int64_t>{offset},
                                   ArrayRef<int64_t>{n}, ArrayRef<int64_t>{1});
}

/// all_reduce_start: the inputs copied into one fresh buffer, the bucket,
/// whose non-blocking all-reduce distrt starts.
struct AllReduceStartModel
    : CollectiveModelBase<AllReduceStartModel, AllReduceStartOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto start = cast<AllReduceStartOp>(op);
    Location loc = op->getLoc();
    auto bucketType = cast<RankedTensorType>(start.getBucket().getType());
    int32_t dtype = collectiveDtype(op, bucketType.getElementType());
    if (dtype < 0)
      return op->emitOpError("has no runtime type for ")
             << bucketType.getElementType();
    FailureOr<Value> flat = allocate(rewriter, loc, bucketType, options);
    if (failed(flat))
      return failure();
    int64_t offset = 0;
    for (Value input : start.getInputs()) {
      FailureOr<Value> in =
          contiguousBuffer(rewriter, loc, input, options, state);
      int64_t n = cast<RankedTensorType>(input.getType()).getNumElements();
      if (failed(in) || failed(options.createMemCpy(
                            rewriter, loc, flatView(rewriter, loc, *in),
                            range(rewriter, loc, *flat, offset, n))))
        return failure();
      offset += n;
    }
    auto call = func::CallOp::create(
        rewriter, loc, "distrt_all_reduce_start",
        TypeRange{rewriter.getI64Type()},
        ValueRange{i32(rewriter, loc, dtype),
                   i32(rewriter, loc, static_cast<int64_t>(start.getKind())),
                   pointerTo(rewriter, loc, *flat),
                   i64(rewriter, loc, bucketType.getNumElements()),
                   i64(rewriter, loc, axesMask(start.getAxes()))});
    bufferization::replaceOpWithBufferizedValues(
        rewriter, op, ValueRange{*flat, call.getResult(0)});
    return success();
  }
};

/// wait: distrt completes the request, then each result is copied out of
/// the bucket into a fresh buffer. The transfer writes the bucket until the
/// wait: the wait must read the very buffer its start allocated, never a
/// copy taken before the data arrived.
struct WaitModel : CollectiveModelBase<WaitModel, WaitOp> {
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return true;
  }
  bool mustBufferizeInPlace(Operation *, OpOperand &,
                            const bufferization::AnalysisState &) const {
    return true;
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto wait = cast<WaitOp>(op);
    Location loc = op->getLoc();
    FailureOr<Value> flat =
        bufferization::getBuffer(rewriter, wait.getBucket(), options, state);
    if (failed(flat))
      return failure();
    if (!flat->getDefiningOp<memref::AllocOp>())
      return op->emitOpError("waits on a bucket that is not the buffer a "
                             "dist.all_reduce_start allocated");
    func::CallOp::create(rewriter, loc, "distrt_wait", TypeRange{},
                         ValueRange{wait.getRequest()});
    SmallVector<Value> results;
    int64_t offset = 0;
    for (Type type : op->getResultTypes()) {
      FailureOr<Value> out = allocate(rewriter, loc, type, options);
      int64_t n = cast<RankedTensorType>(type).getNumElements();
      if (failed(out) ||
          failed(options.createMemCpy(rewriter, loc,
                                      range(rewriter, loc, *flat, offset, n),
                                      flatView(rewriter, loc, *out))))
        return failure();
      offset += n;
      results.push_back(*out);
    }
    bufferization::replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};

/// The world rank of a point-to-point op's peer: distrt_mesh_peer(axis,
/// peer).
Value peerRank(OpBuilder &b, Location loc, int64_t axis, int64_t peer) {
  return func::CallOp::create(b, loc, "distrt_mesh_peer",
                              TypeRange{b.getI32Type()},
                              ValueRange{i32(b, loc, axis), i64(b, loc, peer)})
      .getResult(0);
}

/// send: distrt_send of the operand's (contiguous) buffer; the op goes.
struct SendModel : CollectiveModelBase<SendModel, SendOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto send = cast<SendOp>(op);
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(send.getInput().getType());
    int32_t dtype = collectiveDtype(op, type.getElementType());
    if (dtype < 0)
      return op->emitOpError("has no runtime type for ")
             << type.getElementType();
    FailureOr<Value> in =
        contiguousBuffer(rewriter, loc, send.getInput(), options, state);
    if (failed(in))
      return failure();
    Value peer = peerRank(rewriter, loc, send.getAxis(), send.getPeer());
    func::CallOp::create(
        rewriter, loc, "distrt_send", TypeRange{},
        ValueRange{i32(rewriter, loc, dtype), pointerTo(rewriter, loc, *in),
                   i64(rewriter, loc, type.getNumElements()), peer,
                   i32(rewriter, loc, send.getTag())});
    rewriter.eraseOp(op);
    return success();
  }
};

/// recv: distrt_recv into a fresh buffer.
struct RecvModel : CollectiveModelBase<RecvModel, RecvOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto recv = cast<RecvOp>(op);
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(recv.getResult().getType());
    int32_t dtype = collectiveDtype(op, type.getElementType());
    if (dtype < 0)
      return op->emitOpError("has no runtime type for ")
             << type.getElementType();
    FailureOr<Value> out = allocate(rewriter, loc, type, options);
    if (failed(out))
      return failure();
    Value peer = peerRank(rewriter, loc, recv.getAxis(), recv.getPeer());
    func::CallOp::create(
        rewriter, loc, "distrt_recv", TypeRange{},
        ValueRange{i32(rewriter, loc, dtype), pointerTo(rewriter, loc, *out),
                   i64(rewriter, loc, type.getNumElements()), peer,
                   i32(rewriter, loc, recv.getTag())});
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

/// sparsify_top_k: distrt_sparsify_top_k from the input's (contiguous)
/// buffer into three fresh ones. Not a collective, but a distrt call the
/// same way (a selection linalg cannot express).
struct SparsifyTopKModel
    : CollectiveModelBase<SparsifyTopKModel, SparsifyTopKOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto topK = cast<SparsifyTopKOp>(op);
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(topK.getInput().getType());
    FailureOr<Value> in =
        contiguousBuffer(rewriter, loc, topK.getInput(), options, state);
    if (failed(in))
      return failure();
    SmallVector<Value> outs;
    for (Type t : op->getResultTypes()) {
      FailureOr<Value> out = allocate(rewriter, loc, t, options);
      if (failed(out))
        return failure();
      outs.push_back(*out);
    }
    int64_t n = type.getShape().back();
    func::CallOp::create(
        rewriter, loc, "distrt_sparsify_top_k", TypeRange{},
        ValueRange{pointerTo(rewriter, loc, *in),
                   i64(rewriter, loc, type.getNumElements() / n),
                   i64(rewriter, loc, n),
                   i64(rewriter, loc, static_cast<int64_t>(topK.getK())),
                   pointerTo(rewriter, loc, outs[0]),
                   pointerTo(rewriter, loc, outs[1]),
                   pointerTo(rewriter, loc, outs[2])});
    bufferization::replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

} // namespace

void mlir::dist::declareRuntimeCollectives(ModuleOp module) {
  bool any = false;
  module.walk([&](Operation *op) {
    any |= isCollective(op) || isa<SparsifyTopKOp>(op);
  });
  if (!any)
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto declare = [&](StringRef name, ArrayRef<Type> args,
                     ArrayRef<Type> results = {}) {
    if (module.lookupSymbol(name))
      return;
    auto f = func::FuncOp::create(b, module.getLoc(), name,
                                  b.getFunctionType(args, results));
    f.setPrivate();
  };
  declare("distrt_all_reduce", {i32, i32, ptr, i64, i64});
  declare("distrt_all_gather", {i32, ptr, ptr, i64, i64, i64});
  declare("distrt_reduce_scatter", {i32, i32, ptr, ptr, i64, i64, i64});
  declare("distrt_shard_slice", {i32, ptr, ptr, i64, i64, i64});
  declare("distrt_all_reduce_start", {i32, i32, ptr, i64, i64}, {i64});
  declare("distrt_wait", {i64});
  declare("distrt_mesh_peer", {i32, i64}, {i32});
  declare("distrt_send", {i32, ptr, i64, i32, i32});
  declare("distrt_recv", {i32, ptr, i64, i32, i32});
  declare("distrt_sparsify_top_k", {ptr, i64, i64, i64, ptr, ptr, ptr});
}

void mlir::dist::registerCollectiveBufferizationModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    AllReduceOp::attachInterface<CollectiveModel<AllReduceOp>>(*ctx);
    AllGatherOp::attachInterface<CollectiveModel<AllGatherOp>>(*ctx);
    ReduceScatterOp::attachInterface<CollectiveModel<ReduceScatterOp>>(*ctx);
    ShardSliceOp::attachInterface<CollectiveModel<ShardSliceOp>>(*ctx);
    AllReduceStartOp::attachInterface<AllReduceStartModel>(*ctx);
    WaitOp::attachInterface<WaitModel>(*ctx);
    SendOp::attachInterface<SendModel>(*ctx);
    RecvOp::attachInterface<RecvModel>(*ctx);
    SparsifyTopKOp::attachInterface<SparsifyTopKModel>(*ctx);
  });
}
