//===- LinalgToGpu.cpp - Linalg ops on buffers to gpu.launch kernels ------===//
//
// One kernel per linalg op (dist-fuse-elementwise already fused chains into
// single generics). The kernel shapes are described in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Cuda/Passes.h"

#include "passes/Cuda/Combiners.h"
#include "passes/Cuda/Launches.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "dist-linalg-to-gpu"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTLINALGTOGPU
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

using dist::Combiner;

/// Emits kernels for one generic at a time.
class KernelBuilder {
public:
  KernelBuilder(linalg::GenericOp op, int64_t blockSize, unsigned index)
      : op(op), loc(op.getLoc()), blockSize(blockSize), index(index) {}

  /// One thread per point of the iteration space (no reduction dims), or
  /// per point of the parallel dims running the reduction loops in order.
  void buildPointwise(OpBuilder &b, ArrayRef<int64_t> ranges,
                      ArrayRef<unsigned> parallel,
                      ArrayRef<unsigned> reduction) {
    SmallVector<int64_t> outer;
    for (unsigned d : parallel)
      outer.push_back(ranges[d]);
    auto [launch, kb, linear] = pointLaunch(b, computeProduct(outer));
    SmallVector<Value> ivs(ranges.size());
    for (auto [d, coord] :
         llvm::zip_equal(parallel, dist::delinearize(kb, loc, linear, outer)))
      ivs[d] = coord;
    // The reduction loops, nested in dimension order (the CPU's order).
    for (unsigned d : reduction) {
      auto loop = scf::ForOp::create(
          kb, loc, arith::ConstantIndexOp::create(kb, loc, 0),
          arith::ConstantIndexOp::create(kb, loc, ranges[d]),
          arith::ConstantIndexOp::create(kb, loc, 1));
      ivs[d] = loop.getInductionVar();
      kb.setInsertionPoint(loop.getBody()->getTerminator());
    }
    IRMapping map;
    mapBlockArguments(kb, ivs, map, /*loadOutputs=*/true);
    SmallVector<Value> results = cloneBody(kb, ivs, map, {});
    storeOutputs(kb, ivs, results);
  }

  /// Whether each thread can handle `lanes` consecutive points of the
  /// innermost loop dimension, some operand then read or written with one
  /// aligned vector access.
  bool canVectorize(ArrayRef<int64_t> ranges, int64_t lanes) {
    if (ranges.empty() || ranges.back() % lanes != 0 ||
        computeProduct(ranges) < lanes * 32)
      return false;
    for (OpOperand &operand : op->getOpOperands())
      if (isVectorAccess(&operand, lanes))
        return true;
    return false;
  }

  /// Elementwise, `lanes` consecutive innermost points per thread: operands
  /// indexed by the innermost loop dimension itself, unit stride and
  /// 16-byte alignment are moved with one vector load or store; operands
  /// that do not depend on it are read once; others point by point.
  void buildVectorized(OpBuilder &b, ArrayRef<int64_t> ranges,
                       int64_t lanes) {
    unsigned last = ranges.size() - 1;
    SmallVector<int64_t> outer(ranges);
    outer.back() /= lanes;
    auto [launch, kb, linear] = pointLaunch(b, computeProduct(outer));
    SmallVector<Value> base = dist::delinearize(kb, loc, linear, outer);
    base[last] = arith::MulIOp::create(
        kb, loc, base[last], arith::ConstantIndexOp::create(kb, loc, lanes));
    SmallVector<SmallVector<Value>> laneIvs(lanes, base);
    for (int64_t l = 1; l < lanes; ++l)
      laneIvs[l][last] = arith::AddIOp::create(
          kb, loc, base[last], arith::ConstantIndexOp::create(kb, loc, l));
    llvm::MaybeAlign align(lanes * 4);
    // Each block argument's value in each lane.
    SmallVector<IRMapping> maps(lanes);
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      SmallVector<Value> values;
      if (isVectorAccess(&operand, lanes)) {
        auto type = VectorType::get({lanes}, arg.getType());
        Value vector = vector::LoadOp::create(
            kb, loc, type, operand.get(), indices(kb, &operand, base),
            /*nontemporal=*/false, align);
        for (int64_t l = 0; l < lanes; ++l)
          values.push_back(vector::ExtractOp::create(kb, loc, vector, l));
      } else if (!usesDim(&operand, last)) {
        values.assign(lanes, load(kb, &operand, base));
      } else {
        for (int64_t l = 0; l < lanes; ++l)
          values.push_back(load(kb, &operand, laneIvs[l]));
      }
      for (int64_t l = 0; l < lanes; ++l)
        maps[l].map(arg, values[l]);
    }
    SmallVector<SmallVector<Value>> results;
    for (int64_t l = 0; l < lanes; ++l)
      results.push_back(cloneBody(kb, laneIvs[l], maps[l], {}));
    for (auto [index, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      if (isVectorAccess(&init, lanes)) {
        SmallVector<Value> elements;
        for (int64_t l = 0; l < lanes; ++l)
          elements.push_back(results[l][index]);
        auto type = VectorType::get({lanes}, elements.front().getType());
        Value vector =
            vector::FromElementsOp::create(kb, loc, type, elements);
        vector::StoreOp::create(kb, loc, vector, init.get(),
                                indices(kb, &init, base),
                                /*nontemporal=*/false, align);
        continue;
      }
      for (int64_t l = 0; l < lanes; ++l)
        memref::StoreOp::create(kb, loc, results[l][index], init.get(),
                                indices(kb, &init, laneIvs[l]));
    }
  }

