//===- ConvertContraction.cpp - ONNX MatMul and Gemm to dist --------------===//

#include "passes/Import/NodeImporter.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// `value` reshaped to `shape`.
static Value reshape(NodeImporter &n, Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  return n.create<ReshapeOp>(type.clone(shape), value);
}

/// ONNX MatMul is numpy matmul: a 1-D lhs is a row, a 1-D rhs a column, and
/// the added dimension is removed from the result.
static LogicalResult convertMatMul(NodeImporter &n) {
  Value lhs = n.input(0), rhs = n.input(1);
  if (!lhs || !rhs)
    return failure();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return n.emitError() << "operands must have rank >= 1", failure();
  bool lhsVector = lhsType.getRank() == 1, rhsVector = rhsType.getRank() == 1;
  if (lhsVector)
    lhs = reshape(n, lhs, {1, lhsType.getDimSize(0)});
  if (rhsVector)
    rhs = reshape(n, rhs, {rhsType.getDimSize(0), 1});
  Value result = n.buildValue<MatmulOp>(lhs, rhs, false, false);
  if (!result)
    return failure();
  if (lhsVector || rhsVector) {
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(result.getType()).getShape());
    if (rhsVector)
      shape.pop_back();
    if (lhsVector)
      shape.erase(shape.end() - (rhsVector ? 1 : 2));
    result = reshape(n, result, shape);
  }
  n.setOutput(0, result);
  return success();
}

static LogicalResult convertGemm(NodeImporter &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  Value bias = n.hasInput(2) ? n.input(2) : Value();
  if (n.hasInput(2) && !bias)
    return failure();
  Value result = n.buildValue<GemmOp>(
      a, b, bias, n.intAttr("transA", 0) != 0, n.intAttr("transB", 0) != 0,
      APFloat(static_cast<double>(n.floatAttr("alpha", 1.0f))),
      APFloat(static_cast<double>(n.floatAttr("beta", 1.0f))));
  n.setOutput(0, result);
  return success(result != nullptr);
}

void mlir::dist::onnx_import::addContractionConverters(ConverterTable &table) {
  table["MatMul"] = convertMatMul;
  table["Gemm"] = convertGemm;
}
