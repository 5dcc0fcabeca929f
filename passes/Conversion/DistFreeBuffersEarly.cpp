//===- DistFreeBuffersEarly.cpp - Free buffers after their last use -------===//

#include "passes/Conversion/Passes.h"

#include "passes/Conversion/BufferCarriers.h"

#define DEBUG_TYPE "dist-free-buffers-early"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFREEBUFFERSEARLY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

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
      FailureOr<DenseSet<Value>> carriers = memoryCarriers(alloc.getResult());
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
