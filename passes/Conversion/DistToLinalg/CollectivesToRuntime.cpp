//===- CollectivesToRuntime.cpp - Collectives become distrt calls ---------===//
//
// A collective reads its input through a read-only buffer and writes a
// freshly allocated one, which distrt fills (runtime/include/distrt/distrt.h,
// "Mesh and collectives"):
//
//   %in  = bufferization.to_buffer %x read_only : memref<...>
//   %out = memref.alloc() : memref<...>
//   call @distrt_all_gather(dtype, ptr(%in), ptr(%out), outer, inner, mask)
//   %r   = bufferization.to_tensor %out restrict writable
//
// One-shot bufferization then resolves %in to %x's buffer (copying only if
// its layout is not contiguous) and the deallocation pipeline frees %out.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

/// distrt_dtype of an element type (runtime/include/distrt/distrt.h), or -1.
int32_t distrtDtype(Type t) {
  if (t.isF32())
    return 0;
  if (t.isF64())
    return 1;
  if (t.isF16())
    return 2;
  if (t.isBF16())
    return 3;
  if (t.isInteger(1))
    return 12;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 64:
      return u ? 8 : 4;
    case 32:
      return u ? 9 : 5;
    case 16:
      return u ? 10 : 6;
    case 8:
      return u ? 11 : 7;
    }
  }
  return -1;
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

/// The address of a contiguous buffer's first element.
Value pointerTo(OpBuilder &b, Location loc, Value memref) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value addr = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), addr);
}

/// [outer, inner] of a tensor viewed around dimension `dim`: the product of
/// the dimensions before it, and the dimension times those after it.
std::pair<int64_t, int64_t> outerInner(RankedTensorType t, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < t.getRank(); ++d)
    (d < dim ? outer : inner) *= t.getDimSize(d);
  return {outer, inner};
}

template <typename OpTy> struct CollectivePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto outType = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getResult().getType()));
    int32_t dtype = distrtDtype(inType.getElementType());
    if (dtype < 0)
      return rewriter.notifyMatchFailure(op, "element type without a distrt "
                                             "dtype");
    auto inMem = MemRefType::get(inType.getShape(), inType.getElementType());
    auto outMem = MemRefType::get(outType.getShape(), outType.getElementType());
    Value in = bufferization::ToBufferOp::create(rewriter, loc, inMem,
                                                 adaptor.getInput(),
                                                 /*readOnly=*/true);
    Value out = memref::AllocOp::create(rewriter, loc, outMem);
    Value inPtr = pointerTo(rewriter, loc, in);
    Value outPtr = pointerTo(rewriter, loc, out);
    Value mask = i64(rewriter, loc, axesMask(op.getAxes()));
    SmallVector<Value> args;
    StringRef callee;
    if constexpr (std::is_same_v<OpTy, AllReduceOp>) {
      memref::CopyOp::create(rewriter, loc, in, out);
      callee = "distrt_all_reduce";
      args = {i32(rewriter, loc, dtype),
              i32(rewriter, loc, static_cast<int64_t>(op.getKind())), outPtr,
              i64(rewriter, loc, inType.getNumElements()), mask};
    } else {
      // inner is the local block: the input's for a gather, the output's
      // for a scatter or slice.
      RankedTensorType local =
          std::is_same_v<OpTy, AllGatherOp> ? inType : outType;
      auto [outer, inner] = outerInner(local, op.getDim());
      SmallVector<Value> tail = {inPtr, outPtr, i64(rewriter, loc, outer),
                                 i64(rewriter, loc, inner), mask};
      args = {i32(rewriter, loc, dtype)};
      if constexpr (std::is_same_v<OpTy, ReduceScatterOp>) {
        callee = "distrt_reduce_scatter";
        args.push_back(i32(rewriter, loc, static_cast<int64_t>(op.getKind())));
      } else if constexpr (std::is_same_v<OpTy, AllGatherOp>) {
        callee = "distrt_all_gather";
      } else {
        callee = "distrt_shard_slice";
      }
      args.append(tail);
    }
    func::CallOp::create(rewriter, loc, callee, TypeRange{}, args);
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, outType, out, /*restrict=*/true, /*writable=*/true);
    rewriter.replaceOp(op, result);
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

