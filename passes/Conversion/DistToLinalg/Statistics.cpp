//===- Statistics.cpp - Per-row statistics shared by several lowerings ----===//

#include "passes/Conversion/DistToLinalg/Statistics.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::dist;

/// A reduction generic over `axes` of x (identity map) and a statistic
/// (kept map), folding `term(x, statistic)` into a zero-initialized sum.
static Value
sumWith(OpBuilder &b, Location loc, Value x, Value stat, ArrayRef<int64_t> axes,
        Type acc,
        function_ref<Value(OpBuilder &, Location, Value, Value)> term) {
  auto type = cast<RankedTensorType>(x.getType());
  auto statType = cast<RankedTensorType>(stat.getType());
  int64_t rank = type.getRank();
  AffineMap kept = keptMap(b.getContext(), rank, axes);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  for (int64_t d : axes)
    iterators[d] = utils::IteratorType::reduction;
  Value init = filledTensor(b, loc, statType.getShape(),
                            scalarConstant(b, loc, acc, 0.0));
  return linalg::GenericOp::create(
             b, loc, TypeRange{statType}, ValueRange{x, stat}, init,
             SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank), kept, kept},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value v = term(nb, l, extendTo(nb, l, args[0], acc), args[1]);
               linalg::YieldOp::create(nb, l, accumulateF(nb, l, v, args[2]));
             })
      .getResult(0);
}

std::pair<Value, Value> mlir::dist::softmaxStatistics(OpBuilder &b,
                                                      Location loc, Value x,
                                                      int64_t axis, Type acc) {
  Value max = buildReduction(
      b, loc, x, {axis}, extremeConstant(b, loc, acc, false, false),
      [&](OpBuilder &nb, Location l, Value v, Value a) -> Value {
        return arith::MaximumFOp::create(nb, l, extendTo(nb, l, v, acc), a);
      });
  Value sum = sumWith(b, loc, x, max, {axis}, acc,
                      [](OpBuilder &nb, Location l, Value v, Value m) {
                        return Value(math::ExpOp::create(
                            nb, l, arith::SubFOp::create(nb, l, v, m)));
                      });
  return {max, sum};
}

std::pair<Value, Value> mlir::dist::meanAndVariance(OpBuilder &b, Location loc,
                                                    Value x,
                                                    ArrayRef<int64_t> axes,
                                                    Type acc) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t count = 1;
  for (int64_t d : axes)
    count *= type.getDimSize(d);
  auto divideByCount = [&](Value sum) {
    return buildElementwise(
        b, loc, cast<RankedTensorType>(sum.getType()), sum,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(nb, l, args[0],
                                       scalarConstant(nb, l, acc, count));
        });
  };
  Value sum =
      buildReduction(b, loc, x, axes, scalarConstant(b, loc, acc, 0.0),
                     [&](OpBuilder &nb, Location l, Value v, Value a) {
                       return accumulateF(nb, l, extendTo(nb, l, v, acc), a);
                     });
  Value mean = divideByCount(sum);
  Value squares = sumWith(b, loc, x, mean, axes, acc,
                          [](OpBuilder &nb, Location l, Value v, Value m) {
                            Value d = arith::SubFOp::create(nb, l, v, m);
                            return Value(arith::MulFOp::create(nb, l, d, d));
                          });
  return {mean, divideByCount(squares)};
}
