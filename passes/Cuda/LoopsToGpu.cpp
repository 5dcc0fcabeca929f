//===- LoopsToGpu.cpp - Host loop nests on buffers to gpu.launch kernels --===//
//
// The loops the linalg lowering leaves (scatter-add of an embedding's
// gradient, max-pool's backward) read and write buffers element by element.
// On a GPU they must run in a kernel; this pass finds the loops of a nest
// that can run in parallel and makes them the kernel's threads.
//
//===----------------------------------------------------------------------===//

#include "passes/Cuda/Passes.h"

#include "passes/Cuda/Launches.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "dist-loops-to-gpu"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTLOOPSTOGPU
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// The buffer a memref value views (through subviews, reshapes, casts).
static Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

static std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// The loops of `root`'s nest whose iterations touch disjoint elements of
/// every buffer the nest writes: each access (load or store) of a written
/// buffer has the loop's induction variable itself at one fixed index
/// position. Empty when the nest writes memory in another way or reaches a
/// written buffer through two different values.
static SmallVector<scf::ForOp> parallelLoops(scf::ForOp root) {
  SmallVector<scf::ForOp> loops;
  SmallVector<Operation *> accesses;
  bool unknownWrite = false;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<cf::AssertOp>(op))
      return; // a check, run by every thread
    if (auto loop = dyn_cast<scf::ForOp>(op))
      loops.push_back(loop);
    else if (isa<memref::LoadOp, memref::StoreOp>(op))
      accesses.push_back(op);
    else if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
      unknownWrite |= effects.hasEffect<MemoryEffects::Write>();
    else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      unknownWrite = true;
  });
  if (unknownWrite)
    return {};
  auto memrefOf = [](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return load.getMemRef();
    return cast<memref::StoreOp>(op).getMemRef();
  };
  auto indicesOf = [](Operation *op) -> ValueRange {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return load.getIndices();
    return cast<memref::StoreOp>(op).getIndices();
  };
  // Written buffers, by root, and the one value each is accessed through.
  llvm::DenseMap<Value, Value> written;
  for (Operation *op : accesses)
    if (isa<memref::StoreOp>(op))
      written[rootBuffer(memrefOf(op))] = memrefOf(op);
  for (Operation *op : accesses) {
    auto it = written.find(rootBuffer(memrefOf(op)));
    if (it != written.end() && it->second != memrefOf(op))
      return {}; // two views of one written buffer
  }
  SmallVector<scf::ForOp> parallel;
  for (scf::ForOp loop : loops) {
    if (loop.getNumRegionIterArgs() || !constantIndex(loop.getLowerBound()) ||
        !constantIndex(loop.getUpperBound()) || !constantIndex(loop.getStep()))
      continue;
    Value iv = loop.getInductionVar();
    bool disjoint = true;
    for (auto [root, buffer] : written) {
      std::optional<unsigned> position;
      for (Operation *op : accesses) {
        if (memrefOf(op) != buffer)
          continue;
        ValueRange indices = indicesOf(op);
        std::optional<unsigned> here;
        for (auto [i, index] : llvm::enumerate(indices))
          if (index == iv && (!position || *position == i))
            here = i;
        if (!here || (position && *position != *here)) {
          disjoint = false;
          break;
        }
        position = here;
      }
      if (!disjoint)
        break;
    }
    if (disjoint)
      parallel.push_back(loop);
  }
  return parallel;
}

/// A nest that writes one buffer, always at the same data-dependent index
/// `row` of one dimension (an embedding gradient's row, read from the token
/// ids): threads can also split that dimension's range, each running the
/// serial loops but touching only its own rows. `row` is defined in the
/// body of a serial loop without results, before every access of the
/// buffer and after every check.
struct OwnedRows {
  Value row;
  int64_t size; // the buffer's extent in that dimension
};

