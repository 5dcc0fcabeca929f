//===- Remat.cpp - Recompute activations in the backward pass -------------===//
//
// The forward of a training step is the set of ops the loss depends on; the
// values it hands the backward are kept in memory until their last backward
// use. For each such value the chosen policy says keep or recompute; a
// recomputed value is rebuilt right before its first backward use by
// cloning its forward ops, reading the kept values through
// dist.optimization_barrier (so CSE cannot fold the clones back into the
// originals). Clones are shared: a value is recomputed at most once.
//
// Stage boundaries come from a sweep over the forward in block order: a value
// is a cut when it is the only data-dependent value alive after its op
// (every later forward op reads only it, parameters and constants); cuts
// that fan out (residual streams) begin stages, and a forward without any
// is cut every sqrt(n) cuts.
//
// On a step cut into pipeline stages (ops tagged dist.stage, before
// dist-pipeline-schedule) the recomputation is part of the backward: the
// clones and the barriers the backward reads carry dist.backward and their
// forward op's stage, so the schedule runs them in the stage's backward
// slot of each micro-batch. A value read on another stage than its own
// (sent between stages) is always kept: recomputing it would send it again
// during the backward.
//
//===----------------------------------------------------------------------===//

#include "passes/Transforms/Passes.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistParameters.h"
#include "passes/Sharding/OpCost.h"
#include "passes/Transforms/MinCut.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "dist-remat"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTREMAT
#include "passes/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The loss: the result named "loss", else the first.
Value findLoss(func::FuncOp fn) {
  std::optional<unsigned> index = lossResult(fn);
  if (!index)
    return {};
  return fn.getBody().front().getTerminator()->getOperand(*index);
}

/// What the pass chose, for --explain.
struct Summary {
  unsigned saved = 0, kept = 0, recomputed = 0, clones = 0;
  int64_t savedBytes = 0, keptBytes = 0;
  /// auto: the stages, those kept whole, and the FLOPs the recomputation
  /// costs (and would cost with every stage recomputed, as full).
  unsigned stages = 0, keptStages = 0;
  int64_t recomputeFlops = 0, fullRecomputeFlops = 0;
  /// auto: the budget was below what full keeps (it then acts as full).
  bool overBudget = false;
};

/// The remat policy: which forward values stay for the backward.
enum class Policy { Full, Selective, Auto, Cheap };

class Rematerializer {
public:
  Rematerializer(func::FuncOp fn, Policy policy, int64_t budgetBytes = 0)
      : fn(fn), body(fn.getBody().front()), policy(policy),
        budgetBytes(budgetBytes) {}

  /// Rewrites the backward's reads of recomputed values.
  Summary run() {
    Summary summary;
    Value loss = findLoss(fn);
    if (!loss)
      return summary;
    collectForward(loss);
    findDataDependent();
    if (policy != Policy::Cheap)
      findBoundaries();
    // The activations the backward reads, before any rewrite.
    auto readByBackward = [&](Value v) {
      return llvm::any_of(v.getUsers(), [&](Operation *user) {
        return !forward.contains(user) && !cloned.contains(user) &&
               !user->hasTrait<OpTrait::IsTerminator>();
      });
    };
    SmallVector<Value> activations;
    for (Operation &op : body)
      if (forward.contains(&op))
        for (Value result : op.getResults())
          if (dataDependent.contains(result))
            activations.push_back(result);
    for (Value v : activations)
      if (readByBackward(v)) {
        ++summary.saved;
        summary.savedBytes += tensorBytes(v.getType());
      }
    if (policy == Policy::Auto)
      chooseStages(activations, readByBackward, summary);
    if (policy == Policy::Cheap)
      chooseCut(readByBackward);
    for (Operation &op : llvm::make_early_inc_range(body)) {
      // The results are read at the end anyway: recomputing them there
      // would only keep their inputs alive instead.
      if (forward.contains(&op) || cloned.contains(&op) ||
          op.hasTrait<OpTrait::IsTerminator>())
        continue;
      for (OpOperand &use : op.getOpOperands()) {
        Value v = use.get();
        if (!isForwardValue(v) || keep(v))
          continue;
        OpBuilder builder(&op);
        if (!handedOver.count(v))
          ++summary.recomputed;
        use.set(handOver(builder, v, &op));
      }
    }
    matchUseCounts();
    summary.clones = llvm::count_if(cloned, [](Operation *op) {
      return !isa<OptimizationBarrierOp>(op);
    });
    // What stays in memory for the backward now: read by it directly, or
    // by a recomputation (through a barrier).
    for (Value v : activations)
      if (readByBackward(v) || backwardBarriers.count(v)) {
        ++summary.kept;
        summary.keptBytes += tensorBytes(v.getType());
      }
    return summary;
  }

private:
  bool isForwardValue(Value v) const {
    Operation *def = v.getDefiningOp();
    return def && forward.contains(def);
  }

