//===- DistOps.td - Operations of the dist dialect ------------------------===//
//
// One file per op family; this file only assembles them so that one
// `DistOps.h.inc` holds every op.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTOPS_TD
#define DIST_IR_DISTOPS_TD

include "dialects/Dist/IR/DistBase.td"
include "dialects/Dist/IR/DistEnums.td"
include "dialects/Dist/IR/DistAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

include "dialects/Dist/IR/DistCoreOps.td"
include "dialects/Dist/IR/DistElementwiseOps.td"
include "dialects/Dist/IR/DistContractionOps.td"
include "dialects/Dist/IR/DistReductionOps.td"
include "dialects/Dist/IR/DistShapeOps.td"
include "dialects/Dist/IR/DistConvOps.td"
include "dialects/Dist/IR/DistCollectiveOps.td"

#endif // DIST_IR_DISTOPS_TD
