//===- DistWriteUpdatesEarly.cpp - Copy updates into place early ----------===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "passes/Conversion/BufferCarriers.h"

#define DEBUG_TYPE "dist-write-updates-early"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTWRITEUPDATESEARLY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct DistWriteUpdatesEarlyPass
    : dist::impl::DistWriteUpdatesEarlyBase<DistWriteUpdatesEarlyPass> {
  using DistWriteUpdatesEarlyBase::DistWriteUpdatesEarlyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto updates = module->getAttrOfType<DenseI64ArrayAttr>(
        DistDialect::kModelUpdatesAttrName);
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
      // The last op in the block that uses the source, before the copy,
      // including through views and raw pointers (a runtime call writing
      // it). Only a fresh allocation: a view could be written through
      // another one.
      Value source = copy.getSource();
      Operation *last = source.getDefiningOp<memref::AllocOp>();
      if (!last || last->getBlock() != &body)
        continue;
      FailureOr<DenseSet<Value>> sourceCarriers = memoryCarriers(source);
      if (failed(sourceCarriers))
        continue;
      bool usedAfter = false;
      for (Operation *op = last->getNextNode(); op; op = op->getNextNode()) {
        if (op == copy.getOperation() || !usesAnyOf(op, *sourceCarriers))
          continue;
        if (copy->isBeforeInBlock(op)) {
          usedAfter = true;
          break;
        }
        last = op;
      }
      if (usedAfter || last->getNextNode() == copy)
        continue;
      // Nothing between there and the copy may touch the overwritten
      // argument or the out-parameter, through a view or a pointer.
      FailureOr<DenseSet<Value>> argument =
          memoryCarriers(body.getArgument(updated));
      FailureOr<DenseSet<Value>> out = memoryCarriers(target);
      if (failed(argument) || failed(out))
        continue;
      DenseSet<Value> hazards = std::move(*argument);
      hazards.insert(out->begin(), out->end());
      bool safe = true;
      for (Operation *op = last->getNextNode(); op && op != copy;
           op = op->getNextNode())
        if (usesAnyOf(op, hazards)) {
          safe = false;
          break;
        }
      if (safe)
        copy->moveAfter(last);
    }
  }
};

} // namespace
