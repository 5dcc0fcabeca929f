//===- ContractionGradients.cpp - Gradients of matrix products ------------===//
//
// For C = op(A) op(B): dop(A) = dC op(B)^T and dop(B) = op(A)^T dC, written
// as matmuls with transpose flags so no transpose is materialized. A 2-D
// operand multiplied by a batched one gets its gradient from one matmul of
// the flattened batch instead of a batched product and a sum. A fused
// attention's gradient is one dist.attention_grad.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Gradients/Gradients.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

/// `value` (rank >= 2) as one matrix: its leading dimensions folded into the
/// rows.
Value flattenRows(DistBuilder &g, Value value) {
  ArrayRef<int64_t> shape = shapeOf(value);
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  return g.reshape(value, {rows, shape.back()});
}

/// The gradients of `a` and `b` of `op(a) * op(b)` given that of the
/// product, `dc`; null where not `wanted`.
std::pair<Value, Value> productGradients(DistBuilder &g, Value a, Value b,
                                         bool ta, bool tb, Value dc, bool wantA,
                                         bool wantB) {
  Value da, db;
  int64_t rankA = shapeOf(a).size(), rankB = shapeOf(b).size();
  if (wantA) {
    if (!ta && rankB == 2 && rankA > 2) {
      // dA = dC op(B)^T, all batches at once.
      da = g.reshape(g.matmul(flattenRows(g, dc), b, false, !tb), shapeOf(a));
    } else if (!ta) {
      da = g.matmul(dc, b, false, !tb);
    } else {
      // A^T-form: dA = op(B) dC^T.
      da = g.matmul(b, dc, tb, true);
    }
    da = g.sumToShape(da, a.getType());
  }
  if (wantB) {
    if (!ta && rankA > 2 && rankB == 2) {
      Value a2 = flattenRows(g, a), dc2 = flattenRows(g, dc);
      db = tb ? g.matmul(dc2, a2, true, false) : g.matmul(a2, dc2, true, false);
    } else if (!tb) {
      // dB = op(A)^T dC.
      db = g.matmul(a, dc, !ta, false);
    } else {
      // B^T-form: dB = dC^T op(A).
      db = g.matmul(dc, a, true, ta);
    }
    db = g.sumToShape(db, b.getType());
  }
  return {da, db};
}

struct MatmulGradient {
  static LogicalResult build(MatmulOp op, DistBuilder &g, GradientRequest &r) {
    auto [da, db] =
        productGradients(g, op.getLhs(), op.getRhs(), op.getTransposeLhs(),
                         op.getTransposeRhs(), r.dy(), r.wants(0), r.wants(1));
    r.set(0, da);
    r.set(1, db);
    return success();
  }
};

struct GemmGradient {
  static LogicalResult build(GemmOp op, DistBuilder &g, GradientRequest &r) {
    Value dy = r.dy();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value scaled = alpha == 1.0 ? dy : g.mul(dy, alpha);
    auto [da, db] =
        productGradients(g, op.getA(), op.getB(), op.getTransposeA(),
                         op.getTransposeB(), scaled, r.wants(0), r.wants(1));
    r.set(0, da);
    r.set(1, db);
    if (op.getBias() && r.wants(2)) {
      Value dbias = g.sumToShape(dy, op.getBias().getType());
      r.set(2, beta == 1.0 ? dbias : g.mul(dbias, beta));
    }
    return success();
  }
};

/// dist.attention: one dist.attention_grad recomputes the probabilities
/// from the log-sum-exp.
struct AttentionGradient {
  static LogicalResult build(AttentionOp op, DistBuilder &g,
                             GradientRequest &r) {
    if (r.resultGradients[1])
      return op.emitOpError(
          "its logsumexp result is an internal statistic of the gradient; "
          "a loss that depends on it is not differentiated");
    if (!r.dy())
      return success();
    auto grad = AttentionGradOp::create(
        g.getBuilder(), g.getLoc(), op.getQuery(), op.getKey(), op.getValue(),
        op.getResult(), op.getLogsumexp(), r.dy(), op.getScaleAttr(),
        op.getCausalAttr());
    for (unsigned i = 0; i < 3; ++i)
      if (r.wants(i))
        r.set(i, grad->getResult(i));
    return success();
  }
};

} // namespace

void mlir::dist::detail::attachContractionGradients(MLIRContext *ctx) {
  attachGradient<AttentionOp, AttentionGradient>(ctx);
  attachGradient<MatmulOp, MatmulGradient>(ctx);
  attachGradient<GemmOp, GemmGradient>(ctx);
}
