//===- GpuLaunchToLoops.cpp - Run gpu.launch kernels as host loops --------===//
//
// The CUDA emulator (dist-compile --target=cuda-emulate): the kernels that
// dist-linalg-to-gpu and dist-loops-to-gpu generate run on the CPU, one
// thread after another, so that their indexing, reductions and guards are
// checked against the CPU backend on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#include "passes/Cuda/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "dist-gpu-launch-to-loops"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPULAUNCHTOLOOPS
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

using Kind = gpu::AllReduceOperation;

/// `a combine b` for a block-wide reduction of `kind`.
static Value combine(OpBuilder &b, Location loc, Kind kind, Value x,
                     Value y) {
  switch (kind) {
  case Kind::ADD:
    return isa<FloatType>(x.getType())
               ? Value(arith::AddFOp::create(b, loc, x, y))
               : Value(arith::AddIOp::create(b, loc, x, y));
  case Kind::MUL:
    return isa<FloatType>(x.getType())
               ? Value(arith::MulFOp::create(b, loc, x, y))
               : Value(arith::MulIOp::create(b, loc, x, y));
  case Kind::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, x, y);
  case Kind::MINNUMF:
    return arith::MinNumFOp::create(b, loc, x, y);
  case Kind::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, x, y);
  case Kind::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, x, y);
  case Kind::MAXSI:
    return arith::MaxSIOp::create(b, loc, x, y);
  case Kind::MINSI:
    return arith::MinSIOp::create(b, loc, x, y);
  case Kind::MAXUI:
    return arith::MaxUIOp::create(b, loc, x, y);
  case Kind::MINUI:
    return arith::MinUIOp::create(b, loc, x, y);
  case Kind::AND:
    return arith::AndIOp::create(b, loc, x, y);
  case Kind::OR:
    return arith::OrIOp::create(b, loc, x, y);
  case Kind::XOR:
    return arith::XOrIOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown all_reduce kind");
}

static std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

