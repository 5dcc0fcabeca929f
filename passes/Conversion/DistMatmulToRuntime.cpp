//===- DistMatmulToRuntime.cpp - Bufferized matmuls to distrt_gemm --------===//

#include "passes/Conversion/Passes.h"

#include "passes/Conversion/BufferPointer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#define DEBUG_TYPE "dist-matmul-to-runtime"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMATMULTORUNTIME
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// distrt_dtype values (runtime/include/distrt/distrt.h).
constexpr int32_t kDistrtF32 = 0, kDistrtF64 = 1;

/// A matmul operand the runtime can read: static row-major strides with a
/// unit inner stride.
static bool isBlasCompatible(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1 && !llvm::any_of(strides, ShapedType::isDynamic);
}

/// Whether the (batch-stripped) results of `map` are (first, second).
static bool isPair(AffineMap map, unsigned offset, unsigned first,
                   unsigned second) {
  if (map.getNumResults() != offset + 2)
    return false;
  if (offset && !map.getResult(0).isFunctionOfDim(0))
    return false;
  auto dimIs = [&](unsigned i, unsigned d) {
    auto e = dyn_cast<AffineDimExpr>(map.getResult(offset + i));
    return e && e.getPosition() == d;
  };
  return dimIs(0, first) && dimIs(1, second);
}

static func::FuncOp getOrCreateGemmDecl(ModuleOp module, StringRef name) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f64 = b.getF64Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  // dtype, trans_a, trans_b, batch, m, n, k, alpha, a, lda, stride_a,
  // b, ldb, stride_b, beta, c, ldc, stride_c.
  auto type = b.getFunctionType({i32, i32, i32, i64, i64, i64, i64, f64, ptr,
                                 i64, i64, ptr, i64, i64, f64, ptr, i64, i64},
                                {});
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  return f;
}

/// Pointer to the first element, row stride and batch stride of a buffer.
static std::tuple<Value, Value, Value> bufferOperand(OpBuilder &b, Location loc,
                                                     Value v, bool batched) {
  auto type = cast<MemRefType>(v.getType());
  Type i64 = b.getI64Type();
  auto [ptr, meta] = dist::bufferPointer(b, loc, v);
  auto strides = meta.getStrides();
  int64_t rank = type.getRank();
  Value ld = arith::IndexCastOp::create(b, loc, i64, strides[rank - 2]);
  Value batchStride =
      batched ? Value(arith::IndexCastOp::create(b, loc, i64, strides[0]))
              : Value(arith::ConstantIntOp::create(b, loc, i64, 0));
  return {ptr, ld, batchStride};
}

struct DistMatmulToRuntimePass
    : dist::impl::DistMatmulToRuntimeBase<DistMatmulToRuntimePass> {
  using DistMatmulToRuntimeBase::DistMatmulToRuntimeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      rewrite(module, op);
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics())
      return;
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    Type et = cast<MemRefType>(c.getType()).getElementType();
    if (!(et.isF32() || et.isF64()) ||
        cast<MemRefType>(a.getType()).getElementType() != et ||
        cast<MemRefType>(bm.getType()).getElementType() != et)
      return;
    if (!isBlasCompatible(a) || !isBlasCompatible(bm) || !isBlasCompatible(c))
      return;
    // Dims: [b,] m, n, k.
    unsigned o = batched ? 1 : 0, m = o, n = o + 1, k = o + 2;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool transA, transB;
    if (isPair(maps[0], o, m, k))
      transA = false;
    else if (isPair(maps[0], o, k, m))
      transA = true;
    else
      return;
    if (isPair(maps[1], o, k, n))
      transB = false;
    else if (isPair(maps[1], o, n, k))
      transB = true;
    else
      return;
    if (!isPair(maps[2], o, m, n))
      return;

    func::FuncOp decl = getOrCreateGemmDecl(module, function);
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto ci32 = [&](int32_t v) {
      return arith::ConstantIntOp::create(b, loc, i32, v);
    };
    auto ci64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    auto cf64 = [&](double v) {
      return arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(v));
    };
    auto [pa, lda, sa] = bufferOperand(b, loc, a, batched);
    auto [pb, ldb, sb] = bufferOperand(b, loc, bm, batched);
    auto [pc, ldc, sc] = bufferOperand(b, loc, c, batched);
    SmallVector<Value> args = {ci32(et.isF32() ? kDistrtF32 : kDistrtF64),
                               ci32(transA),
                               ci32(transB),
                               ci64(batched ? ranges[0] : 1),
                               ci64(ranges[m]),
                               ci64(ranges[n]),
                               ci64(ranges[k]),
                               cf64(1.0),
                               pa,
                               lda,
                               sa,
                               pb,
                               ldb,
                               sb,
                               cf64(1.0),
                               pc,
                               ldc,
                               sc};
    func::CallOp::create(b, loc, decl, args);
    op->erase();
  }
};

} // namespace
