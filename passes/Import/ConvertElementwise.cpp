//===- ConvertElementwise.cpp - ONNX elementwise ops to dist --------------===//

#include "passes/Import/ConstantEval.h"
#include "passes/Import/Decompose.h"

#include "llvm/Support/xxhash.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

static LogicalResult convertIdentity(NodeImporter &n) {
  if (DenseElementsAttr c = n.constantInput(0)) {
    n.setConstantOutput(0, c);
    return success();
  }
  Value x = n.input(0);
  if (!x)
    return failure();
  n.setOutput(0, x);
  return success();
}

/// Tries to evaluate the node on constant inputs of one kind (integers for
/// shape arithmetic; small floats for numbers a model computes in floating
/// point before a Cast to a shape or an index); `fn` gets one element of each
/// input. Returns true when it bound the output.
template <typename T>
static bool foldKnown(NodeImporter &n, Type resultElementType,
                      function_ref<std::optional<T>(ArrayRef<T>)> fn) {
  SmallVector<KnownTensor<T>> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    std::optional<KnownTensor<T>> t = toKnownTensor<T>(n.constantInput(i));
    // (Integer folds mix types: Where's condition, Cast's input; float ones
    // take one type.)
    if (!t || (std::is_same_v<T, double> && !inputs.empty() &&
               t->elementType != inputs[0].elementType))
      return false;
    inputs.push_back(std::move(*t));
  }
  if (inputs.empty())
    return false;
  SmallVector<const KnownTensor<T> *> ptrs;
  for (const KnownTensor<T> &t : inputs)
    ptrs.push_back(&t);
  if (!resultElementType)
    resultElementType = inputs.front().elementType;
  std::optional<KnownTensor<T>> r =
      evalBroadcast<T>(ptrs, resultElementType, fn);
  if (!r)
    return false;
  n.setConstantOutput(0, toAttr(*r));
  return true;
}

static bool
foldIntegers(NodeImporter &n, Type resultElementType,
             function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fn) {
  return foldKnown<int64_t>(n, resultElementType, fn);
}

static bool foldFloats(NodeImporter &n,
                       function_ref<std::optional<double>(ArrayRef<double>)> fn) {
  return foldKnown<double>(n, Type(), fn);
}

template <typename OpTy> static LogicalResult convertUnary(NodeImporter &n) {
  // Shape arithmetic negates (e.g. a count of trailing axes) and takes sizes.
  if constexpr (std::is_same_v<OpTy, NegOp> || std::is_same_v<OpTy, AbsOp>)
    if (foldIntegers(n, Type(),
                     [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                       if (std::is_same_v<OpTy, NegOp>)
                         return -v[0];
                       return v[0] < 0 ? -v[0] : v[0];
                     }))
      return success();
  // The same on floats, and the roundings a float size computation ends
  // with (double holds each float exactly, and one rounding of the double
  // result to the element type is the correctly rounded result).
  if constexpr (std::is_same_v<OpTy, NegOp> || std::is_same_v<OpTy, AbsOp> ||
                std::is_same_v<OpTy, FloorOp> ||
                std::is_same_v<OpTy, CeilOp> || std::is_same_v<OpTy, SqrtOp>)
    if (foldFloats(n, [](ArrayRef<double> v) -> std::optional<double> {
          if constexpr (std::is_same_v<OpTy, NegOp>)
            return -v[0];
          if constexpr (std::is_same_v<OpTy, AbsOp>)
            return std::fabs(v[0]);
          if constexpr (std::is_same_v<OpTy, FloorOp>)
            return std::floor(v[0]);
          if constexpr (std::is_same_v<OpTy, CeilOp>)
            return std::ceil(v[0]);
          return std::sqrt(v[0]);
        }))
      return success();
  Value x = n.input(0);
  if (!x)
    return failure();
  n.setOutput(0, n.create<OpTy>(x));
  return success();
}

