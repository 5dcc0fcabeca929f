//===- AttentionToLoops.cpp - Fused attention as loops over rows ----------===//
//
// dist.attention and dist.attention_grad become scf.for nests over the rows
// of the flattened batch: one query row (or, for the key and value
// gradients, one key row) per iteration of the outer loops, its keys (or
// queries) one after another in the inner loop, a row's features as one
// vector. The forward keeps a running maximum, sum of exponentials and
// weighted sum of values (the online softmax of flash attention), so no
// T x S scores or probabilities are ever stored; the backward recomputes
// each probability from the forward's log-sum-exp.
//
// Each outer iteration writes only its own row of every result, element by
// element (tensor.insert), so that the nest stays one a GPU can run with a
// thread per row (dist-loops-to-gpu); the inner loops carry their sums in
// registers.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <tuple>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Builds the loops of one attention op: its operands as [N, rows, features]
/// tensors, N the product of the leading dimensions.
struct AttentionLoops {
  OpBuilder &b;
  Location loc;
  bool causal;
  Value scale; // f32

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value zeros(int64_t len) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(VectorType::get({len}, b.getF32Type()),
                                       b.getF32FloatAttr(0.0)));
  }
  Value splat(Value scalar, int64_t len) {
    return vector::BroadcastOp::create(
        b, loc, VectorType::get({len}, b.getF32Type()), scalar);
  }

  /// Row [n, i, :] of the 3-D tensor `x`, as a vector.
  Value readRow(Value x, Value n, Value i) {
    auto type = cast<RankedTensorType>(x.getType());
    int64_t len = type.getDimSize(2);
    return vector::TransferReadOp::create(
        b, loc, VectorType::get({len}, b.getF32Type()), x,
        ValueRange{n, i, index(0)}, f32(0.0),
        AffineMap::getMinorIdentityMap(3, 1, b.getContext()),
        ArrayRef<bool>{true});
  }
  /// `dest` with row [n, i, :] set to the elements of `row`.
  Value writeRow(Value row, Value dest, Value n, Value i) {
    int64_t len = cast<VectorType>(row.getType()).getDimSize(0);
    for (int64_t e = 0; e < len; ++e) {
      Value element = vector::ExtractOp::create(b, loc, row, e);
      dest = tensor::InsertOp::create(b, loc, element, dest,
                                      ValueRange{n, i, index(e)});
    }
    return dest;
  }
  /// The dot product of two vectors (summed in any order).
  Value dot(Value x, Value y) {
    Value products = arith::MulFOp::create(b, loc, x, y);
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                       products,
                                       arith::FastMathFlags::reassoc);
  }
  /// acc + s * x for a scalar `s`.
  Value axpy(Value s, Value x, Value acc) {
    int64_t len = cast<VectorType>(x.getType()).getDimSize(0);
    return vector::FMAOp::create(b, loc, splat(s, len), x, acc);
  }
  /// scale * q.k, the score.
  Value score(Value q, Value k) {
    return arith::MulFOp::create(b, loc, dot(q, k), scale);
  }

  /// for (iv = lb; iv < ub; ++iv) carrying `inits`.
  ValueRange loop(Value lb, Value ub, ValueRange inits,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto op = scf::ForOp::create(
        b, loc, lb, ub, index(1), inits,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          scf::YieldOp::create(b, loc, body(iv, args));
        });
    return op.getResults();
  }

  /// for (bi < n) for (i < rows): `body` writes row (bi, i) of the
  /// carried results.
  ValueRange forEachRow(
      int64_t n, int64_t rows, ValueRange inits,
      function_ref<SmallVector<Value>(Value, Value, ValueRange)> body) {
    return loop(index(0), index(n), inits, [&](Value bi, ValueRange batch) {
      return SmallVector<Value>(
          loop(index(0), index(rows), batch,
               [&](Value i, ValueRange acc) { return body(bi, i, acc); }));
    });
  }

  /// N, T, S, D and E of q [N, T, D], k [N, S, D] and v [N, S, E] (not
  /// structured bindings: lambdas capture them only from C++20).
  static std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>
  sizes(Value q, Value k, Value v) {
    ArrayRef<int64_t> qs = cast<RankedTensorType>(q.getType()).getShape();
    return {qs[0], qs[1], cast<RankedTensorType>(k.getType()).getDimSize(1),
            qs[2], cast<RankedTensorType>(v.getType()).getDimSize(2)};
  }

  /// The forward: result [N, T, E] and log-sum-exp [N, T].
  std::pair<Value, Value> forward(Value q, Value k, Value v) {
    int64_t n, t, s, d, e;
    std::tie(n, t, s, d, e) = sizes(q, k, v);
    Value out = emptyTensor(b, loc, {n, t, e}, b.getF32Type());
    Value lse = emptyTensor(b, loc, {n, t}, b.getF32Type());
    ValueRange results = forEachRow(
        n, t, {out, lse},
        [&](Value bi, Value i, ValueRange acc) -> SmallVector<Value> {
          Value qi = readRow(q, bi, i);
          // Running maximum m, sum of exp(score - m) and the values
          // weighted by it.
          ValueRange sums = loop(
              index(0), keysEnd(i, s),
              {f32(-std::numeric_limits<double>::infinity()), f32(0.0),
               zeros(e)},
              [&](Value j, ValueRange carried) -> SmallVector<Value> {
                Value m = carried[0], l = carried[1], o = carried[2];
                Value sc = score(qi, readRow(k, bi, j));
                Value next = arith::MaximumFOp::create(b, loc, m, sc);
                Value rescale = math::ExpOp::create(
                    b, loc, arith::SubFOp::create(b, loc, m, next));
                Value p = math::ExpOp::create(
                    b, loc, arith::SubFOp::create(b, loc, sc, next));
                Value sum = arith::AddFOp::create(
                    b, loc, arith::MulFOp::create(b, loc, l, rescale), p);
                Value weighted =
                    axpy(p, readRow(v, bi, j),
                         arith::MulFOp::create(b, loc, o, splat(rescale, e)));
                return {next, sum, weighted};
              });
          Value row =
              arith::DivFOp::create(b, loc, sums[2], splat(sums[1], e));
          Value logSum = arith::AddFOp::create(
              b, loc, sums[0], math::LogOp::create(b, loc, sums[1]));
          return {writeRow(row, acc[0], bi, i),
                  tensor::InsertOp::create(b, loc, logSum, acc[1],
                                           ValueRange{bi, i})};
        });
    return {results[0], results[1]};
  }

  /// The backward: dq, dk, dv, each shaped like its operand.
  SmallVector<Value> backward(Value q, Value k, Value v, Value out, Value lse,
                              Value dout) {
    int64_t n, t, s, d, e;
    std::tie(n, t, s, d, e) = sizes(q, k, v);
    // Per query row: dq, and delta = sum(dout * out), which the key rows
    // read next.
    Value dq = emptyTensor(b, loc, {n, t, d}, b.getF32Type());
    Value delta = emptyTensor(b, loc, {n, t}, b.getF32Type());
    ValueRange queryResults = forEachRow(
        n, t, {dq, delta},
        [&](Value bi, Value i, ValueRange acc) -> SmallVector<Value> {
          Value qi = readRow(q, bi, i), doi = readRow(dout, bi, i);
          Value li = tensor::ExtractOp::create(b, loc, lse, ValueRange{bi, i});
          Value di = dot(doi, readRow(out, bi, i));
          ValueRange sum = loop(
              index(0), keysEnd(i, s), {zeros(d)},
              [&](Value j, ValueRange carried) -> SmallVector<Value> {
                Value kj = readRow(k, bi, j);
                Value ds =
                    scoreGradient(qi, kj, readRow(v, bi, j), doi, li, di)
                        .second;
                return {axpy(ds, kj, carried[0])};
              });
          Value row = arith::MulFOp::create(b, loc, sum[0], splat(scale, d));
          return {writeRow(row, acc[0], bi, i),
                  tensor::InsertOp::create(b, loc, di, acc[1],
                                           ValueRange{bi, i})};
        });
    delta = queryResults[1];
    // Per key row: dk and dv over the queries that see it.
    Value dk = emptyTensor(b, loc, {n, s, d}, b.getF32Type());
    Value dv = emptyTensor(b, loc, {n, s, e}, b.getF32Type());
    ValueRange keyResults = forEachRow(
        n, s, {dk, dv},
        [&](Value bi, Value j, ValueRange acc) -> SmallVector<Value> {
          Value kj = readRow(k, bi, j), vj = readRow(v, bi, j);
          ValueRange sums = loop(
              causal ? j : index(0), index(t), {zeros(d), zeros(e)},
              [&](Value i, ValueRange carried) -> SmallVector<Value> {
                Value qi = readRow(q, bi, i), doi = readRow(dout, bi, i);
                Value li =
                    tensor::ExtractOp::create(b, loc, lse, ValueRange{bi, i});
                Value di =
                    tensor::ExtractOp::create(b, loc, delta, ValueRange{bi, i});
                auto [p, ds] = scoreGradient(qi, kj, vj, doi, li, di);
                return {axpy(ds, qi, carried[0]), axpy(p, doi, carried[1])};
              });
          Value row = arith::MulFOp::create(b, loc, sums[0], splat(scale, d));
          return {writeRow(row, acc[0], bi, j),
                  writeRow(sums[1], acc[1], bi, j)};
        });
    return {queryResults[0], keyResults[0], keyResults[1]};
  }

  /// The keys query row `i` sees: 0..i when causal, else all `s`.
  Value keysEnd(Value i, int64_t s) {
    if (!causal)
      return index(s);
    return arith::AddIOp::create(b, loc, i, index(1));
  }

  /// The probability p = exp(score - lse) of query row q against key row
  /// k, and the gradient of its scaled score, p * (dout.v - delta).
  std::pair<Value, Value> scoreGradient(Value q, Value k, Value v, Value dout,
                                        Value lse, Value delta) {
    Value p = math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, score(q, k), lse));
    Value dp = dot(dout, v);
    Value ds = arith::MulFOp::create(
        b, loc, p, arith::SubFOp::create(b, loc, dp, delta));
    return {p, ds};
  }
};

