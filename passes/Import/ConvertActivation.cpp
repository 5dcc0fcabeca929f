//===- ConvertActivation.cpp - ONNX activations as dist expressions -------===//
//
// The activations without a dist op of their own, each built from dist
// elementwise ops by the formula of its ONNX definition.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/Decompose.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

using P = ComparePredicate;

static Value elu(NodeImporter &n, Decomposer &d, Value x) {
  double alpha = n.floatAttr("alpha", 1.0f);
  Value negative = d.mul(d.c(alpha), d.sub(d.exp(x), d.c(1)));
  return d.select(d.cmp(P::lt, x, d.c(0)), negative, x);
}

static Value selu(NodeImporter &n, Decomposer &d, Value x) {
  double alpha = n.floatAttr("alpha", 1.67326319217681884765625f);
  double gamma = n.floatAttr("gamma", 1.05070102214813232421875f);
  Value negative = d.sub(d.mul(d.c(alpha), d.exp(x)), d.c(alpha));
  return d.mul(d.c(gamma), d.select(d.cmp(P::le, x, d.c(0)), negative, x));
}

static Value celu(NodeImporter &n, Decomposer &d, Value x) {
  double alpha = n.floatAttr("alpha", 1.0f);
  Value scaled = d.mul(d.c(alpha), d.sub(d.exp(d.div(x, d.c(alpha))), d.c(1)));
  return d.add(d.max(x, d.c(0)), d.min(scaled, d.c(0)));
}

static Value hardSigmoid(NodeImporter &n, Decomposer &d, Value x) {
  double alpha = n.floatAttr("alpha", 0.2f), beta = n.floatAttr("beta", 0.5f);
  Value line = d.add(d.mul(d.c(alpha), x), d.c(beta));
  return d.max(d.c(0), d.min(d.c(1), line));
}

static Value hardSwish(NodeImporter &, Decomposer &d, Value x) {
  Value line = d.add(d.mul(d.c(1.0 / 6.0), x), d.c(0.5));
  return d.mul(x, d.max(d.c(0), d.min(d.c(1), line)));
}

/// ln(1 + e^x), as max(x, 0) + ln(1 + e^-|x|) so that large x do not
/// overflow.
static Value softplus(NodeImporter &, Decomposer &d, Value x) {
  Value tail = d.log(d.add(d.c(1), d.exp(d.unary<NegOp>(d.abs(x)))));
  return d.add(d.max(x, d.c(0)), tail);
}

static Value softsign(NodeImporter &, Decomposer &d, Value x) {
  return d.div(x, d.add(d.c(1), d.abs(x)));
}

static Value leakyRelu(NodeImporter &n, Decomposer &d, Value x) {
  double alpha = n.floatAttr("alpha", 0.01f);
  return d.select(d.cmp(P::lt, x, d.c(0)), d.mul(d.c(alpha), x), x);
}

static Value thresholdedRelu(NodeImporter &n, Decomposer &d, Value x) {
  double alpha = n.floatAttr("alpha", 1.0f);
  return d.select(d.cmp(P::gt, x, d.c(alpha)), x, d.c(0));
}

static Value shrink(NodeImporter &n, Decomposer &d, Value x) {
  double bias = n.floatAttr("bias", 0.0f), lambd = n.floatAttr("lambd", 0.5f);
  Value above =
      d.select(d.cmp(P::gt, x, d.c(lambd)), d.sub(x, d.c(bias)), d.c(0));
  return d.select(d.cmp(P::lt, x, d.c(-lambd)), d.add(x, d.c(bias)), above);
}

static Value mish(NodeImporter &n, Decomposer &d, Value x) {
  return d.mul(x, d.unary<TanhOp>(softplus(n, d, x)));
}

/// PRelu: the slope broadcasts against the input.
static LogicalResult convertPRelu(NodeImporter &n) {
  Value x = n.input(0), slope = n.input(1);
  if (!x || !slope)
    return failure();
  Decomposer d(n, x);
  return d.bind(d.select(d.cmp(P::lt, x, d.c(0)), d.mul(slope, x), x));
}

/// Clip: bounds are attributes before opset 11 and optional inputs after.
static LogicalResult convertClip(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Decomposer d(n, x);
  Value lower, upper;
  if (n.opset < 11) {
    if (n.attribute("min"))
      lower = d.c(n.floatAttr("min", 0.0f));
    if (n.attribute("max"))
      upper = d.c(n.floatAttr("max", 0.0f));
  } else {
    if (n.hasInput(1) && !(lower = n.input(1)))
      return failure();
    if (n.hasInput(2) && !(upper = n.input(2)))
      return failure();
  }
  Value y = x;
  if (lower)
    y = d.max(y, lower);
  if (upper)
    y = d.min(y, upper);
  return d.bind(y);
}

void mlir::dist::onnx_import::addActivationConverters(ConverterTable &table) {
  table["Elu"] = convertExpression<elu>;
  table["Selu"] = convertExpression<selu>;
  table["Celu"] = convertExpression<celu>;
  table["HardSigmoid"] = convertExpression<hardSigmoid>;
  table["HardSwish"] = convertExpression<hardSwish>;
  table["Softplus"] = convertExpression<softplus>;
  table["Softsign"] = convertExpression<softsign>;
  table["LeakyRelu"] = convertExpression<leakyRelu>;
  table["ThresholdedRelu"] = convertExpression<thresholdedRelu>;
  table["Shrink"] = convertExpression<shrink>;
  table["Mish"] = convertExpression<mish>;
  table["PRelu"] = convertPRelu;
  table["Clip"] = convertClip;
}