/// Pow of integers: computed in f64 and converted back, as ONNX defines it.
static LogicalResult convertIntegerPow(NodeImporter &n, Value base,
                                       Value exponent) {
  Type type = getElementTypeOrSelf(base.getType());
  Type f64 = n.builder.getF64Type();
  Decomposer d(n, f64);
  return d.bind(
      d.cast(d.binary<PowOp>(d.cast(base, f64), d.cast(exponent, f64)), type));
}

template <typename OpTy> static LogicalResult convertBinary(NodeImporter &n) {
  // Evaluated on known integers (shape arithmetic) and floats (+ - * /).
  auto eval = [&](auto v) -> std::optional<std::decay_t<decltype(v[0])>> {
    constexpr bool isInt = std::is_same_v<std::decay_t<decltype(v[0])>, int64_t>;
    if constexpr (std::is_same_v<OpTy, AddOp>)
      return v[0] + v[1];
    if constexpr (std::is_same_v<OpTy, SubOp>)
      return v[0] - v[1];
    if constexpr (std::is_same_v<OpTy, MulOp>)
      return v[0] * v[1];
    if constexpr (std::is_same_v<OpTy, DivOp>) {
      if (isInt && v[1] == 0)
        return std::nullopt;
      return v[0] / v[1];
    }
    if constexpr (isInt && std::is_same_v<OpTy, MaxOp>)
      return std::max(v[0], v[1]);
    if constexpr (isInt && std::is_same_v<OpTy, MinOp>)
      return std::min(v[0], v[1]);
    if constexpr (isInt && std::is_same_v<OpTy, AndOp>)
      return v[0] && v[1];
    if constexpr (isInt && std::is_same_v<OpTy, OrOp>)
      return v[0] || v[1];
    if constexpr (isInt && std::is_same_v<OpTy, XorOp>)
      return (v[0] != 0) != (v[1] != 0);
    return std::nullopt;
  };
  if (n.numInputs() == 2 &&
      (foldIntegers(n, Type(), [&](ArrayRef<int64_t> v) { return eval(v); }) ||
       foldFloats(n, [&](ArrayRef<double> v) { return eval(v); })))
    return success();
  // Max and Min take any number of inputs.
  Value acc = n.input(0);
  if (!acc)
    return failure();
  if (n.numInputs() < 2 && !std::is_same_v<OpTy, MaxOp> &&
      !std::is_same_v<OpTy, MinOp>)
    return n.unsupported("needs two inputs");
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    Value rhs = n.input(i);
    if (!rhs)
      return failure();
    // ONNX Pow lets the exponent's type differ from the base's.
    if constexpr (std::is_same_v<OpTy, PowOp>) {
      if (!isa<FloatType>(getElementTypeOrSelf(acc.getType())))
        return convertIntegerPow(n, acc, rhs);
      auto base = cast<RankedTensorType>(acc.getType());
      auto exponent = cast<RankedTensorType>(rhs.getType());
      if (exponent.getElementType() != base.getElementType())
        rhs = n.create<CastOp>(exponent.clone(base.getElementType()), rhs);
    }
    acc = n.buildValue<OpTy>(acc, rhs);
    if (!acc)
      return failure();
  }
  n.setOutput(0, acc);
  return success();
}

template <ComparePredicate predicate>
static LogicalResult convertCompare(NodeImporter &n) {
  auto eval = [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
    switch (predicate) {
    case ComparePredicate::eq:
      return v[0] == v[1];
    case ComparePredicate::ne:
      return v[0] != v[1];
    case ComparePredicate::lt:
      return v[0] < v[1];
    case ComparePredicate::le:
      return v[0] <= v[1];
    case ComparePredicate::gt:
      return v[0] > v[1];
    case ComparePredicate::ge:
      return v[0] >= v[1];
    }
    return std::nullopt;
  };
  if (foldIntegers(n, n.builder.getI1Type(), eval))
    return success();
  Value lhs = n.input(0), rhs = n.input(1);
  if (!lhs || !rhs)
    return failure();
  Value result = n.buildValue<CompareOp>(predicate, lhs, rhs);
  n.setOutput(0, result);
  return success(result != nullptr);
}

