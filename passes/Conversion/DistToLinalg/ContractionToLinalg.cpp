//===- ContractionToLinalg.cpp - matmul and gemm to linalg.(batch_)matmul -===//
//
// Transposed operands are not materialized: they become the indexing maps of
// linalg.matmul / linalg.batch_matmul, which the later rewrite to the
// runtime's gemm turns into BLAS transpose flags. A matrix times a 2-D weight
// folds the batch dimensions into M (one gemm instead of a batch); other
// batched products broadcast their batch dimensions to a common shape and
// collapse them into one. f16/bf16 products accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The indexing maps of a (batch_)matmul with optional transposes.
static ArrayAttr matmulMaps(OpBuilder &b, bool batch, bool transA,
                            bool transB) {
  MLIRContext *ctx = b.getContext();
  unsigned n = batch ? 4 : 3, o = batch ? 1 : 0;
  AffineExpr bd = getAffineDimExpr(0, ctx), m = getAffineDimExpr(o, ctx),
             nn = getAffineDimExpr(o + 1, ctx),
             k = getAffineDimExpr(o + 2, ctx);
  auto map = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> e;
    if (batch)
      e.push_back(bd);
    e.append({x, y});
    return AffineMapAttr::get(AffineMap::get(n, 0, e, ctx));
  };
  return b.getArrayAttr({transA ? map(k, m) : map(m, k),
                         transB ? map(nn, k) : map(k, nn), map(m, nn)});
}

/// C + op(A) op(B) with linalg.matmul (2-D operands) or linalg.batch_matmul
/// (3-D), into `init`.
static Value contract(OpBuilder &b, Location loc, Value a, Value bm, Value init,
                      bool transA, bool transB) {
  bool batch = cast<RankedTensorType>(a.getType()).getRank() == 3;
  Operation *op;
  if (batch)
    op = linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                       ValueRange{a, bm}, ValueRange{init});
  else
    op = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{a, bm}, ValueRange{init});
  op->setAttr("indexing_maps", matmulMaps(b, batch, transA, transB));
  return op->getResult(0);
}

static Type accumulatorType(OpBuilder &b, Type et) {
  return computesInF32(et) ? b.getF32Type() : et;
}

struct MatmulPattern : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Type acc = accumulatorType(rewriter, et);
    bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
    int64_t rank = resultType.getRank();
    int64_t m = resultType.getDimSize(rank - 2);
    int64_t n = resultType.getDimSize(rank - 1);
    Value zero = scalarConstant(rewriter, loc, acc, 0.0);
    Value result;
    if (rt.getRank() == 2 && (lt.getRank() == 2 || !tl)) {
      // [..., M, K] x [K, N]: one gemm over all rows.
      int64_t rows = lt.getNumElements() / lt.getDimSize(lt.getRank() - 1);
      if (lt.getRank() == 2)
        rows = m;
      Value a = lt.getRank() == 2
                    ? lhs
                    : reshapeTo(rewriter, loc, lhs,
                                {rows, lt.getDimSize(lt.getRank() - 1)});
      Value init = filledTensor(rewriter, loc, {rows, n}, zero);
      result = contract(rewriter, loc, a, rhs, init, tl, tr);
    } else {
      // Broadcast the batch dimensions, collapse them into one.
      SmallVector<int64_t> batchShape(resultType.getShape().drop_back(2));
      int64_t batch = 1;
      for (int64_t s : batchShape)
        batch *= s;
      auto toBatch = [&](Value v, RankedTensorType t) {
        SmallVector<int64_t> full = batchShape;
        full.append(
            {t.getDimSize(t.getRank() - 2), t.getDimSize(t.getRank() - 1)});
        if (t.getShape() != ArrayRef<int64_t>(full))
          v = buildElementwise(
              rewriter, loc, t.clone(full), v,
              [](OpBuilder &, Location, ValueRange args) { return args[0]; });
        return reshapeTo(rewriter, loc, v,
                         {batch, full[full.size() - 2], full.back()});
      };
      Value a = toBatch(lhs, lt), bm = toBatch(rhs, rt);
      Value init = filledTensor(rewriter, loc, {batch, m, n}, zero);
      result = contract(rewriter, loc, a, bm, init, tl, tr);
    }
    result = truncateTo(rewriter, loc, result, et);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

struct GemmPattern : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Type acc = accumulatorType(rewriter, et);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value bias = adaptor.getBias();
    auto accType = resultType.clone(acc);
    Value zero = scalarConstant(rewriter, loc, acc, 0.0);
    // With alpha == 1 the product accumulates onto beta * bias directly.
    bool biasFirst = bias && alpha == 1.0;
    Value init;
    if (biasFirst)
      init = buildElementwise(
          rewriter, loc, accType, bias,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value v = args[0];
            if (v.getType() != acc)
              v = arith::ExtFOp::create(b, l, acc, v);
            if (beta != 1.0)
              v = arith::MulFOp::create(b, l, v,
                                        scalarConstant(b, l, acc, beta));
            return v;
          });
    else
      init = filledTensor(rewriter, loc, resultType.getShape(), zero);
    Value result = contract(rewriter, loc, adaptor.getA(), adaptor.getB(), init,
                            op.getTransposeA(), op.getTransposeB());
    if (!biasFirst && (alpha != 1.0 || bias)) {
      SmallVector<Value> inputs = {result};
      if (bias)
        inputs.push_back(bias);
      result = buildElementwise(
          rewriter, loc, accType, inputs,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value v = arith::MulFOp::create(b, l, args[0],
                                            scalarConstant(b, l, acc, alpha));
            if (args.size() > 1) {
              Value c = args[1];
              if (c.getType() != acc)
                c = arith::ExtFOp::create(b, l, acc, c);
              c = arith::MulFOp::create(b, l, c,
                                        scalarConstant(b, l, acc, beta));
              v = arith::AddFOp::create(b, l, v, c);
            }
            return v;
          });
    }
    rewriter.replaceOp(op, truncateTo(rewriter, loc, result, et));
    return success();
  }
};

} // namespace

void mlir::dist::populateContractionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatmulPattern, GemmPattern>(converter, patterns.getContext());
}