  /// The ops the loss depends on.
  void collectForward(Value loss) { forward = opsFeeding(loss, body); }

  /// The forward values that depend on a data argument.
  void findDataDependent() {
    for (BlockArgument arg : body.getArguments())
      if (isDataArgument(fn, arg.getArgNumber()))
        dataDependent.insert(arg);
    for (Operation &op : body)
      if (forward.contains(&op) &&
          llvm::any_of(op.getOperands(),
                       [&](Value v) { return dataDependent.contains(v); }))
        for (Value result : op.getResults())
          dataDependent.insert(result);
  }

  /// The stage boundaries: among the cuts (forward values that are the only
  /// data-dependent value alive after their op), those that fan out, or
  /// every sqrt(n)-th cut of a chain.
  void findBoundaries() {
    SmallVector<Operation *> order;
    DenseMap<Operation *, unsigned> position;
    for (Operation &op : body)
      if (forward.contains(&op)) {
        position[&op] = order.size();
        order.push_back(&op);
      }
    // alive[i]: data-dependent values computed at or before i and read by
    // a forward op after i. (Arguments are in memory anyway.)
    SmallVector<int> delta(order.size() + 1, 0);
    DenseMap<Value, unsigned> lastUse;
    for (auto [i, op] : llvm::enumerate(order))
      for (Value result : op->getResults()) {
        if (!dataDependent.contains(result))
          continue;
        unsigned last = i;
        for (Operation *user : result.getUsers())
          if (forward.contains(user))
            last = std::max(last, position.lookup(user));
        lastUse[result] = last;
        if (last > i) {
          ++delta[i];
          --delta[last];
        }
      }
    int alive = 0;
    SmallVector<Value> cuts;
    for (auto [i, op] : llvm::enumerate(order)) {
      alive += delta[i];
      if (alive != 1)
        continue;
      for (Value result : op->getResults())
        if (dataDependent.contains(result) && lastUse.lookup(result) > i)
          cuts.push_back(result);
    }
    // A stage begins where a cut fans out (a residual stream: the block's
    // input feeds its branch and the sum). A forward without any (a chain
    // of layers) is split every sqrt(cuts) cuts, as Chen et al.'s
    // sublinear-memory checkpointing.
    auto forwardUsers = [&](Value v) {
      return llvm::count_if(v.getUsers(), [&](Operation *user) {
        return forward.contains(user);
      });
    };
    for (Value cut : cuts)
      if (forwardUsers(cut) > 1)
        boundaries.insert(cut);
    if (!boundaries.empty() || cuts.empty())
      return;
    size_t every = static_cast<size_t>(
        std::ceil(std::sqrt(static_cast<double>(cuts.size()))));
    for (size_t i = every - 1; i < cuts.size(); i += every)
      boundaries.insert(cuts[i]);
  }

  /// The FLOPs of recomputing `op`: a product's, else one per result
  /// element.
  static int64_t recomputeFlops(Operation *op) {
    if (auto m = dyn_cast<MatmulOp>(op))
      return m.getFlops();
    if (auto g = dyn_cast<GemmOp>(op))
      return g.getFlops();
    if (auto c = dyn_cast<Conv2DOp>(op))
      return c.getFlops();
    if (auto a = dyn_cast<AttentionOp>(op))
      return a.getFlops();
    int64_t elements = 0;
    for (Value result : op->getResults())
      if (auto type = dyn_cast<RankedTensorType>(result.getType());
          type && type.hasStaticShape())
        elements += type.getNumElements();
    return elements;
  }