static LogicalResult convertNot(NodeImporter &n) {
  if (foldIntegers(n, Type(),
                   [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                     return v[0] == 0;
                   }))
    return success();
  return convertUnary<NotOp>(n);
}

static LogicalResult convertWhere(NodeImporter &n) {
  if (n.constantInput(1) && toIntTensor(n.constantInput(1)) &&
      foldIntegers(n, toIntTensor(n.constantInput(1))->elementType,
                   [](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                     return v[0] ? v[1] : v[2];
                   }))
    return success();
  Value c = n.input(0), t = n.input(1), f = n.input(2);
  if (!c || !t || !f)
    return failure();
  Value result = n.buildValue<SelectOp>(c, t, f);
  n.setOutput(0, result);
  return success(result != nullptr);
}

/// A cast of a constant that involves floats (float to integer, integer to
/// float, float to float) evaluated now, or nullopt. Float to integer
/// truncates toward zero, as ONNX does; a value the integer type cannot hold
/// (NaN, infinite, out of range: undefined in ONNX) is left to the step.
static std::optional<DenseElementsAttr> castKnown(DenseElementsAttr c,
                                                  Type to) {
  if (!c)
    return std::nullopt;
  if (std::optional<FloatTensor> t = toFloatTensor(c)) {
    if (isa<FloatType>(to)) {
      t->elementType = to;
      return toAttr(*t);
    }
    if (!to.isSignlessInteger())
      return std::nullopt;
    unsigned width = to.getIntOrFloatBitWidth();
    IntTensor r{t->shape, {}, to};
    for (double v : t->data) {
      if (width == 1) {
        r.data.push_back(v != 0.0);
        continue;
      }
      double whole = std::trunc(v);
      double limit = std::ldexp(1.0, static_cast<int>(width) - 1);
      if (!std::isfinite(v) || whole < -limit || whole >= limit)
        return std::nullopt;
      r.data.push_back(static_cast<int64_t>(whole));
    }
    return toAttr(r);
  }
  if (std::optional<IntTensor> t = toIntTensor(c);
      t && isa<FloatType>(to) && t->size() <= kMaxEvaluatedFloats) {
    // Integers beyond 2^53 would be rounded twice (to double, then to the
    // float type): left to the step.
    FloatTensor r{t->shape, {}, to};
    for (int64_t v : t->data) {
      if (v > (int64_t(1) << 53) || v < -(int64_t(1) << 53))
        return std::nullopt;
      r.data.push_back(static_cast<double>(v));
    }
    return toAttr(r);
  }
  return std::nullopt;
}

static LogicalResult convertCast(NodeImporter &n) {
  int64_t to = n.intAttr("to", 0);
  Type elementType = convertElementType(n.getContext(), to);
  if (!elementType)
    return n.unsupported("casts to ONNX element type " + std::to_string(to) +
                         " are not supported");
  if (isa<IntegerType>(elementType) &&
      foldIntegers(n, elementType,
                   [&](ArrayRef<int64_t> v) -> std::optional<int64_t> {
                     return elementType.isInteger(1) ? v[0] != 0 : v[0];
                   }))
    return success();
  if (std::optional<DenseElementsAttr> folded =
          castKnown(n.constantInput(0), elementType)) {
    n.setConstantOutput(0, *folded);
    return success();
  }
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getElementType() == elementType) {
    n.setOutput(0, x);
    return success();
  }
  n.setOutput(0, n.create<CastOp>(type.clone(elementType), x));
  return success();
}

static LogicalResult convertGelu(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::string approximate = n.stringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return n.unsupported("approximate = '" + approximate + "'");
  n.setOutput(0, n.create<GeluOp>(x, approximate == "tanh"));
  return success();
}

