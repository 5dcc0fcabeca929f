//===- PowerSgd.cpp - PowerSGD gradient compression in dist ops -----------===//

#include "passes/Transforms/PowerSgd.h"
#include "passes/Transforms/RankParts.h"

#include "dialects/Dist/IR/DistDialect.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace mlir::dist;

std::optional<PowerSgdMatrix>
mlir::dist::powerSgdMatrix(ArrayRef<int64_t> shape, int64_t rank) {
  if (shape.size() < 2)
    return std::nullopt;
  int64_t rows = shape[0], cols = 1;
  for (int64_t d : shape.drop_front())
    cols *= d;
  rank = std::min({rows, cols, rank});
  // PyTorch's _should_compress with min_compression_rate 2.
  if (!((rows + cols) * rank * 2 < rows * cols))
    return std::nullopt;
  return PowerSgdMatrix{rows, cols, rank};
}

Value mlir::dist::powerSgdInitialBasis(DistBuilder &g,
                                       const PowerSgdMatrix &matrix) {
  OpBuilder &b = g.getBuilder();
  auto type = RankedTensorType::get({matrix.cols, matrix.rank}, b.getF32Type());
  SmallVector<float> values;
  values.reserve(matrix.cols * matrix.rank);
  for (int64_t k = 1; k <= matrix.cols * matrix.rank; ++k) {
    double x = static_cast<double>(k) * 0.6180339887498949;
    values.push_back(static_cast<float>(x - std::floor(x) - 0.5));
  }
  return ConstantOp::create(b, g.getLoc(),
                            DenseElementsAttr::get(type, ArrayRef(values)));
}

/// PyTorch's _orthogonalize_gram_schmidt on a batch of matrices (batch x
/// k x rank): each column in turn divided by its norm, then projected out
/// of the columns after it. The norm is taken at least FLT_MIN, so that a
/// zero column (a gradient that is zero, error included) stays zero
/// instead of NaN.
static Value orthogonalizeBatch(DistBuilder &g, Value matrices) {
  OpBuilder &b = g.getBuilder();
  Location loc = g.getLoc();
  ArrayRef<int64_t> shape = shapeOf(matrices);
  int64_t batch = shape[0], rows = shape[1], rank = shape[2];
  SmallVector<Value> columns;
  for (int64_t j = 0; j < rank; ++j)
    columns.push_back(
        g.slice(matrices, {0, 0, j}, {1, 1, 1}, {batch, rows, 1}));
  Value tiny = g.scalar(FLT_MIN, b.getF32Type());
  auto dot = [&](Value x, Value y) {
    return g.reduceSum(g.mul(x, y), {1}, /*keepDims=*/true);
  };
  for (int64_t i = 0; i < rank; ++i) {
    Value norm = SqrtOp::create(b, loc, dot(columns[i], columns[i]));
    columns[i] = g.div(columns[i], MaxOp::create(b, loc, norm, tiny));
    for (int64_t j = i + 1; j < rank; ++j)
      columns[j] =
          g.sub(columns[j], g.mul(dot(columns[i], columns[j]), columns[i]));
  }
  if (rank == 1)
    return columns[0];
  return ConcatOp::create(b, loc, matrices.getType(), columns, 2);
}

SmallVector<Value> mlir::dist::orthogonalizeEach(DistBuilder &g,
                                                 ArrayRef<Value> matrices) {
  OpBuilder &b = g.getBuilder();
  SmallVector<Value> result(matrices.size());
  // The matrices of each shape, in first-seen order.
  SmallVector<std::pair<Type, SmallVector<size_t>>> groups;
  for (auto [i, m] : llvm::enumerate(matrices)) {
    auto *it = llvm::find_if(groups, [&](auto &group) {
      return group.first == m.getType();
    });
    if (it == groups.end()) {
      groups.push_back({m.getType(), {}});
      it = std::prev(groups.end());
    }
    it->second.push_back(i);
  }
  for (auto &[type, members] : groups) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(type).getShape();
    int64_t count = members.size();
    SmallVector<Value> stacked;
    for (size_t i : members)
      stacked.push_back(g.reshape(matrices[i], {1, shape[0], shape[1]}));
    Value batch =
        count == 1
            ? stacked[0]
            : ConcatOp::create(b, g.getLoc(),
                               RankedTensorType::get({count, shape[0], shape[1]},
                                                     b.getF32Type()),
                               stacked, 0);
    Value done = orthogonalizeBatch(g, batch);
    for (auto [k, i] : llvm::enumerate(members))
      result[i] = g.reshape(
          g.slice(done, {static_cast<int64_t>(k), 0, 0}, {1, 1, 1},
                  {1, shape[0], shape[1]}),
          shape);
  }
  return result;
}

PowerSgdStep mlir::dist::startPowerSgd(DistBuilder &g, Value gradient,
                                       Value basis, Value error, int64_t ranks,
                                       const PowerSgdMatrix &matrix) {
  auto type = cast<RankedTensorType>(gradient.getType());
  // Each rank's part of the sum, plus the residual it kept.
  Value m = g.reshape(g.add(rankParts(g, gradient, ranks), error),
                      {ranks, matrix.rows, matrix.cols});
  int64_t gradientBytes = type.getNumElements() * 4;
  return {m, rankSum(g, g.matmul(m, basis, false, false), gradientBytes), {}};
}

void mlir::dist::sumPowerSgdBases(DistBuilder &g,
                                  MutableArrayRef<PowerSgdStep> steps) {
  SmallVector<Value> ps;
  for (PowerSgdStep &step : steps)
    ps.push_back(step.p);
  for (auto [step, p] : llvm::zip(steps, orthogonalizeEach(g, ps))) {
    step.p = p;
    step.q = rankSum(g, g.matmul(step.inputs, p, true, false), 0);
  }
}

std::pair<Value, Value> mlir::dist::finishPowerSgd(DistBuilder &g,
                                                   const PowerSgdStep &step,
                                                   ArrayRef<int64_t> shape,
                                                   int64_t ranks) {
  Value approx = g.matmul(step.p, step.q, false, true);
  Value share = g.div(approx, g.scalar(static_cast<double>(ranks),
                                       g.getBuilder().getF32Type()));
  SmallVector<int64_t> stacked = {ranks};
  llvm::append_range(stacked, shape);
  return {g.reshape(approx, shape),
          g.reshape(g.sub(step.inputs, share), stacked)};
}