  /// auto: splits the forward into stages at the boundaries and keeps the
  /// stages whose recomputation would cost the most FLOPs that fit in the
  /// budget beyond what full keeps: a 0/1 knapsack over the stages (weight:
  /// the bytes of the stage's activations the backward reads; value: the
  /// FLOPs of recomputing the stage), solved by dynamic programming over
  /// the budget in 4096 steps (weights rounded up, so the choice never
  /// exceeds the budget).
  template <typename ReadByBackward>
  void chooseStages(ArrayRef<Value> activations, ReadByBackward readByBackward,
                    Summary &summary) {
    // Stage of each forward op: the number of boundaries before it.
    unsigned stage = 0;
    SmallVector<int64_t> bytes(1, 0), flops(1, 0);
    for (Operation &op : body) {
      if (!forward.contains(&op))
        continue;
      stageOf[&op] = stage;
      // Recomputing the stage reruns its data-dependent ops (not those of
      // kept boundaries).
      bool boundary = llvm::any_of(
          op.getResults(), [&](Value r) { return boundaries.contains(r); });
      if (dataDependentResults(&op) && !keepAlways(&op) && !boundary)
        flops[stage] += recomputeFlops(&op);
      if (llvm::any_of(op.getResults(),
                       [&](Value r) { return boundaries.contains(r); })) {
        ++stage;
        bytes.push_back(0);
        flops.push_back(0);
      }
    }
    // What full keeps: every boundary and always-kept activation (read by
    // the backward or by a recomputation: counted whether or not).
    int64_t base = 0;
    for (Value v : activations) {
      if (keepAlways(v.getDefiningOp()) || boundaries.contains(v))
        base += tensorBytes(v.getType());
      else if (readByBackward(v))
        bytes[stageOf.lookup(v.getDefiningOp())] += tensorBytes(v.getType());
    }
    unsigned n = bytes.size();
    summary.stages = n;
    for (int64_t f : flops)
      summary.fullRecomputeFlops += f;
    int64_t capacity = budgetBytes - base;
    if (capacity < 0) {
      summary.overBudget = true;
      summary.recomputeFlops = summary.fullRecomputeFlops;
      return;
    }
    constexpr int64_t kSteps = 4096;
    int64_t unit = std::max<int64_t>(1, (capacity + kSteps - 1) / kSteps);
    int64_t slots = capacity / unit;
    // best[i][c]: the most FLOPs saved by keeping stages among the first i
    // within c units.
    SmallVector<SmallVector<int64_t>> best(n + 1,
                                           SmallVector<int64_t>(slots + 1, 0));
    for (unsigned i = 1; i <= n; ++i) {
      int64_t weight = (bytes[i - 1] + unit - 1) / unit;
      for (int64_t c = 0; c <= slots; ++c) {
        best[i][c] = best[i - 1][c];
        if (weight <= c)
          best[i][c] =
              std::max(best[i][c], best[i - 1][c - weight] + flops[i - 1]);
      }
    }
    int64_t c = slots;
    for (unsigned i = n; i >= 1; --i)
      if (best[i][c] != best[i - 1][c]) {
        keptStages.insert(i - 1);
        c -= (bytes[i - 1] + unit - 1) / unit;
      }
    summary.keptStages = keptStages.size();
    summary.recomputeFlops = summary.fullRecomputeFlops - best[n][slots];
  }

  /// cheap: forward ops whose results a clone recomputes for about the
  /// memory traffic of reading their inputs: elementwise ops, softmax,
  /// layer norm and data movement. (Not reductions: their results are
  /// small to keep, and recomputing one rereads its whole input.)
  static bool isCheap(Operation *op) {
    return isPointwise(op) ||
           isa<DropoutOp, RandomUniformOp, RandomNormalOp, SoftmaxOp,
               LogSoftmaxOp, LayerNormOp, ReshapeOp, TransposeOp, BroadcastOp,
               SliceOp, SplitOp, ConcatOp>(op);
  }

