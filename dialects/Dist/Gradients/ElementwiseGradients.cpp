//===- ElementwiseGradients.cpp - Gradients of elementwise ops ------------===//
//
// Unary ops: dx = dy * f'(x), written with the op's own result where that is
// cheaper (exp, tanh, sigmoid, sqrt). Binary ops broadcast, so each operand's
// gradient is summed back to its shape. Formulas follow PyTorch's
// derivatives.yaml where it makes a choice (ties of max/min split the
// gradient in half; relu's gradient at 0 is 0).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/Gradients/Gradients.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

using P = ComparePredicate;

/// A unary op whose gradient is `dy * derivative(x, y)`, or null (zero).
template <typename OpT,
          Value (*Derivative)(DistBuilder &, Value x, Value y, Value dy)>
struct UnaryGradient {
  static LogicalResult build(OpT op, DistBuilder &g, GradientRequest &r) {
    r.set(0, Derivative(g, op->getOperand(0), op->getResult(0), r.dy()));
    return success();
  }
};

template <typename OpT, Value (*D)(DistBuilder &, Value, Value, Value)>
void attachUnary(MLIRContext *ctx) {
  attachGradient<OpT, UnaryGradient<OpT, D>>(ctx);
}

Value negGrad(DistBuilder &g, Value, Value, Value dy) { return g.neg(dy); }
Value absGrad(DistBuilder &g, Value x, Value, Value dy) {
  Value zero = g.scalarLike(0, x);
  Value sign =
      g.select(g.compare(P::gt, x, zero), g.scalarLike(1, x),
               g.select(g.compare(P::lt, x, zero), g.scalarLike(-1, x), zero));
  return g.mul(dy, sign);
}
Value expGrad(DistBuilder &g, Value, Value y, Value dy) { return g.mul(dy, y); }
Value logGrad(DistBuilder &g, Value x, Value, Value dy) { return g.div(dy, x); }
Value sqrtGrad(DistBuilder &g, Value, Value y, Value dy) {
  return g.div(g.mul(dy, 0.5), y);
}
Value rsqrtGrad(DistBuilder &g, Value, Value y, Value dy) {
  // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 y^3.
  return g.mul(dy, g.mul(g.mul(y, y), g.mul(y, -0.5)));
}
Value reciprocalGrad(DistBuilder &g, Value, Value y, Value dy) {
  return g.mul(g.neg(dy), g.mul(y, y));
}
Value tanhGrad(DistBuilder &g, Value, Value y, Value dy) {
  return g.mul(dy, g.sub(g.scalarLike(1, y), g.mul(y, y)));
}
Value erfGrad(DistBuilder &g, Value x, Value, Value dy) {
  Value e = ExpOp::create(g.getBuilder(), g.getLoc(), g.neg(g.mul(x, x)));
  return g.mul(dy, g.mul(e, 2.0 / std::sqrt(M_PI)));
}
Value sigmoidGrad(DistBuilder &g, Value, Value y, Value dy) {
  return g.mul(dy, g.mul(y, g.sub(g.scalarLike(1, y), y)));
}
Value reluGrad(DistBuilder &g, Value x, Value, Value dy) {
  Value zero = g.scalarLike(0, x);
  return g.select(g.compare(P::gt, x, zero), dy, zero);
}
template <typename OpT> Value apply(DistBuilder &g, Value x) {
  return OpT::create(g.getBuilder(), g.getLoc(), x);
}
Value sinGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, apply<CosOp>(g, x));
}
Value cosGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, g.neg(apply<SinOp>(g, x)));
}
Value tanGrad(DistBuilder &g, Value, Value y, Value dy) {
  return g.mul(dy, g.add(g.scalarLike(1, y), g.mul(y, y)));
}
Value asinGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, apply<RsqrtOp>(g, g.sub(g.scalarLike(1, x), g.mul(x, x))));
}
Value acosGrad(DistBuilder &g, Value x, Value y, Value dy) {
  return g.neg(asinGrad(g, x, y, dy));
}
Value atanGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.div(dy, g.add(g.scalarLike(1, x), g.mul(x, x)));
}
Value sinhGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, apply<CoshOp>(g, x));
}
Value coshGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, apply<SinhOp>(g, x));
}
Value asinhGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, apply<RsqrtOp>(g, g.add(g.mul(x, x), g.scalarLike(1, x))));
}
Value acoshGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.mul(dy, apply<RsqrtOp>(g, g.sub(g.mul(x, x), g.scalarLike(1, x))));
}
Value atanhGrad(DistBuilder &g, Value x, Value, Value dy) {
  return g.div(dy, g.sub(g.scalarLike(1, x), g.mul(x, x)));
}
/// floor, ceil and round are piecewise constant: zero gradient.
Value zeroGrad(DistBuilder &, Value, Value, Value) { return Value(); }

