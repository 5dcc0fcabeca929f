//===- LossToLinalg.cpp - cross_entropy and nll_loss to linalg ------------===//
//
// Per position (n, d1, ...) a read at the label gives the input there, A,
// and the label's weight, W (1 without class weights, 0 where
// the label is ignore_index). The loss there is -W * A for nll_loss and
// -W * (A - logsumexp) for cross_entropy; `mean` divides the sum of losses by
// the sum of W. Halves accumulate in f32. A label outside [0, C) that is
// not ignore_index stops the program with the op's location (cf.assert).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"
#include "passes/Conversion/DistToLinalg/Statistics.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Whether the integer `label` is in [0, classes).
Value inRange(OpBuilder &b, Location l, Value label, int64_t classes) {
  Type lt = label.getType();
  Value atLeast0 = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                         label, scalarConstant(b, l, lt, 0));
  Value belowC = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, label,
                                       scalarConstant(b, l, lt, classes));
  return arith::AndIOp::create(b, l, atLeast0, belowC);
}

template <typename OpTy, bool IsCrossEntropy>
struct LossPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), labels = adaptor.getLabels();
    Value weight = adaptor.getWeight();
    auto xType = cast<RankedTensorType>(x.getType());
    Type et = xType.getElementType();
    Type acc = computesInF32(et) ? rewriter.getF32Type() : et;
    int64_t rank = xType.getRank();
    std::optional<int64_t> ignore;
    if (auto attr = op.getIgnoreIndexAttr())
      ignore = attr.getValue().getSExtValue();

    // A and W per position, read at the label (not a reduction over the
    // classes: that read every class to keep one). A label outside [0, C)
    // or equal to ignore_index reads class 0 and takes nothing; the loss
    // below stops the program on the former.
    int64_t classes = xType.getDimSize(1);
    SmallVector<int64_t> posShape;
    for (int64_t d = 0; d < rank; ++d)
      if (d != 1)
        posShape.push_back(xType.getDimSize(d));
    int64_t posRank = static_cast<int64_t>(posShape.size());
    Value zero = scalarConstant(rewriter, loc, acc, 0.0);
    Value outs[] = {emptyTensor(rewriter, loc, posShape, acc),
                    emptyTensor(rewriter, loc, posShape, acc)};
    AffineMap identity = rewriter.getMultiDimIdentityMap(posRank);
    SmallVector<utils::IteratorType> iterators(posRank,
                                               utils::IteratorType::parallel);
    auto pick = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outs[0].getType(), outs[1].getType()},
        ValueRange{labels}, outs,
        SmallVector<AffineMap>{identity, identity, identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value label = args[0];
          Type lt = label.getType();
          Value take = inRange(b, l, label, classes);
          if (ignore)
            take = arith::AndIOp::create(
                b, l, take,
                arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::ne, label,
                    scalarConstant(b, l, lt, static_cast<double>(*ignore))));
          Value cls = arith::IndexCastOp::create(
              b, l, b.getIndexType(),
              arith::SelectOp::create(b, l, take, label,
                                      scalarConstant(b, l, lt, 0)));
          SmallVector<Value> coords;
          for (int64_t d = 0; d < posRank; ++d) {
            if (d == 1)
              coords.push_back(cls);
            coords.push_back(linalg::IndexOp::create(b, l, d));
          }
          if (posRank == 1)
            coords.push_back(cls);
          Value z = scalarConstant(b, l, acc, 0.0);
          Value xv = extendTo(
              b, l, tensor::ExtractOp::create(b, l, x, coords), acc);
          Value w = weight ? extendTo(b, l,
                                      tensor::ExtractOp::create(
                                          b, l, weight, ValueRange{cls}),
                                      acc)
                           : scalarConstant(b, l, acc, 1.0);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, xv, z),
                         arith::SelectOp::create(b, l, take, w, z)});
        });
    Value a = pick.getResult(0), wt = pick.getResult(1);
    auto posType = cast<RankedTensorType>(a.getType());

    SmallVector<Value> lossInputs = {a, wt, labels};
    if (IsCrossEntropy) {
      auto [max, sum] = softmaxStatistics(rewriter, loc, x, 1, acc);
      lossInputs.append({max, sum});
    }
    std::string message;
    llvm::raw_string_ostream os(message);
    os << op->getName() << ": a label is outside [0, " << classes
       << ") and is not ignore_index, at " << loc;
    Value loss = buildElementwise(
        rewriter, loc, posType, lossInputs,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // A label that selects no class would silently add nothing.
          Value label = args[2];
          Type lt = label.getType();
          Value valid = inRange(b, l, label, classes);
          if (ignore)
            valid = arith::OrIOp::create(
                b, l, valid,
                arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::eq, label,
                    scalarConstant(b, l, lt, static_cast<double>(*ignore))));
          cf::AssertOp::create(b, l, valid, message);
          Value v = args[0];
          if (IsCrossEntropy) {
            Value lse = arith::AddFOp::create(
                b, l, args[3], math::LogOp::create(b, l, args[4]));
            v = arith::SubFOp::create(b, l, v, lse);
          }
          return arith::NegFOp::create(b, l,
                                       arith::MulFOp::create(b, l, args[1], v));
        });

    auto resultType = cast<RankedTensorType>(op.getType());
    auto truncate = [&](Value v) {
      if (acc == et)
        return v;
      auto vt = cast<RankedTensorType>(v.getType());
      return buildElementwise(rewriter, loc, vt.clone(et), v,
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                return Value(
                                    arith::TruncFOp::create(b, l, et, args[0]));
                              });
    };
    LossReduction reduction = op.getReduction();
    if (reduction == LossReduction::none) {
      rewriter.replaceOp(op, truncate(loss));
      return success();
    }
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < posType.getRank(); ++d)
      all.push_back(d);
    auto add = [&](OpBuilder &b, Location l, Value v, Value s) -> Value {
      return accumulateF(b, l, v, s);
    };
    Value total = buildReduction(rewriter, loc, loss, all, zero, add);
    if (reduction == LossReduction::mean) {
      Value count = buildReduction(rewriter, loc, wt, all, zero, add);
      total = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(total.getType()),
          ValueRange{total, count},
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::DivFOp::create(b, l, args[0], args[1]);
          });
    }
    Value r = truncate(total);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, resultType.getShape()));
    return success();
  }
};

} // namespace

void mlir::dist::populateLossToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns
      .add<LossPattern<CrossEntropyOp, true>, LossPattern<NllLossOp, false>>(
          converter, patterns.getContext());
}
