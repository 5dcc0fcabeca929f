//===- LinalgBuilders.cpp - Shared builders of the dist-to-linalg patterns ===//

#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::dist;

Type mlir::dist::toSignless(Type elementType) {
  if (auto it = dyn_cast<IntegerType>(elementType))
    if (!it.isSignless())
      return IntegerType::get(it.getContext(), it.getWidth());
  return elementType;
}

RankedTensorType mlir::dist::toSignless(RankedTensorType type) {
  return type.clone(toSignless(type.getElementType()));
}

bool mlir::dist::isUnsignedElement(Type elementType) {
  auto it = dyn_cast<IntegerType>(elementType);
  return it && (it.isUnsigned() || it.getWidth() == 1);
}

DistTypeConverter::DistTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type { return toSignless(type); });
  // Function boundaries of the signed types meet their signless forms.
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Value mlir::dist::emptyTensor(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

Value mlir::dist::filledTensor(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> shape, Value value) {
  Value empty = emptyTensor(b, loc, shape, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value mlir::dist::scalarConstant(OpBuilder &b, Location loc, Type type,
                                 double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value mlir::dist::extremeConstant(OpBuilder &b, Location loc, Type type,
                                  bool positive, bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, positive
                               ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity()));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt limit = isUnsigned ? (positive ? APInt::getMaxValue(width)
                                       : APInt::getMinValue(width))
                           : (positive ? APInt::getSignedMaxValue(width)
                                       : APInt::getSignedMinValue(width));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, limit));
}

AffineMap mlir::dist::broadcastMap(MLIRContext *ctx,
                                   ArrayRef<int64_t> operandShape,
                                   ArrayRef<int64_t> resultShape) {
  int64_t offset = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, size] : llvm::enumerate(operandShape)) {
    int64_t dim = offset + i;
    if (size == 1 && resultShape[dim] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(dim, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

Value mlir::dist::buildElementwise(OpBuilder &b, Location loc,
                                   RankedTensorType resultType,
                                   ValueRange inputs, ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(input.getType()).getShape(),
                     resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init =
      emptyTensor(b, loc, resultType.getShape(), resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value mlir::dist::buildReduction(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> axes, Value init,
                                 CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> keptShape;
  SmallVector<AffineExpr> keptDims;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      keptShape.push_back(inputType.getDimSize(d));
      keptDims.push_back(getAffineDimExpr(d, ctx));
    }
  }
  Value acc = filledTensor(b, loc, keptShape, init);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, keptDims, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()}, ValueRange{input}, ValueRange{acc},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[0], args[1]));
      });
  return generic.getResult(0);
}

Value mlir::dist::reshapeTo(OpBuilder &b, Location loc, Value value,
                            ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto target = type.clone(shape);
  if (type.getRank() > static_cast<int64_t>(shape.size())) {
    if (auto reassociation =
            getReassociationIndicesForCollapse(type.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, target, value,
                                             *reassociation);
  } else if (type.getRank() < static_cast<int64_t>(shape.size())) {
    if (auto reassociation =
            getReassociationIndicesForCollapse(shape, type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, target, value,
                                           *reassociation);
  }
  // No single collapse or expand: go through the flat vector.
  int64_t count = type.getNumElements();
  Value flat = value;
  if (type.getRank() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    if (type.getRank() == 0)
      all.clear();
    auto flatType = type.clone({count});
    flat =
        type.getRank() == 0
            ? Value(tensor::ExpandShapeOp::create(b, loc, flatType, value, all))
            : Value(tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                                    all));
  }
  if (shape.size() == 1)
    return flat;
  SmallVector<ReassociationIndices> all(1);
  for (size_t d = 0; d < shape.size(); ++d)
    all[0].push_back(d);
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           ArrayRef<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, target, flat, all);
}

Value mlir::dist::extendTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return arith::ExtFOp::create(b, loc, type, v);
}

Value mlir::dist::truncateTo(OpBuilder &b, Location loc, Value v, Type et) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == et)
    return v;
  return buildElementwise(b, loc, type.clone(et), v,
                          [&](OpBuilder &nb, Location l, ValueRange args) {
                            return Value(
                                arith::TruncFOp::create(nb, l, et, args[0]));
                          });
}