struct GeluGradient {
  static LogicalResult build(GeluOp op, DistBuilder &g, GradientRequest &r) {
    Value x = op.getInput();
    Value half = g.scalarLike(0.5, x), one = g.scalarLike(1, x);
    Value derivative;
    if (op.getApproximateTanh()) {
      // PyTorch's GeluBackward with approximate='tanh'.
      const double beta = std::sqrt(2.0 / M_PI), kappa = 0.044715;
      Value x2 = g.mul(x, x);
      Value inner = g.mul(g.add(x, g.mul(g.mul(x2, x), kappa)), beta);
      Value t = apply<TanhOp>(g, inner);
      Value left = g.mul(half, g.add(one, t));
      Value dInner =
          g.mul(g.add(one, g.mul(x2, 3 * kappa)), beta); // d inner / dx
      Value right =
          g.mul(g.mul(g.mul(x, half), g.sub(one, g.mul(t, t))), dInner);
      derivative = g.add(left, right);
    } else {
      // Phi(x) + x * phi(x).
      Value cdf = g.mul(half, g.add(one, apply<ErfOp>(g, g.mul(x, M_SQRT1_2))));
      Value pdf = g.mul(apply<ExpOp>(g, g.mul(g.mul(x, x), -0.5)),
                        1.0 / std::sqrt(2.0 * M_PI));
      derivative = g.add(cdf, g.mul(x, pdf));
    }
    r.set(0, g.mul(r.dy(), derivative));
    return success();
  }
};

struct CastGradient {
  static LogicalResult build(CastOp op, DistBuilder &g, GradientRequest &r) {
    // Only float -> float casts carry gradients (autodiff never asks
    // through integers).
    r.set(0, g.cast(r.dy(), elementTypeOf(op.getInput())));
    return success();
  }
};