  /// One block per point of the parallel dims; its threads fold strided
  /// slices of the reduction space, gpu.all_reduce combines them. With
  /// `splits` > 1, each point's reduction space is cut into `splits`
  /// contiguous chunks, one block each, whose totals go to a temporary
  /// buffer that a second kernel (one block per point) folds the same way
  /// (strided threads, then a block reduction; a fixed order): few outputs
  /// (a gradient's norm) still fill the GPU.
  void buildRowReduction(OpBuilder &b, ArrayRef<int64_t> ranges,
                         ArrayRef<unsigned> parallel,
                         ArrayRef<unsigned> reduction,
                         ArrayRef<Combiner> combiners, int64_t splits) {
    SmallVector<unsigned> reductionOrder = inMemoryOrder(reduction);
    reduction = reductionOrder;
    SmallVector<int64_t> outer, inner;
    for (unsigned d : parallel)
      outer.push_back(ranges[d]);
    for (unsigned d : reduction)
      inner.push_back(ranges[d]);
    int64_t points = computeProduct(outer), length = computeProduct(inner);
    int64_t threads = threadsFor(length);
    int64_t chunk = (length + splits - 1) / splits;
    splits = (length + chunk - 1) / chunk; // every chunk non-empty

    gpu::LaunchOp launch =
        dist::createLaunch(b, loc, points * splits, threads);
    dist::nameKernel(launch, op, index);
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value blockId = launch.getBlockIds().x, threadId = launch.getThreadIds().x;
    Value point = blockId, begin = threadId;
    Value end = arith::ConstantIndexOp::create(kb, loc, length);
    if (splits > 1) {
      Value s = arith::ConstantIndexOp::create(kb, loc, splits);
      Value c = arith::ConstantIndexOp::create(kb, loc, chunk);
      point = arith::DivUIOp::create(kb, loc, blockId, s);
      Value start = arith::MulIOp::create(
          kb, loc, arith::RemUIOp::create(kb, loc, blockId, s), c);
      begin = arith::AddIOp::create(kb, loc, start, threadId);
      end = arith::MinUIOp::create(
          kb, loc, arith::AddIOp::create(kb, loc, start, c), end);
    }
    SmallVector<Value> ivs(ranges.size());
    for (auto [d, coord] : llvm::zip_equal(
             parallel, dist::delinearize(kb, loc, point, outer)))
      ivs[d] = coord;
    SmallVector<Value> identities;
    for (const Combiner &c : combiners)
      identities.push_back(arith::ConstantOp::create(kb, loc, c.identity));
    auto loop = scf::ForOp::create(
        kb, loc, begin, end, arith::ConstantIndexOp::create(kb, loc, threads),
        identities);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      for (auto [d, coord] : llvm::zip_equal(
               reduction,
               dist::delinearize(lb, loc, loop.getInductionVar(), inner)))
        ivs[d] = coord;
      IRMapping map;
      mapBlockArguments(lb, ivs, map, /*loadOutputs=*/false);
      // Each combiner folds into its partial (the loop's carried value)
      // where the body folded into the output.
      for (auto [c, init, partial] :
           llvm::zip_equal(combiners, op.getDpsInitsMutable(),
                           loop.getRegionIterArgs()))
        map.map(op.getMatchingBlockArgument(&init), partial);
      SmallVector<Value> folded = cloneBody(lb, ivs, map, {});
      scf::YieldOp::create(lb, loc, folded);
    }
    SmallVector<Value> totals =
        blockTotals(kb, threadId, loop.getResults(), combiners);
    if (splits == 1) {
      foldIntoOutputs(kb, ivs, reduction, combiners, totals);
      return;
    }

    // Each chunk's totals, at [point * splits + chunk] of a temporary.
    SmallVector<Value> partials =
        allocPartials(launch, points * splits);
    for (auto [partial, total] : llvm::zip_equal(partials, totals))
      memref::StoreOp::create(kb, loc, total, partial, blockId);

