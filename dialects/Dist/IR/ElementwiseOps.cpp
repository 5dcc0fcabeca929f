//===- ElementwiseOps.cpp - Elementwise ops: inference, checks, folds -----===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistTypeInference.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;

namespace {
using FloatFn = function_ref<std::optional<APFloat>(APFloat, APFloat)>;
using IntFn = function_ref<std::optional<APInt>(APInt, APInt)>;
} // namespace

/// Folds a binary op whose operands are both constants of the result's type
/// (no broadcasting involved). A null function means "do not fold that kind".
static Attribute foldConstantOperands(Type resultType,
                                      ArrayRef<Attribute> operands,
                                      FloatFn floatFn, IntFn intFn) {
  for (Attribute operand : operands) {
    auto typed = dyn_cast_or_null<TypedAttr>(operand);
    if (!typed || typed.getType() != resultType)
      return {};
  }
  // The integer folds use signed arithmetic.
  if (getElementTypeOrSelf(resultType).isUnsignedInteger())
    return {};
  if (isa<FloatType>(getElementTypeOrSelf(resultType)))
    return floatFn ? constFoldBinaryOpConditional<FloatAttr, APFloat, void>(
                         operands, resultType, floatFn)
                   : Attribute();
  return intFn ? constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
                     operands, resultType, intFn)
               : Attribute();
}

/// `lhs` when it already has the result's type and `rhs` is a neutral splat.
template <typename OpTy, typename Pattern>
static OpFoldResult foldNeutralRhs(OpTy op, Attribute rhs, Pattern &&pattern) {
  if (rhs && op.getLhs().getType() == op.getType() &&
      matchPattern(rhs, pattern))
    return op.getLhs();
  return {};
}