static LogicalResult convertDropout(NodeImporter &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  double ratio = n.opset >= 12 ? 0.5 : n.floatAttr("ratio", 0.5);
  if (n.hasInput(1)) {
    DenseElementsAttr r = n.constantInput(1);
    if (!r || !isa<FloatType>(r.getElementType()) || r.getNumElements() != 1)
      return n.unsupported("the ratio must be a constant scalar");
    ratio = (*r.getValues<APFloat>().begin()).convertToDouble();
  }
  bool training = false;
  if (n.hasInput(2)) {
    std::optional<IntTensor> t = toIntTensor(n.constantInput(2));
    if (!t || t->size() != 1)
      return n.unsupported("training_mode must be a constant");
    training = t->data[0] != 0;
  }
  if (!training || ratio == 0.0) {
    n.setOutput(0, x);
    if (n.hasOutput(1)) {
      auto mask =
          cast<RankedTensorType>(x.getType()).clone(n.builder.getI1Type());
      n.setConstantOutput(1, DenseElementsAttr::get(mask, true));
    }
    return success();
  }
  if (ratio < 0.0 || ratio >= 1.0)
    return n.emitError() << "ratio " << ratio << " must be in [0, 1)",
           failure();
  // Each dropout node draws its own masks: its identity is a hash of its
  // output's name (unique in the graph), mixed with the node's own seed.
  uint64_t seed = llvm::xxh3_64bits(n.node.output(0)) ^
                  static_cast<uint64_t>(n.intAttr("seed", 0));
  FailureOr<DropoutOp> op =
      n.build<DropoutOp>(x, ValueRange(), ValueRange(), APFloat(ratio), seed,
                         DenseI64ArrayAttr());
  if (failed(op))
    return failure();
  n.setOutput(0, op->getResult());
  n.setOutput(1, op->getMask());
  return success();
}

static Value castLike(NodeImporter &n, Decomposer &d, Value x) {
  return d.cast(x, n.inputType(1).getElementType());
}

/// Sign: 1, -1 or 0 by comparison.
static Value sign(NodeImporter &, Decomposer &d, Value x) {
  Value zero = d.c(0);
  return d.select(
      d.cmp(ComparePredicate::gt, x, zero), d.c(1),
      d.select(d.cmp(ComparePredicate::lt, x, zero), d.c(-1), zero));
}

/// IsNaN: NaN is the only value unequal to itself.
static Value isNaN(NodeImporter &, Decomposer &d, Value x) {
  return d.cmp(ComparePredicate::ne, x, x);
}

static Value isInf(NodeImporter &n, Decomposer &d, Value x) {
  double inf = std::numeric_limits<double>::infinity();
  bool positive = n.intAttr("detect_positive", 1) != 0;
  bool negative = n.intAttr("detect_negative", 1) != 0;
  if (positive && negative)
    return d.cmp(ComparePredicate::eq, d.abs(x), d.c(inf));
  if (positive || negative)
    return d.cmp(ComparePredicate::eq, x, d.c(positive ? inf : -inf));
  auto type = cast<RankedTensorType>(x.getType()).clone(n.builder.getI1Type());
  return n.create<ConstantOp>(DenseElementsAttr::get(type, false));
}

/// Sum and Mean of any number of broadcasting inputs.
static LogicalResult convertSumOrMean(NodeImporter &n) {
  Value acc = n.input(0);
  if (!acc)
    return failure();
  Decomposer d(n, acc);
  for (unsigned i = 1; i < n.numInputs(); ++i)
    acc = d.add(acc, n.input(i));
  if (n.node.op_type() == "Mean")
    acc = d.div(acc, d.c(n.numInputs()));
  return d.bind(acc);
}

