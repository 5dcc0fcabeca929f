//===- DistWriteUpdatesEarly.cpp - Copy updates into place early ----------===//

#include "passes/Conversion/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "dist-write-updates-early"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTWRITEUPDATESEARLY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// `root` and every value that views its memory (subviews, casts, reshapes),
/// transitively.
DenseSet<Value> viewsOf(Value root) {
  DenseSet<Value> views = {root};
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      bool isView = isa<ViewLikeOpInterface>(user) ||
                    isa<memref::CastOp, memref::ReinterpretCastOp,
                        memref::CollapseShapeOp, memref::ExpandShapeOp>(user);
      if (!isView)
        continue;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) &&
            views.insert(result).second)
          worklist.push_back(result);
    }
  }
  return views;
}

/// Whether `op` or an op nested in it uses a value of `values`.
bool touches(Operation *op, const DenseSet<Value> &values) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (values.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

struct DistWriteUpdatesEarlyPass
    : dist::impl::DistWriteUpdatesEarlyBase<DistWriteUpdatesEarlyPass> {
  using DistWriteUpdatesEarlyBase::DistWriteUpdatesEarlyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto updates =
        module->getAttrOfType<DenseI64ArrayAttr>(kModelUpdatesAttrName);
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    if (!updates || !fn || fn.isExternal() || !fn.getBody().hasOneBlock())
      return;
    Block &body = fn.getBody().front();
    int64_t results = updates.size();
    int64_t firstOut = static_cast<int64_t>(fn.getNumArguments()) - results;
    if (firstOut < 0)
      return;
    for (auto copy : llvm::to_vector(body.getOps<memref::CopyOp>())) {
      auto target = dyn_cast<BlockArgument>(copy.getTarget());
      if (!target || target.getOwner() != &body ||
          static_cast<int64_t>(target.getArgNumber()) < firstOut)
        continue;
      int64_t updated = updates[target.getArgNumber() - firstOut];
      if (updated < 0)
        continue;
      // The last op in the block that uses the source, before the copy. Only
      // a fresh allocation: a view could be written through another one.
      Value source = copy.getSource();
      Operation *last = source.getDefiningOp<memref::AllocOp>();
      if (!last || last->getBlock() != &body)
        continue;
      bool usedAfter = false;
      for (Operation *user : source.getUsers()) {
        if (user == copy)
          continue;
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top || copy->isBeforeInBlock(top)) {
          usedAfter = true;
          break;
        }
        if (!last || last->getBlock() != &body || last->isBeforeInBlock(top))
          last = top;
      }
      if (usedAfter || !last || last->getBlock() != &body ||
          last->getNextNode() == copy)
        continue;
      // Nothing between there and the copy may touch the overwritten
      // argument or the out-parameter.
      DenseSet<Value> hazards = viewsOf(body.getArgument(updated));
      for (Value v : viewsOf(target))
        hazards.insert(v);
      bool safe = true;
      for (Operation *op = last->getNextNode(); op && op != copy;
           op = op->getNextNode())
        if (touches(op, hazards)) {
          safe = false;
          break;
        }
      if (safe)
        copy->moveAfter(last);
    }
  }
};

} // namespace
