//===- DistGradientInterface.td - Reverse-mode gradients of ops -----------===//
//
// The interface through which dist-autodiff differentiates an op. Each op
// states its own vector-Jacobian product; the pass knows no op kinds.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTGRADIENTINTERFACE_TD
#define DIST_IR_DISTGRADIENTINTERFACE_TD

include "mlir/IR/OpBase.td"

def Dist_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::dist";
  let description = [{
    An op that reverse-mode autodiff can differentiate. Given the gradients
    of the loss with respect to the op's results, `buildGradients` builds, at
    the builder's insertion point, the gradients with respect to its
    operands (the vector-Jacobian product).

    - `resultGradients` has one entry per result; a null value means the
      loss does not depend on that result (a zero gradient), and at least
      one entry is not null.
    - `needed` has one entry per operand: whether autodiff wants that
      operand's gradient. An implementation may skip the others.
    - `operandGradients` is filled with one entry per operand, each of the
      operand's type, or null for a zero gradient.

    Failing (with a diagnostic on the op) means the gradient cannot be
    built, e.g. with respect to an operand the op does not differentiate.
    The implementations are external models registered by
    `registerGradientOpInterfaceModels` (dialects/Dist/Gradients).
  }];
  let methods = [
    InterfaceMethod<
      "Builds the gradients of the operands from those of the results.",
      "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::ArrayRef<bool>":$needed,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>
  ];
}

#endif // DIST_IR_DISTGRADIENTINTERFACE_TD