/// all_reduce_start: the inputs copied into one fresh buffer, whose
/// non-blocking all-reduce distrt starts; the buffer is the bucket.
struct AllReduceStartPattern : OpConversionPattern<AllReduceStartOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllReduceStartOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto bucketType = cast<RankedTensorType>(op.getBucket().getType());
    int32_t dtype = distrtDtype(bucketType.getElementType());
    if (dtype < 0)
      return rewriter.notifyMatchFailure(op, "element type without a distrt "
                                             "dtype");
    Value flat = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(bucketType.getShape(), bucketType.getElementType()));
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto t = cast<RankedTensorType>(input.getType());
      Value in = bufferization::ToBufferOp::create(
          rewriter, loc, MemRefType::get(t.getShape(), t.getElementType()),
          input, /*readOnly=*/true);
      memref::CopyOp::create(
          rewriter, loc, flatView(rewriter, loc, in),
          range(rewriter, loc, flat, offset, t.getNumElements()));
      offset += t.getNumElements();
    }
    func::CallOp::create(
        rewriter, loc, "distrt_all_reduce_start",
        TypeRange{rewriter.getI64Type()},
        ValueRange{i32(rewriter, loc, dtype),
                   i32(rewriter, loc, static_cast<int64_t>(op.getKind())),
                   pointerTo(rewriter, loc, flat),
                   i64(rewriter, loc, bucketType.getNumElements()),
                   i64(rewriter, loc, axesMask(op.getAxes()))});
    rewriter.replaceOp(op, bufferization::ToTensorOp::create(
                               rewriter, loc, bucketType, flat,
                               /*restrict=*/true, /*writable=*/true));
    return success();
  }
};

/// wait: distrt completes the bucket's all-reduce, then each result is
/// copied out of it.
struct WaitPattern : OpConversionPattern<WaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto bucketType = cast<RankedTensorType>(adaptor.getBucket().getType());
    Value flat = bufferization::ToBufferOp::create(
        rewriter, loc,
        MemRefType::get(bucketType.getShape(), bucketType.getElementType()),
        adaptor.getBucket());
    func::CallOp::create(rewriter, loc, "distrt_wait_for", TypeRange{},
                         ValueRange{pointerTo(rewriter, loc, flat)});
    SmallVector<Value> results;
    int64_t offset = 0;
    for (Type type : op.getResultTypes()) {
      auto t = cast<RankedTensorType>(type);
      Value out = memref::AllocOp::create(
          rewriter, loc, MemRefType::get(t.getShape(), t.getElementType()));
      memref::CopyOp::create(
          rewriter, loc, range(rewriter, loc, flat, offset, t.getNumElements()),
          flatView(rewriter, loc, out));
      offset += t.getNumElements();
      results.push_back(bufferization::ToTensorOp::create(
          rewriter, loc, t, out, /*restrict=*/true, /*writable=*/true));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::dist::declareRuntimeCollectives(ModuleOp module) {
  bool any = false;
  module.walk([&](Operation *op) {
    any |= isa<AllReduceOp, AllGatherOp, ReduceScatterOp, ShardSliceOp,
               AllReduceStartOp, WaitOp>(op);
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
  declare("distrt_wait_for", {ptr});
}

void mlir::dist::populateCollectivesToRuntimePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<CollectivePattern<AllReduceOp>, CollectivePattern<AllGatherOp>,
           CollectivePattern<ReduceScatterOp>, CollectivePattern<ShardSliceOp>,
           AllReduceStartPattern, WaitPattern>(converter,
                                               patterns.getContext());
}
