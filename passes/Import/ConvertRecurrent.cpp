//===- ConvertRecurrent.cpp - ONNX RNN, GRU and LSTM to dist --------------===//
//
// dist compiles for static shapes, so a recurrent layer is unrolled over
// its time steps at import: the input projection of every step is one
// product (X W^T over the whole sequence), then each step is a product
// with the recurrent weights and the cell's elementwise equations (ONNX's,
// with its gate order: LSTM i, o, f, c; GRU z, r, h). The outputs are the
// steps' hidden states concatenated. Autodiff then differentiates the
// unrolled graph (backpropagation through time) with no op of its own.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/NodeImporter.h"

#include "dialects/Dist/IR/DistBuilder.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

namespace {

enum class Cell { Rnn, Gru, Lstm };

/// An activation of the `activations` attribute.
enum class Activation { Sigmoid, Tanh, Relu };

/// What one direction of the layer reads, already sliced out of the
/// node's [directions, ...] operands.
struct Direction {
  Value w, r;              // [G*H, I], [G*H, H]
  Value wBias, rBias;      // [G*H] each, or null
  Value h0, c0;            // [B, H], or null (zeros)
  Value peephole;          // [3*H] (LSTM: i, o, f), or null
  bool reverse = false;
  SmallVector<Activation, 3> activations;
};

struct CellAttrs {
  Cell cell;
  int64_t hidden = 0, batch = 0, steps = 0;
  std::optional<double> clip;
  bool linearBeforeReset = false;
};

} // namespace

static int64_t gateCount(Cell cell) {
  return cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
}

static Value activate(DistBuilder &g, Activation a, Value x) {
  switch (a) {
  case Activation::Sigmoid:
    return SigmoidOp::create(g.getBuilder(), g.getLoc(), x);
  case Activation::Tanh:
    return TanhOp::create(g.getBuilder(), g.getLoc(), x);
  case Activation::Relu:
    return ReluOp::create(g.getBuilder(), g.getLoc(), x);
  }
  llvm_unreachable("unknown activation");
}

/// `x` cut into `parts` equal pieces along `axis` by one dist.split, whose
/// gradient is one concatenation. (Slices would each get a gradient of
/// `x`'s full size, zeros but for the slice, all added up: quadratic in
/// the number of time steps.)
static SmallVector<Value> splitEqual(DistBuilder &g, Value x, int64_t axis,
                                     int64_t parts) {
  if (parts == 1)
    return {x};
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] /= parts;
  SmallVector<Type> types(parts, type.clone(shape));
  auto split = SplitOp::create(g.getBuilder(), g.getLoc(), types, x,
                               static_cast<uint64_t>(axis));
  return SmallVector<Value>(split.getResults());
}

/// Rows [k*H, (k+n)*H) of a [G*H, ...] weight, or elements of a [G*H]
/// bias: gates k .. k+n-1.
static Value gateRows(DistBuilder &g, Value w, int64_t k, int64_t n,
                      int64_t hidden) {
  if (!w)
    return w;
  SmallVector<int64_t> shape(shapeOf(w)), starts(shape.size(), 0),
      strides(shape.size(), 1);
  shape[0] = n * hidden;
  starts[0] = k * hidden;
  return g.slice(w, starts, strides, shape);
}

/// `x` clamped to [-clip, clip] when the node clips.
static Value clipped(DistBuilder &g, const CellAttrs &a, Value x) {
  if (!a.clip)
    return x;
  Value high = g.scalarLike(*a.clip, x), low = g.scalarLike(-*a.clip, x);
  return MinOp::create(g.getBuilder(), g.getLoc(),
                       MaxOp::create(g.getBuilder(), g.getLoc(), x, low),
                       high);
}

static Value addBias(DistBuilder &g, Value x, Value bias) {
  return bias ? g.add(x, bias) : x;
}