/// `x` as [N, rows, features].
Value asRows(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  int64_t batch = 1;
  for (int64_t dim : shape.drop_back(2))
    batch *= dim;
  return reshapeTo(b, loc, x, {batch, shape[shape.size() - 2], shape.back()});
}

/// The log-sum-exp `x` (... x T) as [N, T].
Value statsAsRows(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  int64_t batch = 1;
  for (int64_t dim : shape.drop_back())
    batch *= dim;
  return reshapeTo(b, loc, x, {batch, shape.back()});
}

/// The op's (f64) scale as an f32 constant, the type it multiplies.
Value scaleConstant(OpBuilder &b, Location loc, APFloat scale) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(scale.convertToDouble())));
}

struct AttentionPattern : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    AttentionLoops loops{rewriter, loc, op.getCausal(),
                         scaleConstant(rewriter, loc, op.getScale())};
    auto [out, lse] = loops.forward(asRows(rewriter, loc, adaptor.getQuery()),
                                    asRows(rewriter, loc, adaptor.getKey()),
                                    asRows(rewriter, loc, adaptor.getValue()));
    rewriter.replaceOp(
        op, {reshapeTo(rewriter, loc, out, op.getResult().getType().getShape()),
             reshapeTo(rewriter, loc, lse,
                       op.getLogsumexp().getType().getShape())});
    return success();
  }
};

struct AttentionGradPattern : OpConversionPattern<AttentionGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    AttentionLoops loops{rewriter, loc, op.getCausal(),
                         scaleConstant(rewriter, loc, op.getScale())};
    SmallVector<Value> grads = loops.backward(
        asRows(rewriter, loc, adaptor.getQuery()),
        asRows(rewriter, loc, adaptor.getKey()),
        asRows(rewriter, loc, adaptor.getValue()),
        asRows(rewriter, loc, adaptor.getResult()),
        statsAsRows(rewriter, loc, adaptor.getLogsumexp()),
        asRows(rewriter, loc, adaptor.getResultGrad()));
    SmallVector<Value> results;
    for (auto [grad, result] : llvm::zip_equal(grads, op.getResults()))
      results.push_back(reshapeTo(
          rewriter, loc, grad,
          cast<RankedTensorType>(result.getType()).getShape()));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::dist::populateAttentionToLoopsPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AttentionPattern, AttentionGradPattern>(converter,
                                                       patterns.getContext());
}