    // The second kernel: block `point` folds its chunks' totals.
    b.setInsertionPointAfter(launch);
    int64_t foldThreads = threadsFor(splits);
    gpu::LaunchOp fold = dist::createLaunch(b, loc, points, foldThreads);
    dist::nameKernel(fold, op, index, "_total");
    OpBuilder fb = OpBuilder::atBlockBegin(&fold.getBody().front());
    point = fold.getBlockIds().x;
    threadId = fold.getThreadIds().x;
    for (auto [d, coord] : llvm::zip_equal(
             parallel, dist::delinearize(fb, loc, point, outer)))
      ivs[d] = coord;
    identities.clear();
    for (const Combiner &c : combiners)
      identities.push_back(arith::ConstantOp::create(fb, loc, c.identity));
    Value first = arith::MulIOp::create(
        fb, loc, point, arith::ConstantIndexOp::create(fb, loc, splits));
    auto foldLoop = scf::ForOp::create(
        fb, loc, arith::AddIOp::create(fb, loc, first, threadId),
        arith::AddIOp::create(
            fb, loc, first, arith::ConstantIndexOp::create(fb, loc, splits)),
        arith::ConstantIndexOp::create(fb, loc, foldThreads), identities);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(foldLoop.getBody());
      SmallVector<Value> folded;
      for (auto [c, partial, acc] : llvm::zip_equal(
               combiners, partials, foldLoop.getRegionIterArgs())) {
        Value x = memref::LoadOp::create(lb, loc, partial,
                                         foldLoop.getInductionVar());
        folded.push_back(dist::combine(lb, op, c, acc, x));
      }
      scf::YieldOp::create(lb, loc, folded);
    }
    totals = blockTotals(fb, threadId, foldLoop.getResults(), combiners);
    foldIntoOutputs(fb, ivs, reduction, combiners, totals);
    b.setInsertionPointAfter(fold);
    for (Value partial : partials)
      memref::DeallocOp::create(b, loc, partial);
  }

  /// Elementwise ops that read some input transposed (its elements
  /// consecutive along loop dimension `t`, the outputs' along another one,
  /// `l`: attention's key transposed for its product, a weight cast to
  /// bf16 and transposed): one block per 32 x 32 tile of (t, l) (and point
  /// of the other dimensions), 256 threads as 8 rows of 32. Each thread
  /// first copies 4 elements of each `tiled` input into the block's shared
  /// memory, consecutive threads on consecutive `t` (the input's order);
  /// after a barrier, it computes 4 points, consecutive threads on
  /// consecutive `l` (the outputs' order), reading the tiled inputs from
  /// shared memory. Each tile row has 33 slots so that the column reads
  /// hit 32 different banks. Both the reads and the writes of a warp are
  /// then 32 consecutive elements, where one thread per point read the
  /// transposed input one element per 32-byte sector.
  void buildTransposed(OpBuilder &b, ArrayRef<int64_t> ranges,
                       std::pair<unsigned, unsigned> tl,
                       ArrayRef<OpOperand *> tiled) {
    constexpr int64_t tile = 32, rows = 8;
    auto [t, last] = tl;
    SmallVector<unsigned> others;
    SmallVector<int64_t> grid;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (d != t && d != last) {
        others.push_back(d);
        grid.push_back(ranges[d]);
      }
    grid.push_back((ranges[t] + tile - 1) / tile);
    grid.push_back((ranges[last] + tile - 1) / tile);
    MLIRContext *ctx = op.getContext();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    SmallVector<Type> tiles;
    for (OpOperand *input : tiled)
      tiles.push_back(MemRefType::get(
          {tile, tile + 1}, getElementTypeOrSelf(input->get().getType()),
          MemRefLayoutAttrInterface(), shared));
    gpu::LaunchOp launch =
        dist::createLaunch(b, loc, computeProduct(grid), tile * rows, tiles);
    dist::nameKernel(launch, op, index);
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    SmallVector<Value> coords =
        dist::delinearize(kb, loc, launch.getBlockIds().x, grid);
    Value t0 = arith::MulIOp::create(kb, loc, coords[others.size()],
                                     c(kb, tile));
    Value l0 = arith::MulIOp::create(kb, loc, coords[others.size() + 1],
                                     c(kb, tile));
    Value tid = launch.getThreadIds().x;
    Value tx = arith::RemUIOp::create(kb, loc, tid, c(kb, tile));
    Value ty = arith::DivUIOp::create(kb, loc, tid, c(kb, tile));
    SmallVector<Value> ivs(ranges.size());
    for (auto [d, coord] : llvm::zip(others, coords))
      ivs[d] = coord;
    ArrayRef<BlockArgument> buffers = launch.getWorkgroupAttributions();

    // Runs `body` with the point (t0 + tOffset, l0 + lOffset) in `ivs` and
    // a builder inside its bounds check (a tile may overhang the sizes).
    auto atPoint = [&](Value tOffset, Value lOffset,
                       function_ref<void(OpBuilder &)> body) {
      ivs[t] = arith::AddIOp::create(kb, loc, t0, tOffset);
      ivs[last] = arith::AddIOp::create(kb, loc, l0, lOffset);
      Value inside;
      for (unsigned d : {t, last}) {
        if (ranges[d] % tile == 0)
          continue;
        Value in = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                         ivs[d], c(kb, ranges[d]));
        inside = inside ? arith::AndIOp::create(kb, loc, inside, in) : in;
      }
      if (!inside) {
        body(kb);
        return;
      }
      auto guard = scf::IfOp::create(kb, loc, inside, /*withElse=*/false);
      OpBuilder gb = OpBuilder::atBlockBegin(&guard.getThenRegion().front());
      gb.setInsertionPoint(guard.getThenRegion().front().getTerminator());
      body(gb);
    };
    // The tiled inputs into shared memory: tile[l - l0][t - t0].
    for (int64_t k = 0; k < tile / rows; ++k) {
      Value row = arith::AddIOp::create(kb, loc, ty, c(kb, k * rows));
      atPoint(tx, row, [&](OpBuilder &gb) {
        for (auto [input, buffer] : llvm::zip_equal(tiled, buffers))
          memref::StoreOp::create(gb, loc, load(gb, input, ivs), buffer,
                                  ValueRange{row, tx});
      });
    }
    gpu::BarrierOp::create(kb, loc);
    // The points, consecutive threads along l.
    for (int64_t k = 0; k < tile / rows; ++k) {
      Value row = arith::AddIOp::create(kb, loc, ty, c(kb, k * rows));
      atPoint(row, tx, [&](OpBuilder &gb) {
        IRMapping map;
        for (OpOperand *input : op.getDpsInputOperands()) {
          BlockArgument arg = op.getMatchingBlockArgument(input);
          if (arg.use_empty())
            continue;
          auto it = llvm::find(tiled, input);
          map.map(arg, it == tiled.end()
                           ? load(gb, input, ivs)
                           : memref::LoadOp::create(
                                 gb, loc, buffers[it - tiled.begin()],
                                 ValueRange{tx, row})
                                 .getResult());
        }
        for (OpOperand &init : op.getDpsInitsMutable()) {
          BlockArgument arg = op.getMatchingBlockArgument(&init);
          if (!arg.use_empty())
            map.map(arg, load(gb, &init, ivs));
        }
        storeOutputs(gb, ivs, cloneBody(gb, ivs, map, {}));
      });
    }
  }

  /// The loop dimensions (t, l) of an elementwise op that reads some input
  /// transposed (buildTransposed), and those inputs in `tiled`: the
  /// outputs are written with unit stride along `l`, and the largest input
  /// that depends on `l` lies in memory with unit stride along another
  /// dimension `t`; both at least 32 points.
  std::optional<std::pair<unsigned, unsigned>>
  transposedDims(ArrayRef<int64_t> ranges, SmallVector<OpOperand *> &tiled) {
    if (ranges.size() < 2 || op.getNumDpsInits() == 0)
      return std::nullopt;
    auto outer = dyn_cast<AffineDimExpr>(
        op.getMatchingIndexingMap(&op.getDpsInitsMutable()[0])
            .getResults()
            .back());
    if (!outer)
      return std::nullopt;
    unsigned last = outer.getPosition();
    if (ranges[last] < 32)
      return std::nullopt;
    for (OpOperand &init : op.getDpsInitsMutable())
      if (!isUnitStrideAlong(&init, last))
        return std::nullopt;
    // The dimension along which `input` is contiguous, if not `last`.
    auto alongOther = [&](OpOperand *input) -> std::optional<unsigned> {
      if (op.getMatchingBlockArgument(input).use_empty() ||
          !usesDim(input, last))
        return std::nullopt;
      auto type = dyn_cast<MemRefType>(input->get().getType());
      if (!type || type.getRank() == 0)
        return std::nullopt;
      auto inner = dyn_cast<AffineDimExpr>(
          op.getMatchingIndexingMap(input).getResults().back());
      if (!inner || inner.getPosition() == last ||
          ranges[inner.getPosition()] < 32 ||
          !isUnitStrideAlong(input, inner.getPosition()))
        return std::nullopt;
      return inner.getPosition();
    };
    std::optional<unsigned> t;
    int64_t largest = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::optional<unsigned> d = alongOther(input);
      auto type = cast<MemRefType>(input->get().getType());
      if (!d || !type.hasStaticShape())
        continue;
      int64_t bytes = type.getNumElements() *
                      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      if (bytes > largest) {
        largest = bytes;
        t = d;
      }
    }
    if (!t)
      return std::nullopt;
    for (OpOperand *input : op.getDpsInputOperands())
      if (alongOther(input) == t)
        tiled.push_back(input);
    // Shared memory: 32 x 33 elements a tiled input, well under 48 KiB.
    if (tiled.size() > 8)
      return std::nullopt;
    return std::make_pair(*t, last);
  }

  /// Reductions whose innermost loop dimension is an output dimension (a
  /// bias's or layer norm's weight gradient: a sum over rows of each
  /// column): one thread per output point, consecutive threads on
  /// consecutive points, so a warp reads consecutive elements of a row
  /// where one block per point would read 32 rows of one column. Each
  /// point's reduction is cut into `splits` contiguous chunks, one thread
  /// each, folded in order; a second kernel (`..._total`, one thread per
  /// point) folds each point's chunk totals in chunk order into the
  /// output. Unsplit, a thread folds straight into the output value in the
  /// CPU's order.
  void buildColumnReduction(OpBuilder &b, ArrayRef<int64_t> ranges,
                            ArrayRef<unsigned> parallel,
                            ArrayRef<unsigned> reduction,
                            ArrayRef<Combiner> combiners, int64_t splits) {
    SmallVector<int64_t> outer, inner;
    for (unsigned d : parallel)
      outer.push_back(ranges[d]);
    for (unsigned d : reduction)
      inner.push_back(ranges[d]);
    int64_t points = computeProduct(outer), length = computeProduct(inner);
    int64_t chunk = (length + splits - 1) / splits;
    splits = (length + chunk - 1) / chunk; // every chunk non-empty

    auto [launch, kb, id] = pointLaunch(b, points * splits);
    Value point = id, begin = arith::ConstantIndexOp::create(kb, loc, 0);
    Value end = arith::ConstantIndexOp::create(kb, loc, length);
    if (splits > 1) {
      Value p = arith::ConstantIndexOp::create(kb, loc, points);
      Value c = arith::ConstantIndexOp::create(kb, loc, chunk);
      point = arith::RemUIOp::create(kb, loc, id, p);
      begin = arith::MulIOp::create(
          kb, loc, arith::DivUIOp::create(kb, loc, id, p), c);
      end = arith::MinUIOp::create(
          kb, loc, arith::AddIOp::create(kb, loc, begin, c), end);
    }
    SmallVector<Value> ivs(ranges.size());
    for (auto [d, coord] : llvm::zip_equal(
             parallel, dist::delinearize(kb, loc, point, outer)))
      ivs[d] = coord;
    Value zero = arith::ConstantIndexOp::create(kb, loc, 0);
    SmallVector<Value> outputIvs(ivs);
    for (unsigned d : reduction)
      outputIvs[d] = zero;
    SmallVector<Value> starts;
    if (splits == 1) {
      for (OpOperand &init : op.getDpsInitsMutable())
        starts.push_back(load(kb, &init, outputIvs));
    } else {
      for (const Combiner &c : combiners)
        starts.push_back(arith::ConstantOp::create(kb, loc, c.identity));
    }
    auto loop = scf::ForOp::create(
        kb, loc, begin, end, arith::ConstantIndexOp::create(kb, loc, 1),
        starts);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      for (auto [d, coord] : llvm::zip_equal(
               reduction,
               dist::delinearize(lb, loc, loop.getInductionVar(), inner)))
        ivs[d] = coord;
      IRMapping map;
      mapBlockArguments(lb, ivs, map, /*loadOutputs=*/false);
      for (auto [init, partial] :
           llvm::zip_equal(op.getDpsInitsMutable(), loop.getRegionIterArgs()))
        map.map(op.getMatchingBlockArgument(&init), partial);
      SmallVector<Value> folded = cloneBody(lb, ivs, map, {});
      for (Value v : folded)
        keepOrder(v);
      scf::YieldOp::create(lb, loc, folded);
    }
    if (splits == 1) {
      storeOutputs(kb, outputIvs, llvm::to_vector_of<Value>(loop.getResults()));
      return;
    }

    // Each chunk's totals, at [chunk * points + point] of a temporary.
    SmallVector<Value> partials =
        allocPartials(launch, points * splits);
    for (auto [partial, total] :
         llvm::zip_equal(partials, loop.getResults()))
      memref::StoreOp::create(kb, loc, total, partial, id);

    // The second kernel: thread `point` folds its chunks' totals in order.
    b.setInsertionPointAfter(launch);
    dist::PointLaunch fold = dist::createPointLaunch(
        b, loc, points, dist::threadsPerBlock(points, blockSize));
    dist::nameKernel(fold.launch, op, index, "_total");
    OpBuilder &fb = fold.body;
    for (auto [d, coord] : llvm::zip_equal(
             parallel, dist::delinearize(fb, loc, fold.id, outer)))
      outputIvs[d] = coord;
    for (unsigned d : reduction)
      outputIvs[d] = arith::ConstantIndexOp::create(fb, loc, 0);
    SmallVector<Value> accs;
    for (OpOperand &init : op.getDpsInitsMutable())
      accs.push_back(load(fb, &init, outputIvs));
    auto foldLoop = scf::ForOp::create(
        fb, loc, arith::ConstantIndexOp::create(fb, loc, 0),
        arith::ConstantIndexOp::create(fb, loc, splits),
        arith::ConstantIndexOp::create(fb, loc, 1), accs);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(foldLoop.getBody());
      Value at = arith::AddIOp::create(
          lb, loc,
          arith::MulIOp::create(
              lb, loc, foldLoop.getInductionVar(),
              arith::ConstantIndexOp::create(lb, loc, points)),
          fold.id);
      SmallVector<Value> folded;
      for (auto [c, partial, acc] : llvm::zip_equal(
               combiners, partials, foldLoop.getRegionIterArgs())) {
        Value x = memref::LoadOp::create(lb, loc, partial, at);
        folded.push_back(dist::combine(lb, op, c, acc, x));
        keepOrder(folded.back());
      }
      scf::YieldOp::create(lb, loc, folded);
    }
    storeOutputs(fb, outputIvs, llvm::to_vector_of<Value>(foldLoop.getResults()));
    b.setInsertionPointAfter(fold.launch);
    for (Value partial : partials)
      memref::DeallocOp::create(b, loc, partial);
  }

  /// One 1-d buffer of `size` elements per output of the op, of the
  /// output's element type, allocated before `launch`: the chunks' totals
  /// of a split reduction.
  SmallVector<Value> allocPartials(Operation *launch, int64_t size) {
    SmallVector<Value> partials;
    OpBuilder ab(launch);
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto type = MemRefType::get({size},
                                  getElementTypeOrSelf(init.get().getType()));
      partials.push_back(memref::AllocOp::create(ab, loc, type));
    }
    return partials;
  }

  /// Drops `reassoc` from the op defining `folded` (a combiner in a
  /// thread's loop): the loop folds in its order, whatever the body around
  /// it lets LLVM vectorize or reassociate, so recomputing an input in the
  /// body (dist-fuse-elementwise's recompute-narrow) keeps the same bits.
  static void keepOrder(Value folded) {
    auto fm = dyn_cast_or_null<arith::ArithFastMathInterface>(
        folded.getDefiningOp());
    if (!fm)
      return;
    arith::FastMathFlags flags = fm.getFastMathFlagsAttr().getValue();
    if (!bitEnumContainsAll(flags, arith::FastMathFlags::reassoc))
      return;
    folded.getDefiningOp()->setAttr(
        fm.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(folded.getContext(),
                                      flags & ~arith::FastMathFlags::reassoc));
  }

  /// Whether a column reduction (buildColumnReduction) suits the op: the
  /// innermost loop dimension is a parallel one, along which every output
  /// is written with unit stride, and there are at least `minPoints`
  /// output points. (Only the iteration space and the outputs decide, not
  /// which inputs the body reads: recomputing an input in the body,
  /// dist-fuse-elementwise's recompute-narrow, keeps the same kernel shape
  /// and the same order of the sums.)
  bool isColumnReduction(ArrayRef<int64_t> ranges,
                         ArrayRef<unsigned> parallel, int64_t minPoints) {
    unsigned last = ranges.size() - 1;
    if (parallel.empty() || parallel.back() != last)
      return false;
    int64_t points = 1;
    for (unsigned d : parallel)
      points *= ranges[d];
    if (points < minPoints)
      return false;
    return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
      return isUnitStrideAlong(&init, last);
    });
  }

  /// How many chunks each point of a column reduction is cut into: as many
  /// as keep the threads to `targetThreads` at most, each folding at least 16
  /// values (as a row reduction's threads); at most 256, which keeps the
  /// second kernel's threads to 256 chunk totals each.
  int64_t columnSplitsFor(int64_t points, int64_t length,
                          int64_t targetThreads) const {
    if (targetThreads <= 0)
      return 1;
    int64_t splits = std::min<int64_t>(
        {targetThreads / points, length / 16, 256});
    return splits >= 2 ? splits : 1;
  }

  /// The loop dimensions `dims` in the order the largest input's elements
  /// lie in memory (largest stride first), so that threads striding over
  /// their linearized space read consecutive elements: a squared norm of a
  /// gradient the loops see transposed reads it row by row. Dimensions the
  /// input does not index, or a buffer without static strides, keep their
  /// order.
  SmallVector<unsigned> inMemoryOrder(ArrayRef<unsigned> dims) {
    OpOperand *largest = nullptr;
    int64_t largestSize = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(input->get().getType());
      if (!type || !type.hasStaticShape())
        continue;
      int64_t size = type.getNumElements() *
                     std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      if (size > largestSize) {
        largest = input;
        largestSize = size;
      }
    }
    SmallVector<unsigned> order(dims);
    if (!largest)
      return order;
    auto type = cast<MemRefType>(largest->get().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return order;
    AffineMap map = op.getMatchingIndexingMap(largest);
    // Each dimension's stride in the input: the stride of the result that
    // is that dimension alone (none: keep it outermost, in order).
    auto strideOf = [&](unsigned d) -> int64_t {
      for (auto [r, e] : llvm::enumerate(map.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
          return strides[r];
      return std::numeric_limits<int64_t>::max();
    };
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return strideOf(a) > strideOf(b);
    });
    return order;
  }

  /// Threads of a block folding `length` points: whole warps, a power of 2,
  /// at most the block size.
  int64_t threadsFor(int64_t length) const {
    return dist::reductionThreads(length, blockSize);
  }

  /// How many blocks each output point's reduction of `length` values is
  /// split over: enough that about `targetBlocks` blocks run, each thread
  /// folding at least 16 values; 1 when that is fewer than 4.
  int64_t splitsFor(int64_t points, int64_t length,
                    int64_t targetBlocks) const {
    if (targetBlocks <= 0)
      return 1;
    int64_t splits = std::min<int64_t>(
        {(targetBlocks + points - 1) / points,
         length / (threadsFor(length) * 16), 1024});
    return splits >= 4 ? splits : 1;
  }

