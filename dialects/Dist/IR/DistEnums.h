//===- DistEnums.h - Enumerated attributes of the dist dialect --*- C++ -*-===//

#ifndef DIALECTS_DIST_IR_DISTENUMS_H
#define DIALECTS_DIST_IR_DISTENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "dialects/Dist/IR/DistEnums.h.inc"

#endif // DIALECTS_DIST_IR_DISTENUMS_H
