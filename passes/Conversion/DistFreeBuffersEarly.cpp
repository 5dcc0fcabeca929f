//===- DistFreeBuffersEarly.cpp - Free buffers after their last use -------===//

#include "passes/Conversion/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "dist-free-buffers-early"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFREEBUFFERSEARLY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Ops whose results carry the buffer's memory on: views and casts of it,
/// its pointer and metadata, and arithmetic and casts on those.
bool propagates(Operation *op) {
  return isa<ViewLikeOpInterface, memref::CastOp, memref::ReinterpretCastOp,
             memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::ExtractAlignedPointerAsIndexOp,
             memref::ExtractStridedMetadataOp, arith::IndexCastOp,
             arith::IndexCastUIOp, arith::AddIOp, arith::MulIOp,
             LLVM::IntToPtrOp, LLVM::PtrToIntOp>(op);
}

/// The values that carry `alloc`'s memory, or failure if it escapes through
/// an op the pass does not follow.
FailureOr<DenseSet<Value>> carriersOf(Value alloc) {
  DenseSet<Value> carriers = {alloc};
  SmallVector<Value> worklist = {alloc};
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

struct DistFreeBuffersEarlyPass
    : dist::impl::DistFreeBuffersEarlyBase<DistFreeBuffersEarlyPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (!fn.getBody().hasOneBlock())
      return;
    Block &body = fn.getBody().front();
    for (auto dealloc : llvm::to_vector(body.getOps<memref::DeallocOp>())) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &body)
        continue;
      FailureOr<DenseSet<Value>> carriers = carriersOf(alloc.getResult());
      if (failed(carriers))
        continue;
      Operation *last = alloc;
      bool usedAfter = false;
      for (Value v : *carriers)
        for (Operation *user : v.getUsers()) {
          if (user == dealloc)
            continue;
          Operation *top = body.findAncestorOpInBlock(*user);
          if (!top || dealloc->isBeforeInBlock(top))
            usedAfter = true;
          else if (last->isBeforeInBlock(top))
            last = top;
        }
      if (!usedAfter && last->getNextNode() != dealloc)
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