private:
  /// The block-wide totals of each thread's `partials`.
  SmallVector<Value> blockTotals(OpBuilder &b, Value threadId,
                                 ValueRange partials,
                                 ArrayRef<Combiner> combiners) {
    SmallVector<Value> totals;
    for (auto [c, partial] : llvm::zip_equal(combiners, partials))
      totals.push_back(gpu::AllReduceOp::create(
          b, loc, partial,
          gpu::AllReduceOperationAttr::get(b.getContext(), c.kind),
          /*uniform=*/true));
    // Whatever follows runs on thread 0 only.
    Value isFirst = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, threadId,
        arith::ConstantIndexOp::create(b, loc, 0));
    auto guard = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    return totals;
  }

  /// Folds the block's `totals` into the outputs at the point `ivs`.
  void foldIntoOutputs(OpBuilder &b, SmallVector<Value> &ivs,
                       ArrayRef<unsigned> reduction,
                       ArrayRef<Combiner> combiners, ArrayRef<Value> totals) {
    // Outputs do not depend on the reduction dims (whose coordinates live
    // in the loop): index them with zeros there.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (unsigned d : reduction)
      ivs[d] = zero;
    SmallVector<Value> results;
    for (auto [c, init, total] :
         llvm::zip_equal(combiners, op.getDpsInitsMutable(), totals))
      results.push_back(dist::combine(b, op, c, load(b, &init, ivs), total));
    storeOutputs(b, ivs, results);
  }

  /// One thread per point, the kernel named after the op.
  dist::PointLaunch pointLaunch(OpBuilder &b, int64_t points) {
    dist::PointLaunch launch = dist::createPointLaunch(
        b, loc, points, dist::threadsPerBlock(points, blockSize));
    dist::nameKernel(launch.launch, op, index);
    return launch;
  }

  /// Whether `operand` is a 32-bit buffer whose innermost index is the
  /// innermost loop dimension itself (and no other index uses it), with
  /// unit innermost stride and an offset and outer strides that keep
  /// `lanes` consecutive elements 16-byte aligned (buffers are at least
  /// 64-byte aligned).
  bool isVectorAccess(OpOperand *operand, int64_t lanes) {
    auto type = dyn_cast<MemRefType>(operand->get().getType());
    if (!type || type.getRank() == 0 || type.getElementTypeBitWidth() != 32)
      return false;
    AffineMap map = op.getMatchingIndexingMap(operand);
    unsigned last = map.getNumDims() - 1;
    auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!inner || inner.getPosition() != last)
      return false;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(last))
        return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 || ShapedType::isDynamic(offset) ||
        offset % lanes != 0)
      return false;
    for (int64_t stride : ArrayRef(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride % lanes != 0)
        return false;
    return true;
  }

  /// Whether `operand` is a buffer whose innermost index is loop dimension
  /// `dim` alone, with unit innermost stride (consecutive points of `dim`
  /// are consecutive elements).
  bool isUnitStrideAlong(OpOperand *operand, unsigned dim) {
    auto type = dyn_cast<MemRefType>(operand->get().getType());
    if (!type || type.getRank() == 0)
      return false;
    AffineMap map = op.getMatchingIndexingMap(operand);
    auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!inner || inner.getPosition() != dim)
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           strides.back() == 1;
  }

  bool usesDim(OpOperand *operand, unsigned dim) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    return llvm::any_of(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(dim);
    });
  }

  /// The element of `operand` at the loop coordinates `ivs`.
  Value load(OpBuilder &b, OpOperand *operand, ArrayRef<Value> ivs) {
    Value buffer = operand->get();
    if (!isa<MemRefType>(buffer.getType()))
      return buffer; // a scalar operand
    return memref::LoadOp::create(b, loc, buffer, indices(b, operand, ivs));
  }

  SmallVector<Value> indices(OpBuilder &b, OpOperand *operand,
                             ArrayRef<Value> ivs) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<Value> result;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      result.push_back(affine::AffineApplyOp::create(
          b, loc, map.getSubMap({i}), ivs));
    return result;
  }

  void mapBlockArguments(OpBuilder &b, ArrayRef<Value> ivs, IRMapping &map,
                         bool loadOutputs) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (!arg.use_empty())
        map.map(arg, load(b, input, ivs));
    }
    if (!loadOutputs)
      return;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      BlockArgument arg = op.getMatchingBlockArgument(&init);
      if (!arg.use_empty())
        map.map(arg, load(b, &init, ivs));
    }
  }

  /// Clones the generic's body (but its terminator) with `map`, and returns
  /// the yielded values. linalg.index becomes the loop coordinate.
  SmallVector<Value> cloneBody(OpBuilder &b, ArrayRef<Value> ivs,
                               IRMapping &map, ArrayRef<Operation *> skip) {
    Block &body = op.getRegion().front();
    for (Operation &inner : body.without_terminator()) {
      if (llvm::is_contained(skip, &inner))
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      b.clone(inner, map);
    }
    SmallVector<Value> results;
    for (Value v : body.getTerminator()->getOperands())
      results.push_back(map.lookupOrDefault(v));
    return results;
  }

  void storeOutputs(OpBuilder &b, ArrayRef<Value> ivs,
                    ArrayRef<Value> results) {
    for (auto [init, value] : llvm::zip_equal(op.getDpsInitsMutable(),
                                              results))
      memref::StoreOp::create(b, loc, value, init.get(),
                              indices(b, &init, ivs));
  }

  linalg::GenericOp op;
  Location loc;
  int64_t blockSize;
  unsigned index; // the kernel's number in its function
};

