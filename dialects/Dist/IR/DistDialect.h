//===- DistDialect.h - The dist dialect -------------------------*- C++ -*-===//

#ifndef DIALECTS_DIST_IR_DISTDIALECT_H
#define DIALECTS_DIST_IR_DISTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Dist/IR/DistDialect.h.inc"

#endif // DIALECTS_DIST_IR_DISTDIALECT_H
