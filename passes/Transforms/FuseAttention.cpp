//===- FuseAttention.cpp - Decomposed attention to dist.attention ---------===//
//
// Matches softmax(mask(scale * Q K^T)) V as PyTorch exports it (MatMul, Mul
// or Div by a constant or a scalar computed from constants, Where with a
// causal mask or Add of one, Softmax over the last axis, MatMul), scale
// and mask in either order and each optional, and replaces it by one
// dist.attention. Only what is provably the same computation is fused: the
// mask (evaluated when computed from constants: ConstantTable.h) must keep
// exactly the causal lower triangle and fill with -inf or a value no
// exponential survives (at most -1e30, after a scale that follows it:
// GPT-2's torch.finfo(float32).min); intermediate results must have no
// other reader (dropout on the probabilities, say, keeps the
// decomposition); rows of at most 256 features.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/ConstantMatchers.h"
#include "passes/Transforms/ConstantTable.h"
#include "passes/Transforms/Passes.h"

#include "dialects/Dist/IR/DistBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

#define DEBUG_TYPE "dist-fuse-attention"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFUSEATTENTION
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The rows x cols table of mask `v` (a boolean keep mask or an additive
/// float one), when it is computed from constants.
std::optional<ConstantTable> maskTable(Value v, int64_t rows, int64_t cols) {
  std::optional<ConstantTable> table = evaluateConstantTable(v);
  if (!table || table->rows != rows || table->cols != cols)
    return std::nullopt;
  return table;
}

/// Whether boolean `table` keeps (is `keep` on) exactly the causal lower
/// triangle.
bool isCausal(const ConstantTable &table, bool keep) {
  for (int64_t i = 0; i < table.rows; ++i)
    for (int64_t j = 0; j < table.cols; ++j)
      if ((table.at(i, j) != 0.0f) != (keep == (j <= i)))
        return false;
  return true;
}

/// The value of a float32 scalar computed from constants by dist ops (a
/// training-mode export does not fold Hugging Face GPT-2's
/// `sqrt(head size)` divisor: pow(8, 0.5) + 0), in float32 arithmetic as
/// the model computes it.
std::optional<float> scalarValue(Value v, int depth = 4) {
  if (std::optional<double> c = getSplatFloat(v))
    return static_cast<float>(*c);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  Operation *def = v.getDefiningOp();
  if (depth == 0 || !def || !type || type.getNumElements() != 1 ||
      !type.getElementType().isF32())
    return std::nullopt;
  if (auto sqrt = dyn_cast<SqrtOp>(def)) {
    std::optional<float> x = scalarValue(sqrt.getInput(), depth - 1);
    return x ? std::optional<float>(std::sqrt(*x)) : std::nullopt;
  }
  if (!isa<AddOp, SubOp, MulOp, DivOp, PowOp>(def))
    return std::nullopt;
  std::optional<float> x = scalarValue(def->getOperand(0), depth - 1);
  std::optional<float> y = scalarValue(def->getOperand(1), depth - 1);
  if (!x || !y)
    return std::nullopt;
  if (isa<AddOp>(def))
    return *x + *y;
  if (isa<SubOp>(def))
    return *x - *y;
  if (isa<MulOp>(def))
    return *x * *y;
  if (isa<DivOp>(def))
    return *x / *y;
  return std::pow(*x, *y);
}

/// Whether `fill` is one that softmax turns into an exact zero: -inf, or
/// so negative that exp(fill - max) underflows for any score a model can
/// produce.
bool isMaskFill(double fill) { return fill <= -1e30; }

/// The fill of an additive causal mask: 0 on and below the diagonal and at
/// most the returned value, which isMaskFill must accept, above it.
std::optional<float> additiveCausalFill(const ConstantTable &table) {
  float fill = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < table.rows; ++i)
    for (int64_t j = 0; j < table.cols; ++j) {
      float v = table.at(i, j);
      if (j <= i ? v != 0.0f : !isMaskFill(v))
        return std::nullopt;
      if (j > i)
        fill = std::max(fill, v);
    }
  return fill;
}

/// Largest query/key and value row (features) fused: a row is one vector
/// held in registers (a GPU thread's), written element by element.
constexpr int64_t kMaxFeatures = 256;