struct DropoutGradient {
  static LogicalResult build(DropoutOp op, DistBuilder &g, GradientRequest &r) {
    // The same mask as forward: dx = dy * keep / (1 - ratio).
    Value dy = r.resultGradients[0];
    if (!dy)
      return success();
    double ratio = op.getRatio().convertToDouble();
    Value zero = g.scalarLike(0, dy);
    if (ratio >= 1.0) {
      r.set(0, g.mul(dy, zero));
      return success();
    }
    r.set(0, g.mul(g.select(op.getMask(), dy, zero), 1.0 / (1.0 - ratio)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Binary ops: each operand's gradient summed back to its own shape.
//===----------------------------------------------------------------------===//

void setReduced(DistBuilder &g, GradientRequest &r, Operation *op,
                unsigned operand, Value gradient) {
  if (r.wants(operand) && gradient)
    r.set(operand, g.sumToShape(gradient, op->getOperand(operand).getType()));
}

struct AddGradient {
  static LogicalResult build(AddOp op, DistBuilder &g, GradientRequest &r) {
    setReduced(g, r, op, 0, r.dy());
    setReduced(g, r, op, 1, r.dy());
    return success();
  }
};

struct SubGradient {
  static LogicalResult build(SubOp op, DistBuilder &g, GradientRequest &r) {
    setReduced(g, r, op, 0, r.dy());
    if (r.wants(1))
      setReduced(g, r, op, 1, g.neg(r.dy()));
    return success();
  }
};

struct MulGradient {
  static LogicalResult build(MulOp op, DistBuilder &g, GradientRequest &r) {
    if (r.wants(0))
      setReduced(g, r, op, 0, g.mul(r.dy(), op.getRhs()));
    if (r.wants(1))
      setReduced(g, r, op, 1, g.mul(r.dy(), op.getLhs()));
    return success();
  }
};

struct DivGradient {
  static LogicalResult build(DivOp op, DistBuilder &g, GradientRequest &r) {
    // d(x/y)/dx = 1/y; d(x/y)/dy = -x/y^2 = -(x/y)/y.
    if (r.wants(0))
      setReduced(g, r, op, 0, g.div(r.dy(), op.getRhs()));
    if (r.wants(1))
      setReduced(g, r, op, 1,
                 g.neg(g.div(g.mul(r.dy(), op.getResult()), op.getRhs())));
    return success();
  }
};

struct PowGradient {
  static LogicalResult build(PowOp op, DistBuilder &g, GradientRequest &r) {
    Value x = op.getLhs(), e = op.getRhs(), y = op.getResult();
    Value zero = g.scalarLike(0, x);
    if (r.wants(0)) {
      // e * x^(e-1), and 0 where e == 0 (as PyTorch).
      Value xe1 = PowOp::create(g.getBuilder(), g.getLoc(), x,
                                g.sub(e, g.scalarLike(1, e)));
      Value d = g.select(g.compare(P::eq, e, zero), zero, g.mul(e, xe1));
      setReduced(g, r, op, 0, g.mul(r.dy(), d));
    }
    if (r.wants(1)) {
      // y * ln(x), and 0 where x == 0 and e >= 0 (as PyTorch).
      Value d = g.mul(y, apply<LogOp>(g, x));
      Value mask =
          AndOp::create(g.getBuilder(), g.getLoc(), g.compare(P::eq, x, zero),
                        g.compare(P::ge, e, zero));
      setReduced(g, r, op, 1, g.mul(r.dy(), g.select(mask, zero, d)));
    }
    return success();
  }
};

/// max/min: the gradient goes to the operand that was taken, half to each
/// on ties.
template <typename OpT, P Wins> struct ExtremumGradient {
  static LogicalResult build(OpT op, DistBuilder &g, GradientRequest &r) {
    Value a = op.getLhs(), b = op.getRhs(), dy = r.dy();
    Value zero = g.scalarLike(0, dy), half = g.mul(dy, 0.5);
    Value tie = g.compare(P::eq, a, b);
    if (r.wants(0))
      setReduced(
          g, r, op, 0,
          g.select(tie, half, g.select(g.compare(Wins, a, b), dy, zero)));
    if (r.wants(1))
      setReduced(
          g, r, op, 1,
          g.select(tie, half, g.select(g.compare(Wins, b, a), dy, zero)));
    return success();
  }
};

struct RemGradient {
  static LogicalResult build(RemOp op, DistBuilder &g, GradientRequest &r) {
    // x - y * trunc(x / y): dx = dy, dy' = -dy * trunc(x / y).
    setReduced(g, r, op, 0, r.dy());
    if (r.wants(1)) {
      Value q = g.div(op.getLhs(), op.getRhs());
      Value trunc = g.select(g.compare(P::lt, q, g.scalarLike(0, q)),
                             apply<CeilOp>(g, q), apply<FloorOp>(g, q));
      setReduced(g, r, op, 1, g.neg(g.mul(r.dy(), trunc)));
    }
    return success();
  }
};

struct SelectGradient {
  static LogicalResult build(SelectOp op, DistBuilder &g, GradientRequest &r) {
    Value zero = g.scalarLike(0, r.dy());
    if (r.wants(1))
      setReduced(g, r, op, 1, g.select(op.getCondition(), r.dy(), zero));
    if (r.wants(2))
      setReduced(g, r, op, 2, g.select(op.getCondition(), zero, r.dy()));
    return success();
  }
};

} // namespace

void mlir::dist::detail::attachElementwiseGradients(MLIRContext *ctx) {
  attachUnary<NegOp, negGrad>(ctx);
  attachUnary<AbsOp, absGrad>(ctx);
  attachUnary<ExpOp, expGrad>(ctx);
  attachUnary<LogOp, logGrad>(ctx);
  attachUnary<SqrtOp, sqrtGrad>(ctx);
  attachUnary<RsqrtOp, rsqrtGrad>(ctx);
  attachUnary<ReciprocalOp, reciprocalGrad>(ctx);
  attachUnary<TanhOp, tanhGrad>(ctx);
  attachUnary<ErfOp, erfGrad>(ctx);
  attachUnary<SigmoidOp, sigmoidGrad>(ctx);
  attachUnary<ReluOp, reluGrad>(ctx);
  attachUnary<SinOp, sinGrad>(ctx);
  attachUnary<CosOp, cosGrad>(ctx);
  attachUnary<TanOp, tanGrad>(ctx);
  attachUnary<AsinOp, asinGrad>(ctx);
  attachUnary<AcosOp, acosGrad>(ctx);
  attachUnary<AtanOp, atanGrad>(ctx);
  attachUnary<SinhOp, sinhGrad>(ctx);
  attachUnary<CoshOp, coshGrad>(ctx);
  attachUnary<AsinhOp, asinhGrad>(ctx);
  attachUnary<AcoshOp, acoshGrad>(ctx);
  attachUnary<AtanhOp, atanhGrad>(ctx);
  attachUnary<FloorOp, zeroGrad>(ctx);
  attachUnary<CeilOp, zeroGrad>(ctx);
  attachUnary<RoundOp, zeroGrad>(ctx);
  attachGradient<GeluOp, GeluGradient>(ctx);
  attachGradient<CastOp, CastGradient>(ctx);
  attachGradient<DropoutOp, DropoutGradient>(ctx);
  attachGradient<AddOp, AddGradient>(ctx);
  attachGradient<SubOp, SubGradient>(ctx);
  attachGradient<MulOp, MulGradient>(ctx);
  attachGradient<DivOp, DivGradient>(ctx);
  attachGradient<PowOp, PowGradient>(ctx);
  attachGradient<MaxOp, ExtremumGradient<MaxOp, P::gt>>(ctx);
  attachGradient<MinOp, ExtremumGradient<MinOp, P::lt>>(ctx);
  attachGradient<RemOp, RemGradient>(ctx);
  attachGradient<SelectOp, SelectGradient>(ctx);
}