static std::optional<OwnedRows>
ownedRows(scf::ForOp root, ArrayRef<scf::ForOp> parallel) {
  // Only element loads and stores touch memory (and checks, which must
  // then run on every thread: they come before `row`, below).
  SmallVector<Operation *> stores, loads, asserts;
  bool otherEffects = false;
  root->walk([&](Operation *op) {
    if (isa<memref::StoreOp>(op))
      stores.push_back(op);
    else if (isa<memref::LoadOp>(op))
      loads.push_back(op);
    else if (isa<cf::AssertOp>(op))
      asserts.push_back(op);
    else if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
      otherEffects |= !effects.hasNoEffect();
    else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      otherEffects = true;
  });
  if (stores.empty() || otherEffects)
    return std::nullopt;
  Value buffer = cast<memref::StoreOp>(stores.front()).getMemRef();
  // The written buffer (or view) is the same for every iteration.
  if (root->isAncestor(buffer.getParentRegion()->getParentOp()))
    return std::nullopt;
  SmallVector<ValueRange> accesses;
  for (Operation *op : stores) {
    auto store = cast<memref::StoreOp>(op);
    if (store.getMemRef() != buffer)
      return std::nullopt; // more than one written buffer
    accesses.push_back(store.getIndices());
  }
  for (Operation *op : loads) {
    auto load = cast<memref::LoadOp>(op);
    if (rootBuffer(load.getMemRef()) == rootBuffer(buffer)) {
      if (load.getMemRef() != buffer)
        return std::nullopt;
      accesses.push_back(load.getIndices());
    }
  }
  auto type = cast<MemRefType>(buffer.getType());
  for (unsigned dim = 0; dim < type.getRank(); ++dim) {
    Value row = accesses.front()[dim];
    if (type.isDynamicDim(dim) || type.getDimSize(dim) < 2 ||
        llvm::any_of(accesses,
                     [&](ValueRange indices) { return indices[dim] != row; }))
      continue;
    Operation *def = row.getDefiningOp();
    auto loop = def ? dyn_cast<scf::ForOp>(def->getParentOp()) : nullptr;
    if (!loop || !root->isAncestor(loop) ||
        llvm::is_contained(parallel, loop) || loop.getNumRegionIterArgs())
      continue;
    // Every access of the buffer follows `row` in that loop's body, every
    // check precedes it (a row no thread owns must still fail them).
    Block *body = loop.getBody();
    auto follows = [&](Operation *op) {
      Operation *top = body->findAncestorOpInBlock(*op);
      return top && def->isBeforeInBlock(top);
    };
    bool after = llvm::all_of(llvm::concat<Operation *>(stores, loads),
                              [&](Operation *op) {
      if (isa<memref::LoadOp>(op) &&
          cast<memref::LoadOp>(op).getMemRef() != buffer)
        return true;
      return follows(op);
    });
    if (after && llvm::none_of(asserts, follows))
      return OwnedRows{row, type.getDimSize(dim)};
  }
  return std::nullopt;
}