/// One direction over the whole sequence: the hidden state of every step
/// ([S, 1, B, H], in time order), the last hidden state and (LSTM) the last
/// cell state ([1, B, H] each).
static std::tuple<Value, Value, Value>
runDirection(DistBuilder &g, const CellAttrs &a, Value x, const Direction &d) {
  int64_t h = a.hidden, b = a.batch, steps = a.steps;
  int64_t gates = gateCount(a.cell);
  Type element = elementTypeOf(x);
  auto stateType = RankedTensorType::get({b, h}, element);
  // The input projection of every step at once: [S, B, G*H], with the
  // input bias (and the recurrent one, except GRU's candidate part when it
  // is applied after the reset gate).
  Value projected = addBias(g, g.matmul(x, d.w, false, true), d.wBias);
  Value rBias = d.rBias;
  Value candidateBias;
  if (a.cell == Cell::Gru && rBias) {
    candidateBias = gateRows(g, rBias, 2, 1, h);
    rBias = gateRows(g, rBias, 0, 2, h);
  }
  Value state = d.h0 ? d.h0 : g.zeros(stateType);
  Value cellState = d.c0 ? d.c0 : g.zeros(stateType);
  Value peepI, peepO, peepF;
  if (d.peephole) {
    peepI = gateRows(g, d.peephole, 0, 1, h);
    peepO = gateRows(g, d.peephole, 1, 1, h);
    peepF = gateRows(g, d.peephole, 2, 1, h);
  }
  SmallVector<Value> inputs = splitEqual(g, projected, 0, steps);
  SmallVector<Value> rzr, rh;
  if (a.cell == Cell::Gru) {
    rzr.push_back(gateRows(g, d.r, 0, 2, h));
    rh.push_back(gateRows(g, d.r, 2, 1, h));
  }
  SmallVector<Value> outputs(steps);
  for (int64_t step = 0; step < steps; ++step) {
    int64_t t = d.reverse ? steps - 1 - step : step;
    Value xt = g.reshape(inputs[t], {b, gates * h});
    switch (a.cell) {
    case Cell::Rnn: {
      Value pre = addBias(g, g.add(xt, g.matmul(state, d.r, false, true)),
                          rBias);
      state = activate(g, d.activations[0], clipped(g, a, pre));
      break;
    }
    case Cell::Gru: {
      SmallVector<Value> xg = splitEqual(g, xt, 1, 3);
      Value xzr = ConcatOp::create(g.getBuilder(), g.getLoc(),
                                   ValueRange{xg[0], xg[1]}, uint64_t(1));
      Value zr = addBias(
          g, g.add(xzr, g.matmul(state, rzr.front(), false, true)), rBias);
      SmallVector<Value> zrg = splitEqual(g, zr, 1, 2);
      Value z = activate(g, d.activations[0], clipped(g, a, zrg[0]));
      Value r = activate(g, d.activations[0], clipped(g, a, zrg[1]));
      Value recurrent =
          a.linearBeforeReset
              ? g.mul(r, addBias(g, g.matmul(state, rh.front(), false, true),
                                 candidateBias))
              : addBias(g, g.matmul(g.mul(r, state), rh.front(), false, true),
                        candidateBias);
      Value candidate = activate(g, d.activations[1],
                                 clipped(g, a, g.add(xg[2], recurrent)));
      // H = (1 - z) * candidate + z * H_prev.
      state = g.add(g.mul(g.sub(g.scalarLike(1.0, z), z), candidate),
                    g.mul(z, state));
      break;
    }
    case Cell::Lstm: {
      Value pre = addBias(g, g.add(xt, g.matmul(state, d.r, false, true)),
                          rBias);
      SmallVector<Value> gs = splitEqual(g, pre, 1, 4);
      Value i = gs[0], o = gs[1], f = gs[2], c = gs[3];
      if (peepI) {
        i = g.add(i, g.mul(peepI, cellState));
        f = g.add(f, g.mul(peepF, cellState));
      }
      i = activate(g, d.activations[0], clipped(g, a, i));
      f = activate(g, d.activations[0], clipped(g, a, f));
      c = activate(g, d.activations[1], clipped(g, a, c));
      cellState = g.add(g.mul(f, cellState), g.mul(i, c));
      if (peepO)
        o = g.add(o, g.mul(peepO, cellState));
      o = activate(g, d.activations[0], clipped(g, a, o));
      state = g.mul(o, activate(g, d.activations[2], cellState));
      break;
    }
    }
    outputs[t] = g.reshape(state, {1, 1, b, h});
  }
  Value all = outputs.size() == 1
                  ? outputs.front()
                  : ConcatOp::create(g.getBuilder(), g.getLoc(),
                                     ValueRange(outputs), uint64_t(0))
                        .getResult();
  return {all, g.reshape(state, {1, b, h}), g.reshape(cellState, {1, b, h})};
}