  /// cheap: an op whose result is never a buffer of its own: a reshape
  /// (a view of its input's buffer) or a float cast to a wider float type
  /// (bf16 to f32: dist-fuse-elementwise copies it into each reader, which
  /// reads the narrow values). Kept, a view costs its input's bytes.
  static bool isView(Operation *op) {
    if (isa<ReshapeOp>(op))
      return true;
    auto cast = dyn_cast<CastOp>(op);
    if (!cast)
      return false;
    auto from = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getOperand()));
    auto to = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getType()));
    return from && to && from.getWidth() < to.getWidth();
  }

  /// cheap: backward ops that compute on a recomputed value in the kernel
  /// that recomputes it (elementwise ops, reductions, normalizations). Any
  /// other reader (a product, a transpose, a collective) reads it from
  /// memory: recomputing it would write it again.
  static bool fusesWithRecomputation(Operation *op) {
    return isPointwise(op) ||
           isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, ReduceSumOp, ReduceMeanOp,
               ReduceMaxOp, ReduceMinOp>(op);
  }

  /// cheap: keeps the values of a minimum cut of the forward's dataflow
  /// (Inductor's min-cut partitioner, on dist ops): every forward value is
  /// an edge costing its bytes; the source feeds the values that cannot be
  /// recomputed, the backward's reads drain into the sink. A value may be
  /// recomputed if its op is cheap, the backward reads it only in ops that
  /// fuse with the recomputation, and it is at most kMaxDistance forward
  /// ops from a backward read (so no recomputation reruns long chains).
  template <typename ReadByBackward>
  void chooseCut(ReadByBackward readByBackward) {
    constexpr unsigned kMaxDistance = 4, kFar = ~0u;
    SmallVector<Value> values;
    DenseMap<Value, unsigned> index;
    for (Operation &op : body)
      if (forward.contains(&op))
        for (Value result : op.getResults())
          if (dataDependent.contains(result)) {
            index[result] = values.size();
            values.push_back(result);
          }
    // Forward ops from each value to its nearest backward read.
    SmallVector<unsigned> distance(values.size(), kFar);
    for (unsigned i = values.size(); i-- > 0;) {
      Value v = values[i];
      if (readByBackward(v)) {
        distance[i] = 0;
        continue;
      }
      for (Operation *user : v.getUsers())
        for (Value result : user->getResults())
          if (auto it = index.find(result);
              it != index.end() && distance[it->second] != kFar)
            distance[i] = std::min(distance[i], distance[it->second] + 1);
    }
    for (auto [i, v] : llvm::enumerate(values)) {
      Operation *def = v.getDefiningOp();
      bool fusedReads = llvm::all_of(v.getUsers(), [&](Operation *user) {
        return forward.contains(user) ||
               user->hasTrait<OpTrait::IsTerminator>() ||
               fusesWithRecomputation(user);
      });
      if (isCheap(def) && !keepAlways(def) && !crossesStages(v) &&
          fusedReads && distance[i] <= kMaxDistance && !isView(def))
        recomputable.insert(v);
    }
    // Cut, then keep every value the backward reads that another value's
    // recomputation would recompute too, and cut again, until there is none:
    // its clone would be made for the earlier reader and live until the
    // later one (a residual stream recomputed from its first layer at the
    // start of the backward, every layer's sum alive at once). Each round
    // keeps at least one more value.
    const unsigned source = 0, sink = 1;
    auto in = [](unsigned i) { return 2 + 2 * i; };
    auto out = [](unsigned i) { return 3 + 2 * i; };
    while (true) {
      MinCutGraph graph(2 + 2 * values.size());
      for (auto [i, v] : llvm::enumerate(values)) {
        Operation *def = v.getDefiningOp();
        // A view is not a buffer of its own (materialize), so keeping it
        // costs what keeping the value it views does.
        Value viewed = v;
        while (Operation *op = viewed.getDefiningOp()) {
          if (!isView(op))
            break;
          viewed = op->getOperand(0);
        }
        graph.addEdge(in(i), out(i), tensorBytes(viewed.getType()));
        if (distance[i] == 0)
          graph.addEdge(out(i), sink, MinCutGraph::kInfinite);
        if (!recomputable.contains(v))
          graph.addEdge(source, in(i), MinCutGraph::kInfinite);
        for (Value operand : def->getOperands())
          if (auto it = index.find(operand); it != index.end())
            graph.addEdge(out(it->second), in(i), MinCutGraph::kInfinite);
      }
      // Of the minimum cuts, the one closest to the backward: equal bytes
      // kept, the fewest ops recomputed.
      graph.maxFlow(source, sink);
      llvm::BitVector side = graph.sinkSide(sink);
      cutKept.clear();
      for (auto [i, v] : llvm::enumerate(values))
        if (!side.test(in(i)) && side.test(out(i)))
          cutKept.insert(v);
      SmallVector<Value> chained;
      for (auto [i, v] : llvm::enumerate(values)) {
        if (distance[i] != 0 || keep(v))
          continue;
        // What recomputing v recomputes (views are cloned, never kept).
        SmallVector<Value> stack(v.getDefiningOp()->getOperands());
        DenseSet<Value> seen;
        while (!stack.empty()) {
          Value u = stack.pop_back_val();
          auto it = index.find(u);
          if (it == index.end() || !seen.insert(u).second)
            continue;
          Operation *def = u.getDefiningOp();
          if (keep(u) && !isView(def))
            continue;
          if (distance[it->second] == 0 && recomputable.contains(u))
            chained.push_back(u);
          llvm::append_range(stack, def->getOperands());
        }
      }
      if (chained.empty())
        return;
      for (Value u : chained)
        recomputable.erase(u);
    }
  }

  /// Ops whose results every policy keeps (collectives, side effects,
  /// regions).
  static bool keepAlways(Operation *def) {
    return isCollective(def) || !isMemoryEffectFree(def) ||
           def->getNumRegions() != 0;
  }

  bool dataDependentResults(Operation *op) const {
    return llvm::any_of(op->getResults(),
                        [&](Value r) { return dataDependent.contains(r); });
  }

  /// A matrix product or convolution with an operand that does not depend
  /// on the data (a weight).
  bool isWeightProduct(Operation *op) const {
    if (!isa<MatmulOp, GemmOp, Conv2DOp>(op))
      return false;
    return llvm::any_of(op->getOperands(), [&](Value v) {
      return !dataDependent.contains(v);
    });
  }

  /// The pipeline stage an op is tagged with, if any.
  static std::optional<int64_t> stageTag(Operation *op) {
    if (auto tag = op->getAttrOfType<IntegerAttr>(DistDialect::kStageAttrName))
      return tag.getInt();
    return std::nullopt;
  }

  /// Whether `v` is read by an op tagged with another pipeline stage than
  /// its producer's.
  static bool crossesStages(Value v) {
    std::optional<int64_t> home = stageTag(v.getDefiningOp());
    if (!home)
      return false;
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      std::optional<int64_t> stage = stageTag(user);
      return stage && *stage != *home;
    });
  }

  /// Marks `op`, made for the backward, as part of it: in the stage of
  /// `like` (a forward op; null for an argument), when that has one.
  static void markBackward(Operation *op, Operation *like) {
    op->setAttr(DistDialect::kBackwardAttrName, UnitAttr::get(op->getContext()));
    if (!like)
      return;
    if (Attribute stage = like->getAttr(DistDialect::kStageAttrName))
      op->setAttr(DistDialect::kStageAttrName, stage);
  }

  /// Whether the policy keeps forward value `v` for the backward.
  bool keep(Value v) const {
    Operation *def = v.getDefiningOp();
    if (!def || !forward.contains(def) || !dataDependent.contains(v) ||
        boundaries.contains(v) || keepAlways(def) || crossesStages(v))
      return true;
    if (policy == Policy::Auto)
      return keptStages.contains(stageOf.lookup(def));
    if (policy == Policy::Cheap)
      return cutKept.contains(v) || !recomputable.contains(v);
    return policy == Policy::Selective && isWeightProduct(def);
  }

  /// `v` rebuilt at the builder's point for `reader` (an op of the backward
  /// or a clone): a barrier of a kept value (in the reader's pipeline stage:
  /// a value sent between stages is read where it arrives), or a clone of
  /// its op on rebuilt operands.
  Value materialize(OpBuilder &builder, Value v, Operation *reader) {
    // A constant is read as it is: a clone reads at least one recomputed or
    // kept value besides, so CSE cannot merge it, and the constant folds
    // into the clone's kernel as it did into the original's.
    if (isa_and_nonnull<ConstantOp>(v.getDefiningOp()))
      return v;
    // cheap: a clone reads a kept view as a clone of the view, so that it
    // stays what it was, never a buffer of its own.
    Operation *def = v.getDefiningOp();
    bool view = policy == Policy::Cheap && def && forward.contains(def) &&
                dataDependent.contains(v) && isView(def);
    if (keep(v) && !view) {
      Attribute stage = reader->getAttr(DistDialect::kStageAttrName);
      Value &barrier = keptBarriers[{v, stage}];
      if (barrier)
        return barrier;
      // Transparent: the kept value's producer fuses into its forward
      // readers as it did without this read.
      auto op = OptimizationBarrierOp::create(builder, v.getLoc(), v,
                                              /*transparent=*/true);
      markBackward(op, reader);
      cloned.insert(op);
      backwardBarriers.insert(v);
      barrier = op.getResult();
      return barrier;
    }
    if (Value done = recomputed.lookup(v))
      return done;
    IRMapping mapping;
    for (OpOperand &operand : def->getOpOperands()) {
      mapping.map(operand.get(), materialize(builder, operand.get(), def));
    }
    Operation *clone = builder.clone(*def, mapping);
    markBackward(clone, def);
    cloned.insert(clone);
    clonedFrom.push_back({def, clone});
    for (auto [original, copy] :
         llvm::zip(def->getResults(), clone->getResults()))
      recomputed[original] = copy;
    return recomputed.lookup(v);
  }

  /// The uses of `op`'s results that elementwise fusion counts.
  static unsigned countedUses(Operation *op) {
    unsigned uses = 0;
    for (Operation *user : op->getUsers()) {
      auto barrier = dyn_cast<OptimizationBarrierOp>(user);
      uses += !(barrier && barrier.getTransparent());
    }
    return uses;
  }

  /// A clone read once whose original is read more often gets a barrier
  /// use, so that fusion does not fold it into its one reader while the
  /// original stays a buffer of its own (a reduction would fuse it and add
  /// in another order).
  void matchUseCounts() {
    for (auto [original, clone] : clonedFrom)
      if (countedUses(original) > 1 && countedUses(clone) == 1 &&
          llvm::none_of(clone->getUsers(), [](Operation *user) {
            return isa<OptimizationBarrierOp>(user);
          })) {
        OpBuilder after(clone->getContext());
        after.setInsertionPointAfter(clone);
        for (Value result : clone->getResults())
          if (!result.use_empty()) {
            auto barrier =
                OptimizationBarrierOp::create(after, result.getLoc(), result);
            markBackward(barrier, clone);
            cloned.insert(barrier);
          }
      }
  }

  /// Recomputed value `v` as the backward reads it: through a barrier, so
  /// that it is a buffer of its own as the kept value was. Fusion must see
  /// the same use counts with and without remat (a forward value the
  /// backward reads has two uses, so elementwise fusion never folds its
  /// producer into a kernel that reads it; a reduction fused with other
  /// producers may add in another order, and remat must not change a bit).
  Value handOver(OpBuilder &builder, Value v, Operation *reader) {
    // cheap recomputes only what fuses with its backward readers: they read
    // the clone itself, and the forward fuses as if the backward did not
    // read the value (its kernels may differ from those without remat: the
    // results are equal up to the order of reductions' additions).
    if (policy == Policy::Cheap) {
      Value &clone = handedOver[v];
      if (!clone)
        clone = materialize(builder, v, reader);
      return clone;
    }
    Value &barrier = handedOver[v];
    if (!barrier) {
      Value r = materialize(builder, v, reader);
      barrier = OptimizationBarrierOp::create(builder, v.getLoc(), r);
      markBackward(barrier.getDefiningOp(), v.getDefiningOp());
      cloned.insert(barrier.getDefiningOp());
      // The forward value keeps a second use too, so that the forward
      // compiles as it did when the backward read it (its producer not
      // fused into its forward reader, a reduction say).
      OpBuilder after(v.getContext());
      after.setInsertionPointAfter(v.getDefiningOp());
      auto second = OptimizationBarrierOp::create(after, v.getLoc(), v);
      if (Attribute stage = v.getDefiningOp()->getAttr(
              DistDialect::kStageAttrName))
        second->setAttr(DistDialect::kStageAttrName, stage);
      cloned.insert(second);
    }
    return barrier;
  }

  func::FuncOp fn;
  Block &body;
  Policy policy;
  int64_t budgetBytes;
  DenseMap<Operation *, unsigned> stageOf;
  DenseSet<unsigned> keptStages;
  DenseSet<Operation *> forward, cloned;
  DenseSet<Value> dataDependent, boundaries, backwardBarriers;
  /// cheap: the values the minimum cut keeps, and those it may recompute.
  DenseSet<Value> cutKept, recomputable;
  DenseMap<Value, Value> recomputed, handedOver;
  DenseMap<std::pair<Value, Attribute>, Value> keptBarriers;
  SmallVector<std::pair<Operation *, Operation *>> clonedFrom;
};

