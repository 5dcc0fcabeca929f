//===- ContractionOps.cpp - Matrix products: type inference ---------------===//

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::dist;

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto lhs = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return emitOpInferenceError(loc, name, "operands must be ranked tensors");
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOpInferenceError(
        loc, name,
        "operands must have rank >= 2 (reshape vectors to matrices), "
        "got ranks ",
        lhs.getRank(), " and ", rhs.getRank());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpInferenceError(loc, name, "lhs has element type ",
                                lhs.getElementType(), " but rhs has ",
                                rhs.getElementType());
  ArrayRef<int64_t> ls = lhs.getShape(), rs = rhs.getShape();
  int64_t m = ls[ls.size() - 2], lk = ls.back();
  if (adaptor.getTransposeLhs())
    std::swap(m, lk);
  int64_t rk = rs[rs.size() - 2], n = rs.back();
  if (adaptor.getTransposeRhs())
    std::swap(rk, n);
  if (lk != rk)
    return emitOpInferenceError(loc, name, "contracting sizes differ: lhs ",
                                formatShape(ls), " gives K = ", lk, ", rhs ",
                                formatShape(rs), " gives K = ", rk);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(ls.drop_back(2), rs.drop_back(2),
                                          shape))
    return emitOpInferenceError(loc, name, "batch dimensions of lhs ",
                                formatShape(ls), " and rhs ", formatShape(rs),
                                " do not broadcast");
  shape.push_back(m);
  shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto a = dyn_cast<RankedTensorType>(adaptor.getA().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getB().getType());
  if (!a || !b)
    return emitOpInferenceError(loc, name, "operands must be ranked tensors");
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpInferenceError(loc, name,
                                "a and b must be matrices, got ranks ",
                                a.getRank(), " and ", b.getRank());
  if (a.getElementType() != b.getElementType())
    return emitOpInferenceError(loc, name, "a has element type ",
                                a.getElementType(), " but b has ",
                                b.getElementType());
  int64_t m = a.getDimSize(0), ak = a.getDimSize(1);
  if (adaptor.getTransposeA())
    std::swap(m, ak);
  int64_t bk = b.getDimSize(0), n = b.getDimSize(1);
  if (adaptor.getTransposeB())
    std::swap(bk, n);
  if (ak != bk)
    return emitOpInferenceError(loc, name, "contracting sizes differ: a ",
                                formatShape(a.getShape()), " gives K = ", ak,
                                ", b ", formatShape(b.getShape()),
                                " gives K = ", bk);
  SmallVector<int64_t> shape = {m, n};
  if (Value bias = adaptor.getBias()) {
    auto c = dyn_cast<RankedTensorType>(bias.getType());
    SmallVector<int64_t> broadcast;
    if (!c || c.getElementType() != a.getElementType() ||
        !OpTrait::util::getBroadcastedShape(c.getShape(), shape, broadcast) ||
        ArrayRef<int64_t>(broadcast) != ArrayRef<int64_t>(shape))
      return emitOpInferenceError(
          loc, name, "bias of type ", bias.getType(),
          " does not broadcast to the ", formatShape(shape),
          " result with element type ", a.getElementType());
  }
  types.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

/// 2 * (elements of the result) * k, or 0 when a shape is dynamic.
static int64_t productFlops(Type result, int64_t k) {
  auto type = dyn_cast<RankedTensorType>(result);
  if (!type || !type.hasStaticShape() || ShapedType::isDynamic(k))
    return 0;
  return 2 * type.getNumElements() * k;
}

int64_t MatmulOp::getFlops() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  int64_t rank = lhs.getRank();
  return productFlops(getType(),
                      lhs.getDimSize(getTransposeLhs() ? rank - 2 : rank - 1));
}

int64_t GemmOp::getFlops() {
  auto a = cast<RankedTensorType>(getA().getType());
  return productFlops(getType(), a.getDimSize(getTransposeA() ? 0 : 1));
}

//===----------------------------------------------------------------------===//
// AttentionOp, AttentionGradOp
//===----------------------------------------------------------------------===//