static bool isFloat(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + (-0.0) is x for every x; x + 0.0 is not (it turns -0.0 into 0.0).
  if (OpFoldResult r =
          isFloat(getType())
              ? foldNeutralRhs(*this, adaptor.getRhs(), m_NegZeroFloat())
              : foldNeutralRhs(*this, adaptor.getRhs(), m_Zero()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a + b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          isFloat(getType())
              ? foldNeutralRhs(*this, adaptor.getRhs(), m_PosZeroFloat())
              : foldNeutralRhs(*this, adaptor.getRhs(), m_Zero()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a - b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          isFloat(getType())
              ? foldNeutralRhs(*this, adaptor.getRhs(), m_OneFloat())
              : foldNeutralRhs(*this, adaptor.getRhs(), m_One()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a * b; },
      [](APInt a, APInt b) -> std::optional<APInt> { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          isFloat(getType())
              ? foldNeutralRhs(*this, adaptor.getRhs(), m_OneFloat())
              : foldNeutralRhs(*this, adaptor.getRhs(), m_One()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> { return a / b; },
      [](APInt a, APInt b) -> std::optional<APInt> {
        // Integer division by zero and INT_MIN / -1 are left to run time.
        if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
          return std::nullopt;
        return a.sdiv(b);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  return foldNeutralRhs(*this, adaptor.getRhs(), m_OneFloat());
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](APInt a, APInt b) -> std::optional<APInt> {
        return llvm::APIntOps::smax(a, b);
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](APInt a, APInt b) -> std::optional<APInt> {
        return llvm::APIntOps::smin(a, b);
      });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  return foldConstantOperands(
      getType(), adaptor.getOperands(),
      [](APFloat a, APFloat b) -> std::optional<APFloat> {
        if (b.isZero())
          return std::nullopt;
        (void)a.mod(b); // fmod: the sign of a
        return a;
      },
      [](APInt a, APInt b) -> std::optional<APInt> {
        if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
          return std::nullopt;
        return a.srem(b);
      });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldNeutralRhs(*this, adaptor.getRhs(), m_One()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(), nullptr,
      [](APInt a, APInt b) -> std::optional<APInt> { return a & b; });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldNeutralRhs(*this, adaptor.getRhs(), m_Zero()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(), nullptr,
      [](APInt a, APInt b) -> std::optional<APInt> { return a | b; });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldNeutralRhs(*this, adaptor.getRhs(), m_Zero()))
    return r;
  return foldConstantOperands(
      getType(), adaptor.getOperands(), nullptr,
      [](APInt a, APInt b) -> std::optional<APInt> { return a ^ b; });
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CompareOp
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  SmallVector<Type> operandType;
  if (failed(inferBroadcastResultType(loc, getOperationName(),
                                      adaptor.getOperands(), operandType)))
    return failure();
  types.push_back(cast<RankedTensorType>(operandType.front())
                      .clone(IntegerType::get(context, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, getOperationName(), adaptor.getOperands(),
                             shape)))
    return failure();
  Type trueType = getElementTypeOrSelf(adaptor.getTrueValue().getType());
  Type falseType = getElementTypeOrSelf(adaptor.getFalseValue().getType());
  if (trueType != falseType)
    return emitOpInferenceError(loc, getOperationName(),
                                "true_value has element type ", trueType,
                                " but false_value has ", falseType);
  types.push_back(RankedTensorType::get(shape, trueType));
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto pick = [&](Value v) -> OpFoldResult {
    return v.getType() == getType() ? OpFoldResult(v) : OpFoldResult();
  };
  if (getTrueValue() == getFalseValue())
    return pick(getTrueValue());
  if (matchPattern(adaptor.getCondition(), m_One()))
    return pick(getTrueValue());
  if (matchPattern(adaptor.getCondition(), m_Zero()))
    return pick(getFalseValue());
  return {};
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!type)
    return emitOpInferenceError(loc, getOperationName(),
                                "input must be a ranked tensor, got ",
                                adaptor.getInput().getType());
  types.push_back(type);
  types.push_back(type.clone(IntegerType::get(context, 1)));
  return success();
}

/// A draw split over ranks (dropout, the random ops): one offset per
/// dimension and the whole shape, or neither; the block lies inside it.
static LogicalResult verifyDrawnBlock(Operation *op, ValueRange offsets,
                                      DenseI64ArrayAttr whole) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (!whole && offsets.empty())
    return success();
  if (!whole || offsets.size() != shape.size())
    return op->emitOpError("a split draw needs 'whole_shape' and one offset "
                           "per dimension (")
           << shape.size() << "), got " << offsets.size() << " offsets"
           << (whole ? "" : " and no 'whole_shape'");
  if (whole.size() != static_cast<int64_t>(shape.size()))
    return op->emitOpError("'whole_shape' has ")
           << whole.size() << " dimensions, the result " << shape.size();
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size) || size > whole[d])
      return op->emitOpError("dimension ")
             << d << " (" << size
             << ") does not fit in 'whole_shape' (" << whole[d] << ")";
  return success();
}

LogicalResult DropoutOp::verify() {
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return emitOpError("ratio must be in [0, 1), got ") << ratio;
  return verifyDrawnBlock(*this, getOffsets(), getWholeShapeAttr());
}

LogicalResult DropoutOp::fold(FoldAdaptor,
                              SmallVectorImpl<OpFoldResult> &results) {
  if (!getRatio().isZero())
    return failure();
  results.push_back(getInput());
  results.push_back(
      DenseElementsAttr::get(getMask().getType(), ArrayRef<bool>(true)));
  return success();
}

//===----------------------------------------------------------------------===//
// RandomUniformOp, RandomNormalOp
//===----------------------------------------------------------------------===//

LogicalResult RandomUniformOp::verify() {
  double low = getLow().convertToDouble(), high = getHigh().convertToDouble();
  if (!std::isfinite(low) || !std::isfinite(high) || !(low <= high))
    return emitOpError("needs finite low <= high, got [")
           << low << ", " << high << ")";
  return verifyDrawnBlock(*this, getOffsets(), getWholeShapeAttr());
}

LogicalResult RandomNormalOp::verify() {
  double mean = getMean().convertToDouble(),
         scale = getScale().convertToDouble();
  if (!std::isfinite(mean) || !std::isfinite(scale) || !(scale >= 0.0))
    return emitOpError("needs a finite mean and a finite scale >= 0, got ")
           << mean << " and " << scale;
  return verifyDrawnBlock(*this, getOffsets(), getWholeShapeAttr());
}