/// The activations of each direction (`activations`, or the cell's
/// defaults), or an error naming the one not supported.
static FailureOr<SmallVector<SmallVector<Activation, 3>>>
readActivations(NodeImporter &n, Cell cell, int64_t directions) {
  size_t perDirection = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 2 : 3;
  const onnx::AttributeProto *attr = n.attribute("activations");
  SmallVector<std::string> names;
  if (attr) {
    for (const std::string &s : attr->strings())
      names.push_back(s);
  } else {
    static const char *const defaults[] = {"Sigmoid", "Tanh", "Tanh"};
    for (size_t k = 0; k < perDirection; ++k)
      names.push_back(cell == Cell::Rnn ? "Tanh" : defaults[k]);
  }
  if (names.size() == perDirection && directions == 2)
    names.append(SmallVector<std::string>(names));
  if (names.size() != perDirection * directions)
    return n.emitError() << "activations must name " << perDirection
                         << " functions per direction, got " << names.size(),
           failure();
  if (n.attribute("activation_alpha") || n.attribute("activation_beta"))
    return (void)n.unsupported("activation_alpha and activation_beta are "
                               "not supported"),
           failure();
  SmallVector<SmallVector<Activation, 3>> result(directions);
  for (auto [k, name] : llvm::enumerate(names)) {
    Activation a;
    if (name == "Sigmoid")
      a = Activation::Sigmoid;
    else if (name == "Tanh")
      a = Activation::Tanh;
    else if (name == "Relu")
      a = Activation::Relu;
    else
      return (void)n.unsupported("activation '" + name +
                                 "' (Sigmoid, Tanh and Relu are supported)"),
             failure();
    result[k / perDirection].push_back(a);
  }
  return result;
}

/// Checks that optional input `i` is absent or has `shape`.
static LogicalResult checkShape(NodeImporter &n, unsigned i, StringRef what,
                                ArrayRef<int64_t> shape) {
  if (!n.hasInput(i))
    return success();
  RankedTensorType type = n.inputType(i);
  if (type.getShape() != shape)
    return n.emitError() << what << " must be "
                         << RankedTensorType::get(shape,
                                                  type.getElementType())
                         << ", got " << type,
           failure();
  return success();
}

