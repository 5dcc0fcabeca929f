//===- ScalarBody.cpp - What an elementwise linalg body computes ----------===//

#include "passes/Conversion/ScalarBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

std::optional<double> mlir::dist::evaluateScalarBody(linalg::GenericOp op,
                                                     ArrayRef<double> inputs,
                                                     unsigned result) {
  Block &body = op.getRegion().front();
  if (static_cast<int64_t>(inputs.size()) != op.getNumDpsInputs() ||
      body.getNumArguments() != inputs.size() + op.getNumDpsInits())
    return std::nullopt;
  llvm::DenseMap<Value, double> values;
  for (auto [arg, value] : llvm::zip_first(body.getArguments(), inputs))
    values[arg] = value;
  auto get = [&](Value v) -> std::optional<double> {
    auto it = values.find(v);
    if (it != values.end())
      return it->second;
    // A constant defined above the body (canonicalization hoists them).
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto f = dyn_cast<FloatAttr>(c.getValue()))
        return f.getValueAsDouble();
    return std::nullopt;
  };
  for (Operation &inner : body) {
    if (auto yield = dyn_cast<linalg::YieldOp>(inner)) {
      if (result >= yield.getNumOperands())
        return std::nullopt;
      return get(yield.getOperand(result));
    }
    if (inner.getNumResults() != 1)
      return std::nullopt;
    SmallVector<double, 3> args;
    for (Value operand : inner.getOperands()) {
      std::optional<double> v = get(operand);
      if (!v)
        return std::nullopt;
      args.push_back(*v);
    }
    std::optional<double> value =
        llvm::TypeSwitch<Operation *, std::optional<double>>(&inner)
            .Case([](arith::ConstantOp c) -> std::optional<double> {
              if (auto f = dyn_cast<FloatAttr>(c.getValue()))
                return f.getValueAsDouble();
              return std::nullopt;
            })
            .Case([&](arith::AddFOp) { return args[0] + args[1]; })
            .Case([&](arith::SubFOp) { return args[0] - args[1]; })
            .Case([&](arith::MulFOp) { return args[0] * args[1]; })
            .Case([&](arith::DivFOp) { return args[0] / args[1]; })
            .Case([&](arith::NegFOp) { return -args[0]; })
            .Case([&](math::TanhOp) { return std::tanh(args[0]); })
            .Case([&](math::ExpOp) { return std::exp(args[0]); })
            .Case([&](math::ErfOp) { return std::erf(args[0]); })
            .Case([&](math::SqrtOp) { return std::sqrt(args[0]); })
            .Case([&](math::PowFOp) { return std::pow(args[0], args[1]); })
            .Case([&](math::FmaOp) { return args[0] * args[1] + args[2]; })
            .Default([](Operation *) { return std::nullopt; });
    if (!value)
      return std::nullopt;
    values[inner.getResult(0)] = *value;
  }
  return std::nullopt;
}

bool mlir::dist::computes(
    linalg::GenericOp op,
    const std::function<double(ArrayRef<double>)> &expected, unsigned result) {
  static const double kSamples[] = {-8.0, -3.1, -1.7, -0.9, -0.35, -0.02, 0.0,
                                    0.03, 0.5,  1.0,  1.6,  2.9,   5.5};
  constexpr size_t kCount = sizeof(kSamples) / sizeof(kSamples[0]);
  unsigned arity = op.getNumDpsInputs();
  if (arity == 0)
    return false;
  // Each input walks the samples at its own pace, so that no input is a
  // fixed function of another.
  for (size_t i = 0; i < kCount * arity; ++i) {
    SmallVector<double, 2> inputs;
    for (unsigned j = 0; j < arity; ++j)
      inputs.push_back(kSamples[(i * (2 * j + 1) + j) % kCount]);
    std::optional<double> got = evaluateScalarBody(op, inputs, result);
    double want = expected(inputs);
    if (!got || std::isnan(*got) ||
        std::abs(*got - want) > 1e-6 * std::max(1.0, std::abs(want)))
      return false;
  }
  return true;
}

double mlir::dist::geluTanh(double x) {
  return 0.5 * x *
         (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