struct DistLinalgToGpuPass
    : dist::impl::DistLinalgToGpuBase<DistLinalgToGpuPass> {
  using DistLinalgToGpuBase::DistLinalgToGpuBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    kernelCount = 0; // names must not depend on which functions ran before
    if (failed(dist::checkBlockSize(func, "dist-linalg-to-gpu", blockSize)))
      return signalPassFailure();
    if (splitBlocks < 0 || splitBlocks > (int64_t{1} << 20)) {
      func.emitError() << "dist-linalg-to-gpu: split-blocks "
                       << static_cast<int64_t>(splitBlocks)
                       << " is not from 0 to 2^20";
      return signalPassFailure();
    }
    if (vectorWidth != 1 && vectorWidth != 2 && vectorWidth != 4) {
      func.emitError() << "dist-linalg-to-gpu: vector-width "
                       << static_cast<int64_t>(vectorWidth)
                       << " is not 1, 2 or 4";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp named : ops) {
      if (!named.hasPureBufferSemantics()) {
        named.emitError() << "dist-linalg-to-gpu runs on buffers: bufferize "
                             "the step first";
        return signalPassFailure();
      }
      linalg::GenericOp op = dyn_cast<linalg::GenericOp>(*named);
      if (!op) {
        rewriter.setInsertionPoint(named);
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, named);
        if (failed(generic)) {
          named.emitError() << "dist-linalg-to-gpu: no kernel for "
                            << named->getName()
                            << " (it has no generic form)";
          return signalPassFailure();
        }
        op = *generic;
      }
      if (failed(convert(op)))
        return signalPassFailure();
    }
  }

  unsigned kernelCount = 0;

  LogicalResult convert(linalg::GenericOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return op.emitError() << "dist-linalg-to-gpu: dynamic sizes are not "
                               "supported (give the model static shapes)";
    OpBuilder b(op);
    if (llvm::is_contained(ranges, 0)) {
      op.erase();
      return success();
    }
    SmallVector<unsigned> parallel, reduction;
    for (auto [d, kind] : llvm::enumerate(op.getIteratorTypesArray()))
      (kind == utils::IteratorType::parallel ? parallel : reduction)
          .push_back(d);
    KernelBuilder kernels(op, blockSize, kernelCount++);
    int64_t length = 1;
    for (unsigned d : reduction)
      length *= ranges[d];
    std::optional<SmallVector<Combiner>> combiners;
    if (!reduction.empty() && length >= serialBelow)
      combiners = dist::matchCombiners(op);
    int64_t points = computeProduct(ranges) / length;
    SmallVector<OpOperand *> tiled;
    std::optional<std::pair<unsigned, unsigned>> transposed;
    if (reduction.empty() && transposeTiles)
      transposed = kernels.transposedDims(ranges, tiled);
    if (combiners && kernels.isColumnReduction(ranges, parallel, 64))
      kernels.buildColumnReduction(
          b, ranges, parallel, reduction, *combiners,
          kernels.columnSplitsFor(points, length, splitBlocks * blockSize));
    else if (combiners)
      kernels.buildRowReduction(
          b, ranges, parallel, reduction, *combiners,
          kernels.splitsFor(points, length, splitBlocks));
    else if (transposed)
      kernels.buildTransposed(b, ranges, *transposed, tiled);
    else if (reduction.empty() && vectorWidth > 1 &&
             kernels.canVectorize(ranges, vectorWidth))
      kernels.buildVectorized(b, ranges, vectorWidth);
    else
      kernels.buildPointwise(b, ranges, parallel, reduction);
    op.erase();
    return success();
  }
};

} // namespace