template <Cell cell> static LogicalResult convertRecurrent(NodeImporter &n) {
  Value x = n.input(0), w = n.input(1), r = n.input(2);
  if (!x || !w || !r)
    return failure();
  RankedTensorType xType = n.inputType(0), wType = n.inputType(1);
  if (xType.getRank() != 3 || !xType.hasStaticShape() ||
      !isa<FloatType>(xType.getElementType()))
    return n.emitError() << "X must be a static rank-3 float tensor, got "
                         << xType,
           failure();
  int64_t layout = n.opset >= 14 ? n.intAttr("layout", 0) : 0;
  if (layout != 0 && layout != 1)
    return n.emitError() << "layout must be 0 or 1, got " << layout,
           failure();
  DistBuilder g(n.builder, n.loc);
  // Work in the [S, B, ...] layout.
  if (layout == 1)
    x = g.transpose(x, {1, 0, 2});
  ArrayRef<int64_t> xShape = shapeOf(x);
  CellAttrs a{cell};
  a.steps = xShape[0];
  a.batch = xShape[1];
  int64_t inputSize = xShape[2], gates = gateCount(cell);
  std::string direction = n.stringAttr("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return n.emitError() << "unknown direction '" << direction << "'",
           failure();
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  if (wType.getRank() != 3 || wType.getDimSize(0) != directions ||
      wType.getDimSize(1) % gates != 0 || wType.getDimSize(2) != inputSize ||
      wType.getElementType() != xType.getElementType())
    return n.emitError() << "W must be " << directions << " x " << gates
                         << "*hidden_size x " << inputSize << " of X's type, got "
                         << wType,
           failure();
  a.hidden = wType.getDimSize(1) / gates;
  if (a.steps < 1 || a.batch < 1 || a.hidden < 1)
    return n.emitError() << "the sequence, the batch and the hidden size "
                            "must not be empty (X "
                         << xType << ", W " << wType << ")",
           failure();
  if (int64_t given = n.intAttr("hidden_size", a.hidden); given != a.hidden)
    return n.emitError() << "hidden_size " << given
                         << " does not match W's " << a.hidden,
           failure();
  int64_t h = a.hidden;
  if (failed(checkShape(n, 2, "R", {directions, gates * h, h})) ||
      failed(checkShape(n, 3, "B", {directions, 2 * gates * h})))
    return failure();
  SmallVector<int64_t> stateShape =
      layout == 1 ? SmallVector<int64_t>{a.batch, directions, h}
                  : SmallVector<int64_t>{directions, a.batch, h};
  if (failed(checkShape(n, 5, "initial_h", stateShape)))
    return failure();
  if (cell == Cell::Lstm &&
      (failed(checkShape(n, 6, "initial_c", stateShape)) ||
       failed(checkShape(n, 7, "P", {directions, 3 * h}))))
    return failure();
  for (unsigned i = 1; i < n.numInputs(); ++i)
    if (i != 4 && n.hasInput(i) &&
        n.inputType(i).getElementType() != xType.getElementType())
      return n.emitError() << "every float input must have X's element type",
             failure();
  // Variable sequence lengths would need masking per batch element; only
  // lengths that are all the full sequence are accepted.
  if (n.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> lengths =
        n.constantInts(4, "sequence_lens");
    if (failed(lengths))
      return failure();
    if (static_cast<int64_t>(lengths->size()) != a.batch ||
        llvm::any_of(*lengths, [&](int64_t l) { return l != a.steps; }))
      return n.unsupported("sequence_lens other than the full length " +
                           Twine(a.steps) +
                           " for every batch element are not supported; "
                           "pad the sequences and mask the loss instead");
  }
  if (const onnx::AttributeProto *clip = n.attribute("clip")) {
    if (!(clip->f() > 0))
      return n.emitError() << "clip must be positive", failure();
    a.clip = clip->f();
  }
  if (cell == Cell::Lstm && n.intAttr("input_forget", 0) != 0)
    return n.unsupported("input_forget is not supported");
  a.linearBeforeReset = n.intAttr("linear_before_reset", 0) != 0;
  FailureOr<SmallVector<SmallVector<Activation, 3>>> activations =
      readActivations(n, cell, directions);
  if (failed(activations))
    return failure();

  // Each direction's operands, sliced out of the [directions, ...] ones.
  auto of = [&](Value v, int64_t d) -> Value {
    if (!v)
      return v;
    SmallVector<int64_t> shape(shapeOf(v)), starts(shape.size(), 0),
        strides(shape.size(), 1);
    shape[0] = 1;
    starts[0] = d;
    return g.reshape(g.slice(v, starts, strides, shape),
                     ArrayRef<int64_t>(shape).drop_front());
  };
  auto optional = [&](unsigned i) -> FailureOr<Value> {
    if (!n.hasInput(i))
      return Value();
    Value v = n.input(i);
    if (!v)
      return failure();
    return v;
  };
  FailureOr<Value> bias = optional(3), h0 = optional(5),
                   c0 = cell == Cell::Lstm ? optional(6) : Value(),
                   peephole = cell == Cell::Lstm ? optional(7) : Value();
  if (failed(bias) || failed(h0) || failed(c0) || failed(peephole))
    return failure();
  if (layout == 1) {
    if (*h0)
      *h0 = g.transpose(*h0, {1, 0, 2});
    if (*c0)
      *c0 = g.transpose(*c0, {1, 0, 2});
  }
  SmallVector<Value> ys, hs, cs;
  for (int64_t k = 0; k < directions; ++k) {
    Direction d;
    d.w = of(w, k);
    d.r = of(r, k);
    if (*bias) {
      Value both = of(*bias, k);
      d.wBias = g.slice(both, {0}, {1}, {gates * h});
      d.rBias = g.slice(both, {gates * h}, {1}, {gates * h});
    }
    d.h0 = of(*h0, k);
    d.c0 = of(*c0, k);
    d.peephole = of(*peephole, k);
    d.reverse = direction == "reverse" || k == 1;
    d.activations = (*activations)[k];
    auto [y, hLast, cLast] = runDirection(g, a, x, d);
    ys.push_back(y);
    hs.push_back(hLast);
    cs.push_back(cLast);
  }
  auto join = [&](ArrayRef<Value> parts, uint64_t axis) -> Value {
    if (parts.size() == 1)
      return parts.front();
    return ConcatOp::create(g.getBuilder(), g.getLoc(), ValueRange(parts),
                            axis);
  };
  Value y = join(ys, 1), yh = join(hs, 0), yc = join(cs, 0);
  if (layout == 1) {
    y = g.transpose(y, {2, 0, 1, 3});
    yh = g.transpose(yh, {1, 0, 2});
    yc = g.transpose(yc, {1, 0, 2});
  }
  n.setOutput(0, y);
  n.setOutput(1, yh);
  if (cell == Cell::Lstm)
    n.setOutput(2, yc);
  return success();
}

void mlir::dist::onnx_import::addRecurrentConverters(ConverterTable &table) {
  table["RNN"] = convertRecurrent<Cell::Rnn>;
  table["GRU"] = convertRecurrent<Cell::Gru>;
  table["LSTM"] = convertRecurrent<Cell::Lstm>;
}