struct DistGpuLaunchToLoopsPass
    : dist::impl::DistGpuLaunchToLoopsBase<DistGpuLaunchToLoopsPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(convert(launch)))
        return signalPassFailure();
  }

  LogicalResult convert(gpu::LaunchOp launch) {
    std::optional<int64_t> grid = constantIndex(launch.getGridSizeX());
    std::optional<int64_t> block = constantIndex(launch.getBlockSizeX());
    for (Value size : {launch.getGridSizeY(), launch.getGridSizeZ(),
                       launch.getBlockSizeY(), launch.getBlockSizeZ()})
      if (constantIndex(size) != 1)
        grid.reset();
    if (!grid || !block || launch.getAsyncToken() ||
        launch.getDynamicSharedMemorySize())
      return launch.emitError()
             << "dist-gpu-launch-to-loops: only synchronous launches with "
                "constant x sizes (as dist-linalg-to-gpu makes) are emulated";
    Block &body = launch.getBody().front();
    // The block-wide reductions, in stages of consecutive ones.
    SmallVector<SmallVector<gpu::AllReduceOp>> stages;
    for (Operation &op : body) {
      auto reduce = dyn_cast<gpu::AllReduceOp>(op);
      if (!reduce)
        continue;
      if (!reduce.getOp() || !reduce.getBody().empty())
        return reduce.emitError()
               << "dist-gpu-launch-to-loops: only named reductions";
      Operation *previous = reduce->getPrevNode();
      if (stages.empty() || !isa_and_nonnull<gpu::AllReduceOp>(previous))
        stages.emplace_back();
      stages.back().push_back(reduce);
    }
    // One barrier in the body itself (a tiled transpose: every thread
    // writes shared memory, then reads what others wrote) in a kernel
    // without block reductions.
    gpu::BarrierOp barrier;
    WalkResult unsupported = launch.getBody().walk([&](Operation *op) {
      if (auto b = dyn_cast<gpu::BarrierOp>(op);
          b && !barrier && stages.empty() && op->getBlock() == &body) {
        barrier = b;
        return WalkResult::advance();
      }
      if (isa<gpu::BarrierOp, gpu::ShuffleOp>(op) ||
          (isa<gpu::AllReduceOp>(op) && op->getBlock() != &body))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return launch.emitError()
             << "dist-gpu-launch-to-loops: barriers (but one in a kernel "
                "without block reductions), shuffles and nested block "
                "reductions are not emulated";

    Location loc = launch.getLoc();
    OpBuilder b(launch);
    auto c = [&](OpBuilder &ob, int64_t v) {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    // The block's shared memory: host buffers that each block's threads
    // fill before they read them (the barrier).
    SmallVector<Value> shared;
    for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(buffer.getType());
      shared.push_back(memref::AllocOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType())));
    }
    auto blockLoop = scf::ForOp::create(b, loc, c(b, 0), c(b, *grid), c(b, 1));
    OpBuilder lb = OpBuilder::atBlockBegin(blockLoop.getBody());
    lb.setInsertionPoint(blockLoop.getBody()->getTerminator());
    Value bid = blockLoop.getInductionVar();

    // Maps the launch's ids and sizes for thread `tid` of this block.
    auto idMapping = [&](OpBuilder &ob, Value tid) {
      IRMapping map;
      Value zero = c(ob, 0), one = c(ob, 1);
      gpu::KernelDim3 ids = launch.getBlockIds(), threads =
                                                    launch.getThreadIds();
      map.map(ids.x, bid);
      map.map(ids.y, zero);
      map.map(ids.z, zero);
      map.map(threads.x, tid);
      map.map(threads.y, zero);
      map.map(threads.z, zero);
      map.map(launch.getGridSize().x, c(ob, *grid));
      map.map(launch.getGridSize().y, one);
      map.map(launch.getGridSize().z, one);
      map.map(launch.getBlockSize().x, c(ob, *block));
      map.map(launch.getBlockSize().y, one);
      map.map(launch.getBlockSize().z, one);
      for (auto [buffer, host] :
           llvm::zip_equal(launch.getWorkgroupAttributions(), shared))
        map.map(buffer, host);
      return map;
    };
    // The block's totals of the stages folded so far.
    DenseMap<Operation *, Value> totals;
    // Clones the ops of the body before `end` for one thread; a block
    // reduction of an earlier stage is its total.
    auto cloneUntil = [&](OpBuilder &ob, IRMapping &map, Block::iterator end) {
      for (Operation &op : llvm::make_range(body.begin(), end)) {
        if (isa<gpu::TerminatorOp, gpu::BarrierOp>(op))
          continue;
        if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
          map.map(reduce.getResult(), totals.lookup(reduce));
          continue;
        }
        ob.clone(op, map);
      }
    };

    if (!stages.empty()) {
      // What comes before the last reductions runs again for every thread
      // at each stage (each thread's values are not kept): it must only
      // read.
      for (Operation &op : llvm::make_range(
               body.begin(), Block::iterator(stages.back().front()))) {
        auto effects = dyn_cast<MemoryEffectOpInterface>(&op);
        bool writes = effects
                          ? effects.hasEffect<MemoryEffects::Write>()
                          : !op.hasTrait<OpTrait::HasRecursiveMemoryEffects>();
        bool nestedWrites = false;
        op.walk([&](Operation *inner) {
          if (auto e = dyn_cast<MemoryEffectOpInterface>(inner))
            nestedWrites |= !isa<cf::AssertOp>(inner) &&
                            e.hasEffect<MemoryEffects::Write>();
        });
        if ((writes && !isa<cf::AssertOp, gpu::AllReduceOp>(op)) ||
            nestedWrites)
          return op.emitError() << "dist-gpu-launch-to-loops: a kernel that "
                                   "writes memory before a block reduction "
                                   "is not emulated";
      }
    }
    // Each stage folds every thread's contributions in thread order, from
    // thread 0's values, with the earlier stages' totals.
    for (MutableArrayRef<gpu::AllReduceOp> stage : stages) {
      Block::iterator end(stage.front());
      SmallVector<Value> first;
      {
        IRMapping map = idMapping(lb, c(lb, 0));
        cloneUntil(lb, map, end);
        for (gpu::AllReduceOp reduce : stage)
          first.push_back(map.lookup(reduce.getValue()));
      }
      auto threadLoop =
          scf::ForOp::create(lb, loc, c(lb, 1), c(lb, *block), c(lb, 1),
                             first);
      {
        OpBuilder tb = OpBuilder::atBlockBegin(threadLoop.getBody());
        IRMapping map = idMapping(tb, threadLoop.getInductionVar());
        cloneUntil(tb, map, end);
        SmallVector<Value> folded;
        for (auto [reduce, acc] :
             llvm::zip_equal(stage, threadLoop.getRegionIterArgs()))
          folded.push_back(combine(tb, loc, *reduce.getOp(), acc,
                                   map.lookup(reduce.getValue())));
        scf::YieldOp::create(tb, loc, folded);
      }
      for (auto [reduce, total] : llvm::zip_equal(stage, threadLoop.getResults()))
        totals[reduce] = total;
    }
    // Then every thread runs what precedes the last reductions, keeping
    // the values the rest uses, before any thread runs the rest: a thread's
    // writes after the reductions (a barrier) must not change what another
    // thread read before them.
    // (Or what precedes the barrier.)
    Block::iterator rest =
        barrier ? std::next(Block::iterator(barrier))
        : stages.empty() ? body.begin()
                         : std::next(Block::iterator(stages.back().back()));
    SmallVector<Value> kept;
    for (Operation &op : llvm::make_range(rest, body.end()))
      op.walk([&](Operation *user) {
        for (Value v : user->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (def && def->getBlock() == &body && !isa<gpu::AllReduceOp>(def) &&
              def->isBeforeInBlock(&*rest) && !llvm::is_contained(kept, v))
            kept.push_back(v);
        }
      });
    SmallVector<Value> slots;
    b.setInsertionPoint(blockLoop);
    for (Value v : kept)
      slots.push_back(memref::AllocOp::create(
          b, loc, MemRefType::get({*block}, v.getType())));
    if (!kept.empty() || barrier) {
      auto keepLoop = scf::ForOp::create(lb, loc, c(lb, 0), c(lb, *block),
                                         c(lb, 1));
      OpBuilder kb = OpBuilder::atBlockBegin(keepLoop.getBody());
      kb.setInsertionPoint(keepLoop.getBody()->getTerminator());
      IRMapping map = idMapping(kb, keepLoop.getInductionVar());
      cloneUntil(kb, map, rest);
      for (auto [v, slot] : llvm::zip_equal(kept, slots))
        memref::StoreOp::create(kb, loc, map.lookup(v), slot,
                                keepLoop.getInductionVar());
    }
    auto threadLoop = scf::ForOp::create(lb, loc, c(lb, 0), c(lb, *block),
                                         c(lb, 1));
    OpBuilder tb = OpBuilder::atBlockBegin(threadLoop.getBody());
    tb.setInsertionPoint(threadLoop.getBody()->getTerminator());
    IRMapping map = idMapping(tb, threadLoop.getInductionVar());
    if (kept.empty() && !barrier) {
      cloneUntil(tb, map, rest);
    } else {
      for (auto [v, slot] : llvm::zip_equal(kept, slots))
        map.map(v, memref::LoadOp::create(tb, loc, slot,
                                          threadLoop.getInductionVar()));
      // The reductions' totals, which the rest may use.
      for (Operation &op : llvm::make_range(body.begin(), rest))
        if (auto reduce = dyn_cast<gpu::AllReduceOp>(op))
          map.map(reduce.getResult(), totals.lookup(reduce));
    }
    for (Operation &op : llvm::make_range(rest, body.end()))
      if (!isa<gpu::TerminatorOp>(op))
        tb.clone(op, map);
    b.setInsertionPointAfter(blockLoop);
    for (Value slot : slots)
      memref::DeallocOp::create(b, loc, slot);
    for (Value host : shared)
      memref::DeallocOp::create(b, loc, host);
    launch.erase();
    return success();
  }
};

} // namespace