/// Mod: with `fmod` the remainder takes the dividend's sign (dist.rem);
/// without, the divisor's (integers only), as in Python.
static LogicalResult convertMod(NodeImporter &n) {
  // Shape arithmetic (Hugging Face Swin pads to a multiple of its window:
  // (window - size % window) % window) folds; fmod = 0 takes the divisor's
  // sign, as Python's %.
  bool fmod = n.intAttr("fmod", 0) != 0;
  auto eval = [&](ArrayRef<int64_t> v) -> std::optional<int64_t> {
    if (v[1] == 0)
      return std::nullopt;
    if (v[1] == -1) // (INT64_MIN % -1 overflows)
      return 0;
    int64_t r = v[0] % v[1];
    if (!fmod && r != 0 && (r < 0) != (v[1] < 0))
      r += v[1];
    return r;
  };
  if (n.numInputs() == 2 && foldIntegers(n, Type(), eval))
    return success();
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  Decomposer d(n, a);
  Value r = d.binary<RemOp>(a, b);
  if (n.intAttr("fmod", 0))
    return d.bind(r);
  if (isa<FloatType>(getElementTypeOrSelf(a.getType())))
    return n.emitError() << "Mod of floating-point values needs fmod = 1",
           failure();
  using P = ComparePredicate;
  Value zero = d.c(0);
  Value signsDiffer =
      d.cmp(P::ne, d.cmp(P::lt, r, zero), d.cmp(P::lt, b, zero));
  Value fix = d.binary<AndOp>(d.cmp(P::ne, r, zero), signsDiffer);
  return d.bind(d.select(fix, d.add(r, b), r));
}

void mlir::dist::onnx_import::addElementwiseConverters(ConverterTable &table) {
  table["Round"] = convertUnary<RoundOp>;
  table["Tan"] = convertUnary<TanOp>;
  table["Asin"] = convertUnary<AsinOp>;
  table["Acos"] = convertUnary<AcosOp>;
  table["Atan"] = convertUnary<AtanOp>;
  table["Sinh"] = convertUnary<SinhOp>;
  table["Cosh"] = convertUnary<CoshOp>;
  table["Asinh"] = convertUnary<AsinhOp>;
  table["Acosh"] = convertUnary<AcoshOp>;
  table["Atanh"] = convertUnary<AtanhOp>;
  table["Sign"] = convertExpression<sign>;
  table["IsNaN"] = convertExpression<isNaN>;
  table["IsInf"] = convertExpression<isInf>;
  table["Sum"] = convertSumOrMean;
  table["Mean"] = convertSumOrMean;
  table["Mod"] = convertMod;
  table["CastLike"] = convertExpression<castLike>;
  table["Identity"] = convertIdentity;
  table["Neg"] = convertUnary<NegOp>;
  table["Abs"] = convertUnary<AbsOp>;
  table["Exp"] = convertUnary<ExpOp>;
  table["Log"] = convertUnary<LogOp>;
  table["Sqrt"] = convertUnary<SqrtOp>;
  table["Reciprocal"] = convertUnary<ReciprocalOp>;
  table["Tanh"] = convertUnary<TanhOp>;
  table["Erf"] = convertUnary<ErfOp>;
  table["Sigmoid"] = convertUnary<SigmoidOp>;
  table["Relu"] = convertUnary<ReluOp>;
  table["Sin"] = convertUnary<SinOp>;
  table["Cos"] = convertUnary<CosOp>;
  table["Floor"] = convertUnary<FloorOp>;
  table["Ceil"] = convertUnary<CeilOp>;
  table["Not"] = convertNot;
  table["Gelu"] = convertGelu;
  table["Add"] = convertBinary<AddOp>;
  table["Sub"] = convertBinary<SubOp>;
  table["Mul"] = convertBinary<MulOp>;
  table["Div"] = convertBinary<DivOp>;
  table["Pow"] = convertBinary<PowOp>;
  table["Max"] = convertBinary<MaxOp>;
  table["Min"] = convertBinary<MinOp>;
  table["And"] = convertBinary<AndOp>;
  table["Or"] = convertBinary<OrOp>;
  table["Xor"] = convertBinary<XorOp>;
  table["Equal"] = convertCompare<ComparePredicate::eq>;
  table["Less"] = convertCompare<ComparePredicate::lt>;
  table["LessOrEqual"] = convertCompare<ComparePredicate::le>;
  table["Greater"] = convertCompare<ComparePredicate::gt>;
  table["GreaterOrEqual"] = convertCompare<ComparePredicate::ge>;
  table["Where"] = convertWhere;
  table["Cast"] = convertCast;
  table["Dropout"] = convertDropout;
}
