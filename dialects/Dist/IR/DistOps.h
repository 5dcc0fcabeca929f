//===- DistOps.h - Operations of the dist dialect ---------------*- C++ -*-===//

#ifndef DIALECTS_DIST_IR_DISTOPS_H
#define DIALECTS_DIST_IR_DISTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Dist/IR/DistAttrs.h"
#include "dialects/Dist/IR/DistDialect.h"
#include "dialects/Dist/IR/DistEnums.h"

#define GET_OP_CLASSES
#include "dialects/Dist/IR/DistOps.h.inc"

namespace mlir::dist {

/// Whether `op` is a collective: all_reduce, all_gather, reduce_scatter,
/// shard_slice, all_reduce_start or wait.
bool isCollective(Operation *op);

/// The bytes of a statically shaped tensor's elements (bool and other
/// sub-byte types count a byte each); 0 for any other type.
int64_t tensorBytes(Type type);

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTOPS_H
