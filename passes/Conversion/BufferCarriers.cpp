//===- BufferCarriers.cpp - The values a buffer's memory flows into -------===//

#include "passes/Conversion/BufferCarriers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

/// Ops whose results carry an operand's memory on.
static bool propagates(Operation *op) {
  return isa<ViewLikeOpInterface, memref::CastOp, memref::ReinterpretCastOp,
             memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::ExtractAlignedPointerAsIndexOp,
             memref::ExtractStridedMetadataOp, arith::IndexCastOp,
             arith::IndexCastUIOp, arith::AddIOp, arith::MulIOp,
             LLVM::IntToPtrOp, LLVM::PtrToIntOp>(op);
}

FailureOr<llvm::DenseSet<Value>> mlir::dist::memoryCarriers(Value buffer) {
  llvm::DenseSet<Value> carriers = {buffer};
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (propagates(user)) {
        for (Value result : user->getResults())
          if (carriers.insert(result).second)
            worklist.push_back(result);
        continue;
      }
      if (llvm::any_of(user->getResultTypes(),
                       [](Type t) { return isa<BaseMemRefType>(t); }))
        return failure();
    }
  }
  return carriers;
}

bool mlir::dist::usesAnyOf(Operation *op, const llvm::DenseSet<Value> &values) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (values.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}