struct DistRematPass : dist::impl::DistRematBase<DistRematPass> {
  using DistRematBase::DistRematBase;

  void runOnOperation() override {
    if (mode != "none" && mode != "full" && mode != "selective" &&
        mode != "auto" && mode != "cheap") {
      getOperation().emitError()
          << "dist-remat: unknown mode '" << mode
          << "' (none, full, selective, auto or cheap)";
      return signalPassFailure();
    }
    if (!std::isfinite(memoryBudget) || memoryBudget > 1e12) {
      getOperation().emitError()
          << "dist-remat: memory-budget must be a finite number of MiB";
      return signalPassFailure();
    }
    if ((mode == "auto") != (memoryBudget > 0)) {
      getOperation().emitError()
          << "dist-remat: "
          << (mode == "auto" ? "auto needs memory-budget (MiB, > 0)"
                             : "memory-budget is for mode auto");
      return signalPassFailure();
    }
    if (mode == "none")
      return;
    auto fn = getOperation().lookupSymbol<func::FuncOp>(function);
    if (!fn || fn.isExternal() || !fn.getBody().hasOneBlock()) {
      getOperation().emitError()
          << "dist-remat: no single-block function @" << function
          << " (the training step; name it with function=<name>)";
      return signalPassFailure();
    }
    Policy policy = mode == "selective" ? Policy::Selective
                    : mode == "auto"    ? Policy::Auto
                    : mode == "cheap"   ? Policy::Cheap
                                        : Policy::Full;
    Summary summary =
        Rematerializer(fn, policy,
                       static_cast<int64_t>(memoryBudget * 1048576.0))
            .run();
    auto mib = [](int64_t bytes) {
      return llvm::format("%.2f MiB", bytes / 1048576.0);
    };
    if (policy == Policy::Auto && summary.overBudget)
      fn.emitWarning("dist-remat: the budget of ")
          << llvm::formatv("{0:F2}", static_cast<double>(memoryBudget))
          << " MiB is below what full keeps (the stage boundaries); "
          << "recomputing every stage, as full";
    if (explain && policy == Policy::Auto) {
      auto gflops = [](int64_t f) { return llvm::format("%.3f", f / 1e9); };
      llvm::outs() << "remat auto on @" << function << " (budget "
                   << llvm::format("%.2f", static_cast<double>(memoryBudget))
                   << " MiB): keeps " << summary.keptStages << " of "
                   << summary.stages
                   << " stages whole, recomputes the rest: "
                   << gflops(summary.recomputeFlops)
                   << " GFLOP recomputed per step (full: "
                   << gflops(summary.fullRecomputeFlops) << ")\n";
    }
    if (explain) {
      llvm::outs() << "remat " << mode << " on @" << function << ": the "
                   << "backward reads " << summary.saved
                   << " forward activations (" << mib(summary.savedBytes)
                   << "); kept " << summary.kept << " ("
                   << mib(summary.keptBytes) << "), recomputed "
                   << summary.recomputed << " by " << summary.clones
                   << " cloned ops\n";
    }
  }
};

} // namespace
