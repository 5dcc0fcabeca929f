//===- RegisterGradients.cpp - Attach the gradient models -----------------===//

#include "dialects/Dist/Gradients/Gradients.h"

#include "dialects/Dist/IR/DistDialect.h"

using namespace mlir;
using namespace mlir::dist;

void mlir::dist::registerGradientOpInterfaceModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    detail::attachElementwiseGradients(ctx);
    detail::attachReductionGradients(ctx);
    detail::attachLossGradients(ctx);
    detail::attachShapeGradients(ctx);
    detail::attachContractionGradients(ctx);
    detail::attachConvGradients(ctx);
  });
}
