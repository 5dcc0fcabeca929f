//===- OverlapCollectives.cpp - Bucketed, asynchronous all-reduces --------===//
//
// Every op of the (single-block) function gets its position; an all-reduce
// can run from just after its input is produced (`ready`) to just before
// its result is first used (`needed`). Scanning all-reduces by `ready`, a
// bucket collects members while its latest `ready` stays before its
// earliest `needed` and it is below the size limit; it then starts after
// the latest `ready` and waits before the earliest `needed`.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTOVERLAPCOLLECTIVES
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct Candidate {
  mutable AllReduceOp op;
  int64_t ready;  // position of the op producing the input (-1: argument)
  int64_t needed; // position of the first user of the result
  int64_t bytes;
};

struct Bucket {
  SmallVector<Candidate> members;
  int64_t ready = -1, needed = INT64_MAX, bytes = 0;

  bool sameKind(const Candidate &c) const {
    AllReduceOp first = members.front().op;
    return first.getKind() == c.op.getKind() &&
           first.getAxes() == c.op.getAxes() &&
           first.getType().getElementType() == c.op.getType().getElementType();
  }
  bool accepts(const Candidate &c, double limit) const {
    return sameKind(c) && bytes < limit &&
           std::max(ready, c.ready) < std::min(needed, c.needed);
  }
  void add(const Candidate &c) {
    members.push_back(c);
    ready = std::max(ready, c.ready);
    needed = std::min(needed, c.needed);
    bytes += c.bytes;
  }
};

struct DistOverlapCollectivesPass
    : dist::impl::DistOverlapCollectivesBase<DistOverlapCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || !fn.getBody().hasOneBlock())
      return;
    Block &body = fn.getBody().front();
    DenseMap<Operation *, int64_t> position;
    SmallVector<Operation *> order;
    for (Operation &op : body) {
      position[&op] = order.size();
      order.push_back(&op);
    }
    SmallVector<Candidate> candidates;
    for (Operation *op : order) {
      auto reduce = dyn_cast<AllReduceOp>(op);
      // One that reduces another's result stays blocking (and so does
      // that one's first use, before it).
      if (!reduce || reduce.getResult().use_empty() ||
          reduce.getInput().getDefiningOp<AllReduceOp>())
        continue;
      Candidate c{reduce, -1, INT64_MAX, 0};
      if (Operation *def = reduce.getInput().getDefiningOp())
        c.ready = position.lookup(body.findAncestorOpInBlock(*def));
      for (Operation *user : reduce.getResult().getUsers())
        c.needed = std::min(c.needed,
                            position.lookup(body.findAncestorOpInBlock(*user)));
      c.bytes = tensorBytes(reduce.getType());
      candidates.push_back(c);
    }
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return a.ready < b.ready;
    });
    double limit = bucketMb * 1024.0 * 1024.0;
    SmallVector<Bucket> buckets;
    for (const Candidate &c : candidates) {
      // The latest bucket of its kind (reduction, axes, element type), if
      // that takes it: reductions of two types made alternately (top-k's
      // values and indices) fill a bucket each.
      Bucket *target = nullptr;
      for (Bucket &b : llvm::reverse(buckets)) {
        if (!b.sameKind(c))
          continue;
        if (b.accepts(c, limit))
          target = &b;
        break;
      }
      if (!target) {
        buckets.emplace_back();
        target = &buckets.back();
      }
      target->add(c);
    }
    Operation *afterArguments = nullptr;
    for (Bucket &b : buckets)
      emit(body, order, b, afterArguments);
  }

  /// `afterArguments`: the last start placed at the top of the block (for
  /// buckets of arguments), so that those keep their order.
  void emit(Block &body, ArrayRef<Operation *> order, Bucket &b,
            Operation *&afterArguments) {
    AllReduceOp first = b.members.front().op;
    SmallVector<Value> inputs;
    SmallVector<Type> types;
    int64_t elements = 0;
    for (const Candidate &c : b.members) {
      inputs.push_back(c.op.getInput());
      types.push_back(c.op.getType());
      elements += c.op.getType().getNumElements();
    }
    OpBuilder builder(first.getContext());
    if (b.ready < 0 && afterArguments)
      builder.setInsertionPointAfter(afterArguments);
    else if (b.ready < 0)
      builder.setInsertionPointToStart(&body);
    else
      builder.setInsertionPointAfter(order[b.ready]);
    auto bucketType =
        RankedTensorType::get({elements}, first.getType().getElementType());
    // The first member's location: what dist-explain-plan and diagnostics
    // say of the bucket.
    Location loc = first.getLoc();
    auto start = AllReduceStartOp::create(builder, loc, bucketType,
                                          builder.getI64Type(), first.getKind(),
                                          inputs, first.getAxes());
    if (b.ready < 0)
      afterArguments = start;
    builder.setInsertionPoint(order[b.needed]);
    auto wait = WaitOp::create(builder, loc, types, start.getRequest(),
                               start.getBucket());
    for (auto [c, result] : llvm::zip(b.members, wait.getResults())) {
      c.op.getResult().replaceAllUsesWith(result);
      c.op.erase();
    }
  }
};

} // namespace