/// softmax(mask(scale * Q K^T)) V, matched at the second product.
struct FuseAttentionPattern : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    if (pv.getTransposeLhs() || pv.getTransposeRhs())
      return failure();
    auto softmax = pv.getLhs().getDefiningOp<SoftmaxOp>();
    if (!softmax || !softmax->hasOneUse() ||
        static_cast<int64_t>(softmax.getAxis()) !=
            softmax.getType().getRank() - 1)
      return failure();
    ArrayRef<int64_t> scores = softmax.getType().getShape();
    int64_t rank = scores.size(), t = scores[rank - 2], s = scores[rank - 1];
    // Peel the mask and the scale, in either order, down to the product;
    // also reshapes that only regroup the batch dimensions (BART adds its
    // mask to the scores viewed as batch x heads), which must cancel.
    Value x = softmax.getInput();
    double scale = 1.0, fill = 0.0;
    // scaledAfterMask: the scale multiplies the fill too.
    bool causal = false, scaled = false, scaledAfterMask = false;
    for (int step = 0; step < 8; ++step) {
      Operation *def = x.getDefiningOp();
      if (!def || !def->hasOneUse())
        break;
      if (auto select = dyn_cast<SelectOp>(def); select && !causal) {
        std::optional<ConstantTable> keep =
            maskTable(select.getCondition(), t, s);
        if (!keep || t != s)
          return failure();
        // where(keep, x, fill) or where(!keep, fill, x).
        bool keepFirst = isCausal(*keep, true);
        if (!keepFirst && !isCausal(*keep, false))
          return failure();
        Value scores = keepFirst ? select.getTrueValue()
                                 : select.getFalseValue();
        std::optional<double> constant = getSplatFloat(
            keepFirst ? select.getFalseValue() : select.getTrueValue());
        if (!constant || !isMaskFill(*constant) ||
            scores.getType() != select.getType())
          return failure();
        x = scores;
        fill = *constant;
        causal = true;
        scaledAfterMask = scaled;
        continue;
      }
      // x + mask, the mask 0 where kept (Hugging Face LLaMA, BART).
      if (auto add = dyn_cast<AddOp>(def);
          add && !causal && t == s) {
        std::optional<float> addFill;
        for (int maskOperand : {1, 0}) {
          Value scores = add->getOperand(1 - maskOperand);
          std::optional<ConstantTable> mask =
              maskTable(add->getOperand(maskOperand), t, s);
          if (scores.getType() != add.getType() || !mask)
            continue;
          if ((addFill = additiveCausalFill(*mask))) {
            x = scores;
            break;
          }
        }
        if (!addFill)
          break;
        fill = *addFill;
        causal = true;
        scaledAfterMask = scaled;
        continue;
      }
      if (auto reshape = dyn_cast<ReshapeOp>(def)) {
        auto from = cast<RankedTensorType>(reshape.getInput().getType());
        if (from.getRank() < 2 ||
            from.getShape().take_back(2) != ArrayRef<int64_t>{t, s})
          break;
        x = reshape.getInput();
        continue;
      }
      if (scaled)
        break;
      if (auto mul = dyn_cast<MulOp>(def)) {
        if (std::optional<float> c = scalarValue(mul.getRhs());
            c && mul.getLhs().getType() == mul.getType()) {
          scale = *c;
          x = mul.getLhs();
        } else if (std::optional<float> c = scalarValue(mul.getLhs());
                   c && mul.getRhs().getType() == mul.getType()) {
          scale = *c;
          x = mul.getRhs();
        } else {
          break;
        }
        scaled = true;
        continue;
      }
      if (auto div = dyn_cast<DivOp>(def)) {
        std::optional<float> c = scalarValue(div.getRhs());
        if (!c || *c == 0.0f || div.getLhs().getType() != div.getType())
          break;
        scale = 1.0 / static_cast<double>(*c);
        x = div.getLhs();
        scaled = true;
        continue;
      }
      break;
    }
    // A scale applied after the mask scales its fill: a negative or tiny
    // scale would make it a score softmax keeps.
    if (scaledAfterMask && !isMaskFill(fill * scale))
      return failure();
    auto qk = x.getDefiningOp<MatmulOp>();
    if (!qk || !qk->hasOneUse() || qk.getTransposeLhs() ||
        qk.getType() != softmax.getType())
      return failure();
    Value query = qk.getLhs(), keyT = qk.getRhs(), value = pv.getRhs();
    auto q = cast<RankedTensorType>(query.getType());
    auto k = cast<RankedTensorType>(keyT.getType());
    auto v = cast<RankedTensorType>(value.getType());
    // Every operand float32, with the scores' batch dimensions (no
    // broadcasting).
    if (!q.getElementType().isF32() || !k.getElementType().isF32() ||
        !v.getElementType().isF32() || q.getRank() != rank ||
        k.getRank() != rank || v.getRank() != rank ||
        q.getShape().drop_back(2) != scores.drop_back(2) ||
        k.getShape().drop_back(2) != scores.drop_back(2) ||
        v.getShape().drop_back(2) != scores.drop_back(2) ||
        v.getDimSize(rank - 2) != s ||
        q.getDimSize(rank - 1) > kMaxFeatures ||
        v.getDimSize(rank - 1) > kMaxFeatures)
      return failure();
    rewriter.setInsertionPoint(pv);
    Value key = keyT;
    if (!qk.getTransposeRhs()) {
      SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(swap[rank - 2], swap[rank - 1]);
      DistBuilder g(rewriter, qk.getLoc());
      key = g.transpose(keyT, swap);
    }
    auto attention = AttentionOp::create(
        rewriter, pv.getLoc(), query, key, value,
        rewriter.getF64FloatAttr(scale),
        causal ? rewriter.getUnitAttr() : UnitAttr());
    rewriter.replaceOp(pv, attention.getResult());
    return success();
  }
};

struct DistFuseAttentionPass
    : dist::impl::DistFuseAttentionBase<DistFuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttentionPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
