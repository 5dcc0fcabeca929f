//===- DistGradientInterface.h - Reverse-mode gradients of ops --*- C++ -*-===//

#ifndef DIALECTS_DIST_IR_DISTGRADIENTINTERFACE_H
#define DIALECTS_DIST_IR_DISTGRADIENTINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/Dist/IR/DistGradientInterface.h.inc"

#endif // DIALECTS_DIST_IR_DISTGRADIENTINTERFACE_H
