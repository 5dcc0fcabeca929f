//===- Gradients.h - Gradient implementations of the dist ops ---*- C++ -*-===//
//
// Every dist op with a float result and a float operand implements
// GradientOpInterface through an external model registered here. One file
// per op family; each defines `gradient(OpT, ...)` for its ops and attaches
// them in its `attach*Gradients` function.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_GRADIENTS_GRADIENTS_H
#define DIALECTS_DIST_GRADIENTS_GRADIENTS_H

#include "dialects/Dist/IR/DistBuilder.h"
#include "dialects/Dist/IR/DistGradientInterface.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::dist {

/// Attaches GradientOpInterface to every differentiable dist op.
void registerGradientOpInterfaceModels(DialectRegistry &registry);

namespace detail {

/// What a gradient function gets: the op's result gradients (null: zero),
/// which operand gradients are wanted, and where to put them (pre-sized to
/// the operand count, null: zero).
struct GradientRequest {
  ArrayRef<Value> resultGradients;
  ArrayRef<bool> needed;
  MutableArrayRef<Value> operandGradients;

  /// The first result's gradient (a single-result op's only one).
  Value dy() const { return resultGradients.front(); }
  bool wants(unsigned operand) const { return needed[operand]; }
  void set(unsigned operand, Value gradient) {
    operandGradients[operand] = gradient;
  }
};

/// The external model: forwards to the `gradient` overload for `OpT`.
template <typename OpT, typename Fn>
struct GradientModel
    : GradientOpInterface::ExternalModel<GradientModel<OpT, Fn>, OpT> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               ArrayRef<bool> needed,
                               SmallVectorImpl<Value> &operandGradients) const {
    operandGradients.assign(op->getNumOperands(), Value());
    DistBuilder g(builder, op->getLoc());
    GradientRequest request{resultGradients, needed, operandGradients};
    return Fn::build(cast<OpT>(op), g, request);
  }
};

/// Attaches the model whose `Fn::build(OpT, DistBuilder &,
/// GradientRequest &)` builds `OpT`'s gradients.
template <typename OpT, typename Fn> void attachGradient(MLIRContext *ctx) {
  OpT::template attachInterface<GradientModel<OpT, Fn>>(*ctx);
}

/// The normalized `x` and 1 / sqrt(var + epsilon) of a normalization over
/// `axes` (statistics kept as size-1 dimensions); shared by layer and batch
/// norm.
std::pair<Value, Value> normalize(DistBuilder &g, Value x,
                                  ArrayRef<int64_t> axes, double epsilon);
/// The gradient of the input of such a normalization from that of its
/// normalized value `dxhat`.
Value normalizeBackward(DistBuilder &g, Value dxhat, Value xhat, Value rstd,
                        ArrayRef<int64_t> axes);

void attachElementwiseGradients(MLIRContext *ctx);
void attachReductionGradients(MLIRContext *ctx);
void attachLossGradients(MLIRContext *ctx);
void attachShapeGradients(MLIRContext *ctx);
void attachContractionGradients(MLIRContext *ctx);
void attachConvGradients(MLIRContext *ctx);

} // namespace detail
} // namespace mlir::dist

#endif // DIALECTS_DIST_GRADIENTS_GRADIENTS_H