/// Checks query (... x T x D), key (... x S x D) and value (... x S x E)
/// of an attention: float32, the same leading dimensions, T = S when
/// causal.
static LogicalResult verifyAttentionOperands(std::optional<Location> loc,
                                             StringRef name, Type query,
                                             Type key, Type value,
                                             bool causal) {
  auto q = dyn_cast<RankedTensorType>(query);
  auto k = dyn_cast<RankedTensorType>(key);
  auto v = dyn_cast<RankedTensorType>(value);
  if (!q || !k || !v)
    return emitOpInferenceError(loc, name, "operands must be ranked tensors");
  if (!q.getElementType().isF32() || k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType())
    return emitOpInferenceError(loc, name,
                                "query, key and value must be float32, got ",
                                q.getElementType(), ", ", k.getElementType(),
                                " and ", v.getElementType());
  if (q.getRank() < 2 || k.getRank() != q.getRank() ||
      v.getRank() != q.getRank())
    return emitOpInferenceError(
        loc, name, "query, key and value must have one rank >= 2, got ",
        q.getRank(), ", ", k.getRank(), " and ", v.getRank());
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  if (qs.drop_back(2) != ks.drop_back(2) || qs.drop_back(2) != vs.drop_back(2))
    return emitOpInferenceError(
        loc, name, "query ", formatShape(qs), ", key ", formatShape(ks),
        " and value ", formatShape(vs), " must have the same batch dimensions");
  int64_t rank = q.getRank();
  if (qs[rank - 1] != ks[rank - 1])
    return emitOpInferenceError(loc, name, "query ", formatShape(qs),
                                " and key ", formatShape(ks),
                                " must have the same last dimension");
  if (ks[rank - 2] != vs[rank - 2])
    return emitOpInferenceError(loc, name, "key ", formatShape(ks),
                                " and value ", formatShape(vs),
                                " must have as many rows");
  if (causal && qs[rank - 2] != ks[rank - 2])
    return emitOpInferenceError(loc, name, "causal attention needs as many "
                                           "queries as keys, got ",
                                qs[rank - 2], " and ", ks[rank - 2]);
  return success();
}

/// The shapes of an attention's result (... x T x E) and log-sum-exp
/// (... x T).
static std::pair<RankedTensorType, RankedTensorType>
attentionResultTypes(Type query, Type value) {
  auto q = cast<RankedTensorType>(query);
  auto v = cast<RankedTensorType>(value);
  SmallVector<int64_t> shape(q.getShape());
  shape.back() = v.getShape().back();
  return {RankedTensorType::get(shape, q.getElementType()),
          RankedTensorType::get(q.getShape().drop_back(), q.getElementType())};
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(verifyAttentionOperands(
          loc, getOperationName(), adaptor.getQuery().getType(),
          adaptor.getKey().getType(), adaptor.getValue().getType(),
          adaptor.getCausal())))
    return failure();
  auto [result, logsumexp] = attentionResultTypes(
      adaptor.getQuery().getType(), adaptor.getValue().getType());
  types.push_back(result);
  types.push_back(logsumexp);
  return success();
}

LogicalResult AttentionGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  Type query = adaptor.getQuery().getType(), key = adaptor.getKey().getType(),
       value = adaptor.getValue().getType();
  if (failed(verifyAttentionOperands(loc, name, query, key, value,
                                     adaptor.getCausal())))
    return failure();
  auto [result, logsumexp] = attentionResultTypes(query, value);
  if (adaptor.getResult().getType() != result ||
      adaptor.getResultGrad().getType() != result ||
      adaptor.getLogsumexp().getType() != logsumexp)
    return emitOpInferenceError(
        loc, name, "result, logsumexp and result_grad must be ", result, ", ",
        logsumexp, " and ", result, ", got ", adaptor.getResult().getType(),
        ", ", adaptor.getLogsumexp().getType(), " and ",
        adaptor.getResultGrad().getType());
  types.append({query, key, value});
  return success();
}

/// 2 * (batch * T * S) * (D + E): both products, every score counted.
static int64_t attentionFlops(Type query, Type key, Type value) {
  ArrayRef<int64_t> q = cast<RankedTensorType>(query).getShape();
  int64_t rows = 1; // batch * T
  for (int64_t d : q.drop_back())
    rows *= d;
  int64_t keys = cast<RankedTensorType>(key).getShape().drop_back().back();
  int64_t features = cast<RankedTensorType>(value).getShape().back();
  return 2 * rows * keys * (q.back() + features);
}

int64_t AttentionOp::getFlops() {
  return attentionFlops(getQuery().getType(), getKey().getType(),
                        getValue().getType());
}

int64_t AttentionGradOp::getFlops() {
  return 2 * attentionFlops(getQuery().getType(), getKey().getType(),
                            getValue().getType());
}