struct DistLoopsToGpuPass
    : dist::impl::DistLoopsToGpuBase<DistLoopsToGpuPass> {
  using DistLoopsToGpuBase::DistLoopsToGpuBase;

  void runOnOperation() override {
    loopCount = 0; // names must not depend on which functions ran before
    if (ownerThreads < 0 || ownerThreads > (int64_t{1} << 24)) {
      getOperation().emitError()
          << "dist-loops-to-gpu: owner-threads "
          << static_cast<int64_t>(ownerThreads) << " is not from 0 to 2^24";
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> nests;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        nests.push_back(loop);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (scf::ForOp nest : nests)
      if (failed(convert(nest)))
        return signalPassFailure();
  }

  unsigned loopCount = 0;

  /// Wraps what follows `row` in its loop body into `if (low <= row <
  /// high)`: the thread touches only its rows.
  void guardOwnedRows(OpBuilder &b, Value row, Value low, Value high) {
    Operation *def = row.getDefiningOp();
    Block *body = def->getBlock();
    Location loc = def->getLoc();
    b.setInsertionPointAfter(def);
    Value mine = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, low),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, high));
    auto guard = scf::IfOp::create(b, loc, mine, /*withElse=*/false);
    Block *then = &guard.getThenRegion().front();
    then->getOperations().splice(
        then->begin(), body->getOperations(),
        std::next(guard->getIterator()), body->getTerminator()->getIterator());
  }

  LogicalResult convert(scf::ForOp nest) {
    WalkResult inner = nest->walk([](Operation *op) {
      return isa<gpu::LaunchOp, func::CallOp>(op) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
    });
    if (inner.wasInterrupted())
      return nest.emitError()
             << "dist-loops-to-gpu: a host loop around kernels or runtime "
                "calls cannot become one kernel";
    if (nest.getNumResults() &&
        llvm::any_of(nest.getResults(), [](Value r) { return !r.use_empty(); }))
      return nest.emitError() << "dist-loops-to-gpu: the host uses a value "
                                 "this loop computes";
    SmallVector<scf::ForOp> parallel = parallelLoops(nest);
    SmallVector<int64_t> sizes;
    for (scf::ForOp loop : parallel) {
      int64_t lb = *constantIndex(loop.getLowerBound());
      int64_t ub = *constantIndex(loop.getUpperBound());
      int64_t step = *constantIndex(loop.getStep());
      sizes.push_back(ub > lb ? (ub - lb + step - 1) / step : 0);
    }
    int64_t points = 1;
    for (int64_t s : sizes)
      points *= s;
    Location loc = nest.getLoc();
    OpBuilder b(nest);
    if (points == 0) {
      nest.erase();
      return success();
    }
    // Few threads and a written row that the data picks: threads also
    // split the rows, `owners` ranges of `rowsEach`.
    std::optional<OwnedRows> owned;
    int64_t owners = 1, rowsEach = 0;
    if (points < ownerThreads && (owned = ownedRows(nest, parallel))) {
      owners = std::min(owned->size, (ownerThreads + points - 1) / points);
      rowsEach = (owned->size + owners - 1) / owners;
      owners = (owned->size + rowsEach - 1) / rowsEach;
    }
    // No parallel loop and no rows to split: the nest runs in order on one
    // thread.
    int64_t threads = parallel.empty() && owners == 1
                          ? 1
                          : dist::threadsPerBlock(points * owners, blockSize);
    auto [launch, kb, id] =
        dist::createPointLaunch(b, loc, points * owners, threads);
    // Numbered after dist-linalg-to-gpu's kernels of the same function.
    dist::nameKernel(launch, nest, 10000 + loopCount++);
    // Coordinates of this thread over the owners (slowest: a warp's threads
    // share their rows) and the parallel loops (the last fastest):
    // iv = lb + index * step.
    SmallVector<int64_t> grid{owners};
    llvm::append_range(grid, sizes);
    SmallVector<Value> indices = dist::delinearize(kb, loc, id, grid);
    // This thread's rows: [low, high).
    Value low, high;
    if (owners > 1) {
      Value size = arith::ConstantIndexOp::create(kb, loc, rowsEach);
      low = arith::MulIOp::create(kb, loc, indices.front(), size);
      high = arith::AddIOp::create(kb, loc, low, size);
    }
    SmallVector<Value> coords;
    for (auto [loop, index] :
         llvm::zip_equal(parallel, ArrayRef(indices).drop_front())) {
      auto c = [&](Value v) {
        return arith::ConstantIndexOp::create(kb, loc, *constantIndex(v));
      };
      coords.push_back(arith::AddIOp::create(
          kb, loc, c(loop.getLowerBound()),
          arith::MulIOp::create(kb, loc, index, c(loop.getStep()))));
    }
    IRMapping map;
    kb.clone(*nest, map);
    // Each parallel loop of the copy runs only this thread's iteration.
    IRRewriter rewriter(kb);
    for (auto [loop, coord] : llvm::zip_equal(parallel, coords)) {
      auto copy = cast<scf::ForOp>(map.lookup(loop.getOperation()));
      Block *body = copy.getBody();
      Operation *yield = body->getTerminator();
      rewriter.inlineBlockBefore(body, copy, ValueRange{coord});
      rewriter.eraseOp(yield);
      rewriter.eraseOp(copy);
    }
    if (owners > 1)
      guardOwnedRows(kb, map.lookup(owned->row), low, high);
    nest.erase();
    return success();
  }
};

} // namespace