AffineMap mlir::dist::keptMap(MLIRContext *ctx, int64_t rank,
                              ArrayRef<int64_t> axes) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value mlir::dist::accumulateF(OpBuilder &b, Location loc, Value x, Value acc) {
  return arith::AddFOp::create(b, loc, x, acc, arith::FastMathFlags::reassoc);
}

bool mlir::dist::computesInF32(Type type) {
  return type.isF16() || type.isBF16();
}

Value mlir::dist::convertScalar(OpBuilder &b, Location loc, Value value,
                                Type dstType, bool srcUnsigned,
                                bool dstUnsigned) {
  Type srcType = value.getType();
  if (srcType == dstType)
    return value;
  auto srcFloat = dyn_cast<FloatType>(srcType);
  auto dstFloat = dyn_cast<FloatType>(dstType);
  if (dstType.isInteger(1)) {
    if (srcFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   scalarConstant(b, loc, srcType, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 scalarConstant(b, loc, srcType, 0));
  }
  if (srcFloat && dstFloat) {
    if (srcFloat.getWidth() < dstFloat.getWidth())
      return arith::ExtFOp::create(b, loc, dstType, value);
    if (srcFloat.getWidth() > dstFloat.getWidth())
      return arith::TruncFOp::create(b, loc, dstType, value);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, dstType, wide);
  }
  if (srcFloat) {
    if (dstUnsigned)
      return arith::FPToUIOp::create(b, loc, dstType, value);
    return arith::FPToSIOp::create(b, loc, dstType, value);
  }
  if (dstFloat) {
    if (srcUnsigned)
      return arith::UIToFPOp::create(b, loc, dstType, value);
    return arith::SIToFPOp::create(b, loc, dstType, value);
  }
  unsigned srcWidth = srcType.getIntOrFloatBitWidth();
  unsigned dstWidth = dstType.getIntOrFloatBitWidth();
  if (srcWidth > dstWidth)
    return arith::TruncIOp::create(b, loc, dstType, value);
  if (srcUnsigned)
    return arith::ExtUIOp::create(b, loc, dstType, value);
  return arith::ExtSIOp::create(b, loc, dstType, value);
}

Value mlir::dist::checkedIndex(OpBuilder &b, Location loc, Value raw,
                               int64_t size, StringRef opName) {
  Type t = raw.getType();
  Value sz = scalarConstant(b, loc, t, static_cast<double>(size));
  Value zero = scalarConstant(b, loc, t, 0);
  Value isNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, raw, zero);
  Value fixed = arith::SelectOp::create(
      b, loc, isNeg, arith::AddIOp::create(b, loc, raw, sz), raw);
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, fixed, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, fixed, sz));
  std::string message;
  llvm::raw_string_ostream os(message);
  os << "dist." << opName << ": index out of range [-" << size << ", " << size
     << ") at " << loc;
  cf::AssertOp::create(b, loc, inRange, message);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), fixed);
}

Value mlir::dist::avgPoolReciprocalCounts(OpBuilder &b, Location loc,
                                          ArrayRef<int64_t> inShape,
                                          ArrayRef<int64_t> outShape,
                                          ArrayRef<int64_t> kernel,
                                          ArrayRef<int64_t> strides,
                                          ArrayRef<int64_t> pads,
                                          bool includePad, Type acc) {
  auto count = [&](int d, int64_t o) {
    int64_t in = inShape[2 + d];
    int64_t start = o * strides[d] - pads[d];
    int64_t end = std::min(start + kernel[d], in + pads[d + 2]);
    if (includePad)
      return end - start;
    return std::min(end, in) - std::max<int64_t>(start, 0);
  };
  int64_t oh = outShape[2], ow = outShape[3];
  SmallVector<double> table;
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      table.push_back(1.0 / static_cast<double>(count(0, i) * count(1, j)));
  auto tableType = RankedTensorType::get({oh, ow}, acc);
  DenseElementsAttr tableAttr;
  if (acc.isF64()) {
    tableAttr = DenseElementsAttr::get(tableType, ArrayRef<double>(table));
  } else {
    SmallVector<float> f(table.begin(), table.end());
    tableAttr = DenseElementsAttr::get(tableType, ArrayRef<float>(f));
  }
  return arith::ConstantOp::create(b, loc, tableAttr);
}
