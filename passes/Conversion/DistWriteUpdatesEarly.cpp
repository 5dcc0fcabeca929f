//===- DistWriteUpdatesEarly.cpp - Compute results into place -------------===//

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

/// The init of `op` through which it writes every element of `buffer`
/// without reading the old ones: an all-parallel generic on buffers whose
/// map for it is a permutation and whose body ignores its old value.
OpOperand *overwrite(Operation *op, Value buffer) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  for (OpOperand &init : generic.getDpsInitsMutable())
    if (init.get() == buffer &&
        generic.getMatchingIndexingMap(&init).isPermutation() &&
        !generic.payloadUsesValueFromOperand(&init))
      return &init;
  return nullptr;
}

/// Whether `op`, once its init `written` is the argument's own memory, still
/// reads every element of the argument before it writes it: it is an
/// all-parallel generic that reads the argument only directly (no view,
/// nothing nested) and through the map of `written`, a permutation, so the
/// iteration that writes an element is the only one that reads it. With
/// `renamed`, every other use of the init's buffer becomes the argument's
/// memory too, under the same condition.
bool updatesInPlace(Operation *op, OpOperand &written, bool renamed,
                    Value argument, const DenseSet<Value> &argumentCarriers) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  AffineMap map = generic.getMatchingIndexingMap(&written);
  if (!map.isPermutation())
    return false;
  Value buffer = written.get();
  for (OpOperand &operand : generic->getOpOperands()) {
    Value value = operand.get();
    if ((value == argument || (renamed && value == buffer)) &&
        generic.getMatchingIndexingMap(&operand) != map)
      return false;
    if (value != argument && argumentCarriers.contains(value))
      return false;
  }
  WalkResult nested = generic.getRegion().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (operand == buffer || argumentCarriers.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !nested.wasInterrupted();
}

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
      // Only a fresh allocation: a view could be written through another
      // one.
      auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &body)
        continue;
      FailureOr<DenseSet<Value>> sourceCarriers =
          memoryCarriers(alloc.getResult());
      if (failed(sourceCarriers))
        continue;
      // The first and the last op in the block that use the source before
      // the copy, including through views and raw pointers (a runtime call
      // writing it).
      Operation *first = nullptr, *last = alloc;
      bool usedAfter = false;
      for (Operation *op = alloc->getNextNode(); op; op = op->getNextNode()) {
        if (op == copy.getOperation() || !usesAnyOf(op, *sourceCarriers))
          continue;
        if (copy->isBeforeInBlock(op)) {
          usedAfter = true;
          break;
        }
        if (!first)
          first = op;
        last = op;
      }
      if (usedAfter)
        continue;
      // Nothing between there and the copy may touch the out-parameter or,
      // for an update, the argument it overwrites (its memory at run time),
      // through a view or a pointer.
      FailureOr<DenseSet<Value>> out = memoryCarriers(target);
      if (failed(out))
        continue;
      DenseSet<Value> hazards = std::move(*out);
      DenseSet<Value> argumentCarriers;
      if (updated >= 0) {
        FailureOr<DenseSet<Value>> argument =
            memoryCarriers(body.getArgument(updated));
        if (failed(argument))
          continue;
        argumentCarriers = std::move(*argument);
        hazards.insert(argumentCarriers.begin(), argumentCarriers.end());
      }
      auto touchedFrom = [&](Operation *from) {
        for (Operation *op = from; op && op != copy; op = op->getNextNode())
          if (usesAnyOf(op, hazards))
            return true;
        return false;
      };
      // Compute the value in place when the copy only moves it there. From
      // the source's first use on, or from the op that last overwrites all
      // of it (what comes before keeps the buffer), nothing may touch the
      // out-parameter or the argument, but that op may read the argument in
      // place. An output's place is its out-parameter; an update's is the
      // argument itself, the out-parameter's memory at run time: with one
      // name for the element read and the element written, LLVM sees that
      // an op updating it in place may be vectorized (two names fail its
      // run-time overlap check, and the loop runs scalar).
      Value source = alloc.getResult();
      Value place = updated >= 0 ? body.getArgument(updated) : target;
      auto forward = [&](Operation *start, OpOperand *written) {
        if (touchedFrom(start->getNextNode()))
          return false;
        if (usesAnyOf(start, hazards) &&
            (updated < 0 || !written ||
             !updatesInPlace(start, *written, /*renamed=*/start == first,
                             body.getArgument(updated), argumentCarriers)))
          return false;
        // After `start`, the buffer is used only directly, or through
        // views and pointers taken after it.
        for (Operation *op = start->getNextNode(); op != copy;
             op = op->getNextNode()) {
          WalkResult early = op->walk([&](Operation *inner) {
            for (Value operand : inner->getOperands()) {
              if (operand == source || !sourceCarriers->contains(operand))
                continue;
              Operation *def = operand.getDefiningOp();
              def = def ? body.findAncestorOpInBlock(*def) : nullptr;
              if (!def || !start->isBeforeInBlock(def))
                return WalkResult::interrupt();
            }
            return WalkResult::advance();
          });
          if (early.wasInterrupted())
            return false;
        }
        for (OpOperand &use : llvm::make_early_inc_range(source.getUses())) {
          Operation *owner = body.findAncestorOpInBlock(*use.getOwner());
          if (owner == copy.getOperation())
            continue;
          if ((owner == start && (start == first || &use == written)) ||
              (owner != start && start->isBeforeInBlock(owner)))
            use.set(place);
        }
        copy.erase();
        if (source.use_empty())
          alloc.erase();
        return true;
      };
      if (first && alloc.getType() == cast<MemRefType>(target.getType()) &&
          alloc.getType() == place.getType()) {
        if (forward(first, overwrite(first, source)))
          continue;
        Operation *writer = nullptr;
        OpOperand *whole = nullptr;
        for (Operation *op = first->getNextNode(); op != copy;
             op = op->getNextNode())
          if (OpOperand *init = overwrite(op, source))
            writer = op, whole = init;
        if (writer && forward(writer, whole))
          continue;
      }
      // Else copy as soon as the value is final, so that its buffer is freed
      // at once.
      if (updated < 0 || last->getNextNode() == copy ||
          touchedFrom(last->getNextNode()))
        continue;
      copy->moveAfter(last);
    }
  }
};

} // namespace
