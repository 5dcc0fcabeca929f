//===- PipelineSchedule.cpp - One program per pipeline stage -------------===//
//
// Input: the step of one micro-batch (dist-pipeline-microbatch, propagate,
// partition), whose ops carry their pipeline stage (dist-pipeline-split,
// dist-autodiff). Output: one function per stage, `<function>_stage<k>`,
// each the stage's explicit schedule of forward and backward micro-batch
// steps with the sends and receives between stages:
//
//  - Every value is either *replicable* (computable on any stage without
//    communication: constants, the inputs, step, seed, hyperparameters, and
//    pure ops of those; cloned where used), or has a *home* stage (its op's
//    tag; a parameter's or state's stage; an untagged op goes where most of
//    its operands' bytes are). A value used away from home is sent there
//    once per micro-batch (or once per step) with a tag of its own.
//  - Ops that depend on a micro-batch (*varying*) run once per micro-batch,
//    at the slot of their phase (forward, or backward: dist.backward) in the
//    stage's schedule: GPipe (every forward, then every backward) or 1F1B
//    (S - 1 - k forwards, then one forward and one backward in turn).
//  - A collective over the micro-batch axis becomes a sum over the
//    micro-batches: of replicable values (a loss's count of labels) in
//    place, of a stage's values (gradients, the loss) accumulated as each
//    micro-batch's backward produces them; what depends on such a sum (the
//    optimizer) runs after the last slot. A varying op that needs one is an
//    error: the micro-batches could not run one after another.
//  - Sends are buffered (they never wait for the receiver); a receive waits
//    for its send. Before any code is generated, the stages' programs are
//    run against each other symbolically: every send must meet its
//    receive and no stage may wait forever.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"
#include "passes/Sharding/PipelineVerify.h"

#include "dialects/Dist/IR/DistBuilder.h"
#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPIPELINESCHEDULE
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// One step of a rank's schedule: the forward or backward of micro-batch
/// `microbatch` through the rank's model chunk `chunk` (0 unless the
/// schedule is interleaved: the rank's chunks are chunk * S + rank).
struct Slot {
  bool backward;
  int64_t microbatch;
  int64_t chunk = 0;
};

/// The order of rank `stage`'s micro-batch steps.
SmallVector<Slot> scheduleOf(StringRef kind, int64_t stage, int64_t stages,
                             int64_t microbatches, int64_t chunks = 1) {
  SmallVector<Slot> slots;
  if (kind == "gpipe") {
    for (int64_t i = 0; i < microbatches; ++i)
      slots.push_back({false, i});
    for (int64_t i = microbatches - 1; i >= 0; --i)
      slots.push_back({true, i});
    return slots;
  }
  if (kind == "interleaved") {
    // Megatron's interleaved 1F1B: forwards in groups of S micro-batches,
    // each group through the rank's chunks in order (backwards in reverse
    // order); (S - 1 - k) * 2 + (V - 1) * S of them to warm up.
    int64_t total = microbatches * chunks;
    auto slotOf = [&](int64_t k, bool backward) {
      int64_t inGroup = k % (stages * chunks);
      int64_t chunk = inGroup / stages;
      if (backward)
        chunk = chunks - 1 - chunk;
      return Slot{backward, (k / (stages * chunks)) * stages + k % stages,
                  chunk};
    };
    int64_t warmup = std::min(
        microbatches == stages ? total
                               : (stages - stage - 1) * 2 + (chunks - 1) * stages,
        total);
    for (int64_t k = 0; k < warmup; ++k)
      slots.push_back(slotOf(k, false));
    for (int64_t k = 0; k < total - warmup; ++k) {
      slots.push_back(slotOf(warmup + k, false));
      slots.push_back(slotOf(k, true));
    }
    for (int64_t k = total - warmup; k < total; ++k)
      slots.push_back(slotOf(k, true));
    return slots;
  }
  // 1F1B (PipeDream-Flush): warm up with the forwards the later stages
  // need to start their backwards, then alternate; at most S - k
  // micro-batches are in flight on stage k.
  int64_t warmup = std::min(stages - 1 - stage, microbatches);
  int64_t forward = 0, backward = 0;
  for (; forward < warmup; ++forward)
    slots.push_back({false, forward});
  while (forward < microbatches) {
    slots.push_back({false, forward++});
    slots.push_back({true, backward++});
  }
  while (backward < microbatches)
    slots.push_back({true, backward++});
  return slots;
}

bool hasAxis(ArrayRef<int64_t> axes, int64_t axis) {
  return llvm::is_contained(axes, axis);
}

struct DistPipelineSchedulePass
    : dist::impl::DistPipelineScheduleBase<DistPipelineSchedulePass> {
  using Base::Base;

  // The step and the mesh.
  func::FuncOp fn;
  // The micro-batch axis (-1 with one micro-batch: nothing to unroll), and
  // how many devices it also holds (data parallelism's axis), unless it is
  // an axis of its own (`appended`).
  int64_t microAxis = -1, microbatches = 1, stages = 1, microDevices = 1;
  // Model chunks per rank (interleaved schedules): the cut's stages are
  // chunks, chunk c on rank c % stages.
  int64_t chunksPerRank = 1, chunks = 1;
  int64_t rankOf(int64_t chunk) const { return chunk % stages; }
  bool appended = true;
  // What each value is.
  DenseSet<Value> varying, replicable, late;
  DenseMap<Value, int64_t> home;
  DenseSet<Operation *> backwardOps;
  // Once-per-step ops the micro-batch steps need (in the prologue); the
  // others wait for the epilogue, so that what they make (weight decay's
  // and Adam's terms of the parameters) is not held through the step.
  DenseSet<Operation *> early;
  // One tag per (value, micro-batch or -1, receiving stage).
  std::map<std::tuple<void *, int64_t, int64_t>, int64_t> tags;

  int64_t tagFor(Value v, int64_t microbatch, int64_t to) {
    auto key = std::make_tuple(v.getAsOpaquePointer(), microbatch, to);
    auto [it, fresh] = tags.try_emplace(key, static_cast<int64_t>(tags.size()));
    return it->second;
  }

  /// A sum over the micro-batches (splitMicroCollectives marks them).
  static bool isMicroAllReduce(Operation *op) {
    return isa<AllReduceOp>(op) &&
           op->hasAttr(DistDialect::kMicrobatchSumAttrName);
  }

  /// An all-reduce over the micro-batches of `v`.
  AllReduceOp microSum(OpBuilder &b, Location loc, CollectiveKind kind,
                       Value v) {
    auto sum =
        AllReduceOp::create(b, loc, kind, v, ArrayRef<int64_t>{microAxis});
    sum->setAttr(DistDialect::kMicrobatchSumAttrName, b.getUnitAttr());
    return sum;
  }

  /// all_reduce over the micro-batch axis and others: the micro-batch sum
  /// first, then the rest (over the devices of the data-parallel axis too).
  LogicalResult splitMicroCollectives() {
    if (microAxis < 0)
      return success();
    for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
      if (!isCollective(&op))
        continue;
      SmallVector<int64_t> axes;
      if (auto reduce = dyn_cast<AllReduceOp>(op))
        axes.assign(reduce.getAxes().begin(), reduce.getAxes().end());
      else if (auto gather = dyn_cast<AllGatherOp>(op))
        axes.assign(gather.getAxes().begin(), gather.getAxes().end());
      else if (auto scatter = dyn_cast<ReduceScatterOp>(op))
        axes.assign(scatter.getAxes().begin(), scatter.getAxes().end());
      else if (auto slice = dyn_cast<ShardSliceOp>(op))
        axes.assign(slice.getAxes().begin(), slice.getAxes().end());
      if (!hasAxis(axes, microAxis))
        continue;
      if (auto reduce = dyn_cast<AllReduceOp>(op)) {
        SmallVector<int64_t> rest;
        for (int64_t a : axes)
          if (a != microAxis || (!appended && microDevices > 1))
            rest.push_back(a);
        OpBuilder b(&op);
        AllReduceOp micro =
            microSum(b, op.getLoc(), reduce.getKind(), reduce.getInput());
        for (NamedAttribute attr : op.getDiscardableAttrs())
          micro->setAttr(attr.getName(), attr.getValue());
        Value result = micro.getResult();
        if (!rest.empty()) {
          auto others = AllReduceOp::create(b, op.getLoc(), reduce.getKind(),
                                            result, rest);
          others->setDiscardableAttrs(op.getDiscardableAttrDictionary());
          result = others.getResult();
        }
        reduce.getResult().replaceAllUsesWith(result);
        op.erase();
        continue;
      }
      if (isa<ShardSliceOp>(op) && axes.size() == 1)
        continue;
      return op.emitError("'")
             << op.getName()
             << "' combines the micro-batches of a pipeline step (the "
                "value it moves needs the whole batch at once); the "
                "micro-batches cannot run one after another: compile "
                "with microbatches=1 (the whole batch at once: no "
                "gradient accumulation)";
    }
    return success();
  }

  /// The stage of every parameter and optimizer state argument.
  LogicalResult classifyArguments() {
    Block &body = fn.getBody().front();
    DenseMap<Attribute, int64_t> paramStage;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      BlockArgument arg = body.getArgument(i);
      if (FlatSymbolRefAttr ref = getParameterRef(fn, i)) {
        auto stage =
            fn.getArgAttrOfType<IntegerAttr>(i, DistDialect::kStageAttrName);
        if (!stage || stage.getInt() >= chunks)
          return fn.emitError("parameter ")
                 << ref
                 << (stage ? " belongs to a stage the pipeline does not have"
                           : " has no pipeline stage")
                 << ": cut the forward with dist-pipeline-split (stages="
                 << chunks << ") before dist-autodiff";
        home[arg] = stage.getInt();
        paramStage[ref] = stage.getInt();
      }
    }
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      BlockArgument arg = body.getArgument(i);
      if (home.count(arg))
        continue;
      if (auto state = fn.getArgAttrOfType<OptimizerStateAttr>(
              i, DistDialect::kOptimizerStateAttrName)) {
        if (!state.getParameter() || !paramStage.count(state.getParameter()))
          return fn.emitError("optimizer state '")
                 << state.getName()
                 << "' belongs to no parameter of a stage (a loss scaler's "
                    "state): loss scaling with pipeline stages is not "
                    "supported yet";
        home[arg] = paramStage.lookup(state.getParameter());
        continue;
      }
      replicable.insert(arg);
      ShardingAttr sharding = getArgSharding(fn, i);
      if (sharding && microAxis >= 0)
        for (DenseI64ArrayAttr axes : sharding.getSplitAxes())
          if (hasAxis(axes.asArrayRef(), microAxis))
            varying.insert(arg);
    }
    return success();
  }

  /// varying, replicable, late, home and phase of every op's results.
  LogicalResult classifyOps() {
    Block &body = fn.getBody().front();
    SmallVector<Operation *> pending;
    for (Operation &op : body.without_terminator()) {
      bool anyVarying = llvm::any_of(
          op.getOperands(), [&](Value v) { return varying.contains(v); });
      bool microSum = isMicroAllReduce(&op);
      bool microSlice = false;
      if (auto slice = dyn_cast<ShardSliceOp>(op))
        microSlice =
            microAxis >= 0 && slice.getAxes() == ArrayRef<int64_t>{microAxis};
      bool isVarying = microSlice || (anyVarying && !microSum);
      bool allReplicable = llvm::all_of(
          op.getOperands(), [&](Value v) { return replicable.contains(v); });
      // A barrier (dist-remat's) is the value it reads: replicable if that
      // is.
      bool pure = op.getNumRegions() == 0 &&
                  (microSum || microSlice || isa<OptimizationBarrierOp>(op) ||
                   (!isCollective(&op) && isMemoryEffectFree(&op)));
      bool isReplicable = allReplicable && pure;
      bool isLate =
          (microSum && !replicable.contains(op.getOperand(0))) ||
          llvm::any_of(op.getOperands(),
                       [&](Value v) { return late.contains(v); });
      if (isVarying && isLate)
        return op.emitError("'")
               << op.getName()
               << "' runs once per micro-batch but needs a value summed over "
                  "all of them (batch statistics?): the micro-batches "
                  "cannot run one after another; compile with "
                  "microbatches=1 (the whole batch at once: no gradient "
                  "accumulation)";
      for (Value r : op.getResults()) {
        if (isVarying)
          varying.insert(r);
        if (isReplicable)
          replicable.insert(r);
        if (isLate)
          late.insert(r);
      }
      if (isReplicable)
        continue;
      if (isVarying &&
          (op.hasAttr(DistDialect::kBackwardAttrName) ||
           llvm::any_of(op.getOperands(), [&](Value v) {
             Operation *def = v.getDefiningOp();
             return def && backwardOps.contains(def) && varying.contains(v);
           })))
        backwardOps.insert(&op);
      std::optional<int64_t> stage;
      if (auto tag = op.getAttrOfType<IntegerAttr>(DistDialect::kStageAttrName))
        stage = tag.getInt();
      else {
        // Where most of the operands' bytes are (the later stage on a tie).
        std::map<int64_t, int64_t> bytes;
        for (Value v : op.getOperands())
          if (!replicable.contains(v))
            bytes[home.lookup(v)] += tensorBytes(v.getType());
        for (auto [s, n] : bytes)
          if (!stage || n >= bytes[*stage])
            stage = s;
      }
      if (stage && *stage >= chunks)
        return op.emitError("pipeline stage ")
               << *stage << " of a pipeline of " << chunks
               << " (cut the forward into as many stages as the pipeline "
                  "axis has devices, times the virtual stages)";
      if (!stage) {
        pending.push_back(&op);
        continue;
      }
      for (Value r : op.getResults())
        home[r] = *stage;
    }
    // Ops of replicable operands that must run on one stage (a collective
    // over other axes): where their first user runs.
    for (Operation *op : llvm::reverse(pending)) {
      int64_t stage = 0;
      for (Operation &user : body)
        if (llvm::any_of(user.getOperands(), [&](Value v) {
              return v.getDefiningOp() == op;
            }) &&
            !user.getResults().empty() && home.count(user.getResult(0))) {
          stage = home.lookup(user.getResult(0));
          break;
        }
      for (Value r : op->getResults())
        home[r] = stage;
    }
    return success();
  }

  /// A sum over the micro-batches of `a + b` with `a` and `b` made on
  /// different stages (a tied weight's gradient: the embedding's on the
  /// first stage, the output head's on the last) becomes the sum of the
  /// two sums: each stage accumulates its own, and one message per step
  /// crosses instead of one per micro-batch. Returns whether it changed
  /// anything (the classification is then redone).
  bool distributeMicroSums() {
    bool changed = false;
    for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
      auto reduce = dyn_cast<AllReduceOp>(op);
      if (!reduce || !isMicroAllReduce(&op) ||
          reduce.getKind() != CollectiveKind::sum)
        continue;
      auto add = reduce.getInput().getDefiningOp<AddOp>();
      if (!add || !add->hasOneUse() || add.getLhs().getType() != add.getType() ||
          add.getRhs().getType() != add.getType())
        continue;
      Value lhs = add.getLhs(), rhs = add.getRhs();
      if (replicable.contains(lhs) || replicable.contains(rhs) ||
          home.lookup(lhs) == home.lookup(rhs))
        continue;
      OpBuilder b(&op);
      auto sumOf = [&](Value v) {
        return microSum(b, op.getLoc(), CollectiveKind::sum, v).getResult();
      };
      Value total = AddOp::create(b, add.getLoc(), sumOf(lhs), sumOf(rhs));
      // Where the gradient's parameter is (the add's stage).
      total.getDefiningOp()->setAttr(
          DistDialect::kStageAttrName,
          IntegerAttr::get(IntegerType::get(&getContext(), 64),
                           home.lookup(add.getResult())));
      reduce.getResult().replaceAllUsesWith(total);
      op.erase();
      add.erase();
      changed = true;
    }
    return changed;
  }

  /// The once-per-step ops that micro-batch steps read, directly or
  /// through others of them.
  void findEarly() {
    early.clear();
    Block &body = fn.getBody().front();
    for (Operation &op : llvm::reverse(body.without_terminator())) {
      if (!op.getNumResults() || varying.contains(op.getResult(0)) ||
          late.contains(op.getResult(0)) ||
          replicable.contains(op.getResult(0)))
        continue;
      for (Operation *user : op.getUsers())
        if (early.contains(user) ||
            (user->getNumResults() && varying.contains(user->getResult(0)))) {
          early.insert(&op);
          break;
        }
    }
  }

  void forgetClassification() {
    varying.clear();
    replicable.clear();
    late.clear();
    home.clear();
    backwardOps.clear();
  }

  /// The stages other than its home that read `v` (through a non-replicable
  /// op, or as the step's output; an update goes to its argument's stage).
  SmallVector<int64_t> readersOf(Value v) {
    SmallVector<int64_t> stagesReading;
    int64_t at = rankOf(home.lookup(v));
    Block &body = fn.getBody().front();
    Operation *terminator = body.getTerminator();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user == terminator) {
        unsigned r = use.getOperandNumber();
        if (auto updates = fn.getResultAttrOfType<IntegerAttr>(
                r, DistDialect::kUpdatesAttrName))
          stagesReading.push_back(
              rankOf(home.lookup(body.getArgument(updates.getInt()))));
        else
          for (int64_t s = 0; s < stages; ++s)
            stagesReading.push_back(s);
        continue;
      }
      if (user->getNumResults() && !replicable.contains(user->getResult(0)))
        stagesReading.push_back(rankOf(home.lookup(user->getResult(0))));
    }
    llvm::sort(stagesReading);
    stagesReading.erase(llvm::unique(stagesReading), stagesReading.end());
    llvm::erase(stagesReading, at);
    return stagesReading;
  }

  /// Builds the program of stage `stage`.
  FailureOr<func::FuncOp> buildStage(int64_t stage, OpBuilder &moduleBuilder) {
    MLIRContext *ctx = &getContext();
    Block &body = fn.getBody().front();
    Operation *terminator = body.getTerminator();

    // The signature: the step's arguments, varying inputs whole over the
    // micro-batch axis; its outputs and the updates of this stage's
    // arguments.
    SmallVector<Type> argTypes;
    SmallVector<DictionaryAttr> argAttrs;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto type = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      NamedAttrList attrs(fn.getArgAttrDict(i));
      if (varying.contains(body.getArgument(i))) {
        ShardingAttr sharding = getArgSharding(fn, i);
        SmallVector<DimSharding> dims = replicatedSharding(type.getRank());
        SmallVector<int64_t> shape(type.getShape());
        for (auto [d, axes] : llvm::enumerate(sharding.getSplitAxes())) {
          if (hasAxis(axes.asArrayRef(), microAxis)) {
            // Every micro-batch of this device's block.
            shape[d] *= microbatches;
            if (!appended && microDevices > 1)
              dims[d] = DimSharding::split(microAxis);
          } else if (!axes.empty())
            dims[d] = DimSharding::split(axes[0], sharding.getGroups()[d]);
        }
        type = type.clone(shape);
        attrs.set(DistDialect::kShardingAttrName, ShardingAttr::get(ctx, dims));
      }
      // The stage that holds a parameter or state (the interface's
      // "place").
      attrs.erase(DistDialect::kStageAttrName);
      if (home.count(body.getArgument(i)))
        attrs.set(DistDialect::kStageAttrName,
                  IntegerAttr::get(IntegerType::get(ctx, 64),
                                   rankOf(home.lookup(body.getArgument(i)))));
      argTypes.push_back(type);
      argAttrs.push_back(attrs.getDictionary(ctx));
    }
    SmallVector<unsigned> results;
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      auto updates =
          fn.getResultAttrOfType<IntegerAttr>(r, DistDialect::kUpdatesAttrName);
      if (!updates ||
          rankOf(home.lookup(body.getArgument(updates.getInt()))) == stage)
        results.push_back(r);
    }
    SmallVector<Type> resultTypes;
    for (unsigned r : results)
      resultTypes.push_back(fn.getResultTypes()[r]);
    std::string name = (fn.getSymName() + "_stage" + Twine(stage)).str();
    auto stageFn = func::FuncOp::create(
        moduleBuilder, fn.getLoc(), name,
        FunctionType::get(ctx, argTypes, resultTypes));
    for (unsigned i = 0; i < argAttrs.size(); ++i)
      stageFn.setArgAttrs(i, argAttrs[i]);
    for (auto [n, r] : llvm::enumerate(results))
      stageFn.setResultAttrs(n, fn.getResultAttrDict(r));
    for (NamedAttribute attr : fn->getDiscardableAttrs())
      stageFn->setAttr(attr.getName(), attr.getValue());
    Block *entry = stageFn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(entry);

    std::map<std::pair<void *, int64_t>, Value> built;
    DenseMap<Operation *, Value> sums; // micro-batch sums in progress
    bool failedGet = false;

    std::function<Value(Value, int64_t)> get = [&](Value v,
                                                   int64_t mb) -> Value {
      int64_t key = varying.contains(v) ? mb : -1;
      auto found = built.find({v.getAsOpaquePointer(), key});
      if (found != built.end())
        return found->second;
      Value made;
      Location loc = locationOf(v);
      if (!replicable.contains(v)) {
        int64_t at = rankOf(home.lookup(v));
        if (at != stage) {
          made = RecvOp::create(b, loc, v.getType(), pipelineAxis, at,
                                tagFor(v, key, stage));
        } else if (auto arg = dyn_cast<BlockArgument>(v)) {
          made = entry->getArgument(arg.getArgNumber());
        } else {
          failedGet = true;
          emitError(loc, "internal error: a value of stage ")
              << stage << " is used before it is made";
          return {};
        }
      } else if (auto arg = dyn_cast<BlockArgument>(v)) {
        made = entry->getArgument(arg.getArgNumber());
        if (key >= 0) {
          auto local = cast<RankedTensorType>(v.getType());
          SmallVector<int64_t> starts(local.getRank(), 0);
          starts[0] = key * local.getDimSize(0);
          made = DistBuilder(b, loc).slice(
              made, starts, SmallVector<int64_t>(local.getRank(), 1),
              local.getShape());
        }
      } else {
        // A replicable op: cloned here, its operands first.
        Operation *op = v.getDefiningOp();
        Location opLoc = op->getLoc();
        if (isMicroAllReduce(op)) {
          auto reduce = cast<AllReduceOp>(op);
          for (int64_t i = 0; i < microbatches; ++i) {
            Value term = get(reduce.getInput(), i);
            if (!term)
              return {};
            made = made ? combine(b, reduce, made, term) : term;
          }
          if (reduce.getKind() == CollectiveKind::mean)
            made = DistBuilder(b, opLoc).mul(
                made, 1.0 / static_cast<double>(microbatches));
        } else if (auto slice = dyn_cast<ShardSliceOp>(op);
                   slice && key >= 0) {
          Value whole = get(slice.getInput(), -1);
          if (!whole)
            return {};
          auto local = cast<RankedTensorType>(v.getType());
          // This device's block first (data parallelism), then the
          // micro-batch's within it.
          if (!appended && microDevices > 1) {
            auto type = cast<RankedTensorType>(whole.getType());
            SmallVector<int64_t> shape(type.getShape());
            shape[slice.getDim()] /= microDevices;
            whole = ShardSliceOp::create(b, opLoc, type.clone(shape), whole,
                                         slice.getDim(),
                                         ArrayRef<int64_t>{microAxis});
          }
          SmallVector<int64_t> starts(local.getRank(), 0);
          starts[slice.getDim()] = key * local.getDimSize(slice.getDim());
          made = DistBuilder(b, opLoc).slice(
              whole, starts, SmallVector<int64_t>(local.getRank(), 1),
              local.getShape());
        } else {
          IRMapping map;
          for (Value operand : op->getOperands()) {
            Value local = get(operand, key);
            if (!local)
              return {};
            map.map(operand, local);
          }
          Operation *clone = b.clone(*op, map);
          clone->removeAttr(DistDialect::kStageAttrName);
          clone->removeAttr(DistDialect::kBackwardAttrName);
          for (auto [r, c] : llvm::zip(op->getResults(), clone->getResults()))
            built[{r.getAsOpaquePointer(), key}] = c;
          return built.at({v.getAsOpaquePointer(), key});
        }
      }
      built[{v.getAsOpaquePointer(), key}] = made;
      return made;
    };

    // Clones `op` for micro-batch `mb` (-1: once), sends what other stages
    // read, and records the results.
    auto buildOp = [&](Operation *op, int64_t mb) -> LogicalResult {
      IRMapping map;
      for (Value operand : op->getOperands()) {
        Value local = get(operand, mb);
        if (!local)
          return failure();
        map.map(operand, local);
      }
      Operation *clone = b.clone(*op, map);
      clone->removeAttr(DistDialect::kStageAttrName);
      clone->removeAttr(DistDialect::kBackwardAttrName);
      for (auto [r, c] : llvm::zip(op->getResults(), clone->getResults())) {
        int64_t key = varying.contains(r) ? mb : -1;
        built[{r.getAsOpaquePointer(), key}] = c;
        for (int64_t to : readersOf(r))
          SendOp::create(b, op->getLoc(), c, pipelineAxis, to,
                         tagFor(r, key, to));
      }
      return success();
    };

    // Prologue: what this stage holds that others read every step (tied
    // parameters), and its ops that need no micro-batch and no sum.
    for (BlockArgument arg : body.getArguments())
      if (home.count(arg) && rankOf(home.lookup(arg)) == stage)
        for (int64_t to : readersOf(arg))
          SendOp::create(b, locationOf(arg),
                         entry->getArgument(arg.getArgNumber()), pipelineAxis,
                         to, tagFor(arg, -1, to));
    for (Operation &op : body.without_terminator()) {
      Value r = op.getNumResults() ? op.getResult(0) : Value();
      if (!r || replicable.contains(r) || varying.contains(r) ||
          late.contains(r) || !early.contains(&op) ||
          rankOf(home.lookup(r)) != stage)
        continue;
      if (failed(buildOp(&op, -1)) || failedGet)
        return failure();
    }
    // The schedule.
    for (Slot slot :
         scheduleOf(schedule, stage, stages, microbatches, chunksPerRank)) {
      for (Operation &op : body.without_terminator()) {
        Value r = op.getNumResults() ? op.getResult(0) : Value();
        if (!r || !varying.contains(r) || replicable.contains(r) ||
            home.lookup(r) != slot.chunk * stages + stage ||
            backwardOps.contains(&op) != slot.backward)
          continue;
        if (failed(buildOp(&op, slot.microbatch)) || failedGet)
          return failure();
        // Micro-batch sums this stage accumulates.
        for (Operation *user : op.getUsers())
          if (isMicroAllReduce(user)) {
            Value term = built.at({r.getAsOpaquePointer(), slot.microbatch});
            Value &sum = sums[user];
            sum = sum ? combine(b, cast<AllReduceOp>(user), sum, term) : term;
            // Add now: fusion would otherwise merge the chain of sums into
            // one op after the last micro-batch, keeping every
            // micro-batch's term (a weight gradient each) alive until then.
            sum = OptimizationBarrierOp::create(b, user->getLoc(), sum);
          }
      }
    }
    // Epilogue: the sums, what needs them, and the once-per-step ops no
    // micro-batch step needed.
    for (Operation &op : body.without_terminator()) {
      Value r = op.getNumResults() ? op.getResult(0) : Value();
      if (!r || replicable.contains(r) || varying.contains(r) ||
          (!late.contains(r) && early.contains(&op)) ||
          rankOf(home.lookup(r)) != stage)
        continue;
      if (isMicroAllReduce(&op)) {
        Value sum = sums.lookup(&op);
        if (!sum)
          return op.emitError("internal error: no micro-batch sum");
        if (cast<AllReduceOp>(op).getKind() == CollectiveKind::mean)
          sum = DistBuilder(b, op.getLoc())
                    .mul(sum, 1.0 / static_cast<double>(microbatches));
        built[{r.getAsOpaquePointer(), -1}] = sum;
        for (int64_t to : readersOf(r))
          SendOp::create(b, op.getLoc(), sum, pipelineAxis, to,
                         tagFor(r, -1, to));
        continue;
      }
      if (failed(buildOp(&op, -1)) || failedGet)
        return failure();
    }
    SmallVector<Value> returned;
    for (unsigned r : results) {
      Value v = terminator->getOperand(r);
      if (varying.contains(v))
        return fn.emitError("result #")
               << r << " differs per micro-batch; a pipeline step's results "
                       "are whole-batch values";
      Value local = get(v, -1);
      if (!local)
        return failure();
      returned.push_back(local);
    }
    func::ReturnOp::create(b, terminator->getLoc(), returned);
    return stageFn;
  }

  /// Where a value comes from, for messages and --explain: its op's
  /// location, or the parameter or state an argument holds.
  Location locationOf(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg)
      return v.getLoc();
    std::string name;
    if (FlatSymbolRefAttr ref = getParameterRef(fn, arg.getArgNumber()))
      name = "parameter " + ref.getValue().str();
    else if (auto state = fn.getArgAttrOfType<OptimizerStateAttr>(
                 arg.getArgNumber(), DistDialect::kOptimizerStateAttrName))
      name = "state " + state.getName();
    else
      return v.getLoc();
    return NameLoc::get(StringAttr::get(&getContext(), name), v.getLoc());
  }

  /// One more micro-batch's term of a sum over the micro-batch axis.
  static Value combine(OpBuilder &b, AllReduceOp reduce, Value sum,
                       Value term) {
    Location loc = reduce.getLoc();
    switch (reduce.getKind()) {
    case CollectiveKind::max:
      return MaxOp::create(b, loc, sum, term);
    case CollectiveKind::min:
      return MinOp::create(b, loc, sum, term);
    default:
      return AddOp::create(b, loc, sum, term);
    }
  }

  void runOnOperation() override;
};

} // namespace


void DistPipelineSchedulePass::runOnOperation() {
  ModuleOp module = getOperation();
  MeshOp mesh = getMesh(module);
  fn = module.lookupSymbol<func::FuncOp>(function);
  if (!mesh || !fn || fn.isExternal() || !fn.getBody().hasOneBlock()) {
    module.emitError("dist-pipeline-schedule needs a mesh and a single-block "
                     "function @")
        << function << " (the partitioned step)";
    return signalPassFailure();
  }
  auto micro = mesh->getAttrOfType<DictionaryAttr>(
      DistDialect::kMicrobatchAxisAttrName);
  ArrayRef<int64_t> shape = mesh.getShape();
  if (!micro) {
    module.emitError("dist-pipeline-schedule: the mesh has no micro-batch "
                     "axis (run dist-pipeline-microbatch before partitioning)");
    return signalPassFailure();
  }
  int64_t axisOfMicro = micro.getAs<IntegerAttr>("axis").getInt();
  microbatches = micro.getAs<IntegerAttr>("microbatches").getInt();
  appended = micro.getAs<BoolAttr>("appended").getValue();
  if (axisOfMicro >= static_cast<int64_t>(shape.size()) ||
      shape[axisOfMicro] % microbatches != 0) {
    module.emitError("dist-pipeline-schedule: bad micro-batch axis");
    return signalPassFailure();
  }
  microDevices = appended ? 1 : shape[axisOfMicro] / microbatches;
  microAxis = microbatches > 1 ? axisOfMicro : -1;
  if (pipelineAxis < 0 ||
      pipelineAxis >= static_cast<int64_t>(shape.size()) ||
      pipelineAxis == axisOfMicro) {
    module.emitError("dist-pipeline-schedule: axis ")
        << pipelineAxis << " is not a device axis of the mesh";
    return signalPassFailure();
  }
  stages = shape[pipelineAxis];
  chunksPerRank = virtualStages;
  chunks = stages * chunksPerRank;
  if (schedule != "gpipe" && schedule != "1f1b" && schedule != "interleaved") {
    module.emitError("dist-pipeline-schedule: unknown schedule '")
        << schedule << "' (gpipe, 1f1b or interleaved)";
    return signalPassFailure();
  }
  if ((schedule == "interleaved") != (chunksPerRank > 1) || chunksPerRank < 1) {
    module.emitError("dist-pipeline-schedule: ")
        << (chunksPerRank > 1
                ? "virtual stages (model chunks per rank) need the "
                  "interleaved schedule"
                : "the interleaved schedule needs virtual-stages >= 2");
    return signalPassFailure();
  }
  if (schedule == "interleaved" && microbatches % stages != 0) {
    module.emitError("dist-pipeline-schedule: the interleaved schedule runs "
                     "micro-batches in groups of the pipeline's ")
        << stages << " stages: microbatches (" << microbatches
        << ") must be a multiple of " << stages;
    return signalPassFailure();
  }
  if (failed(splitMicroCollectives()) || failed(classifyArguments()) ||
      failed(classifyOps()))
    return signalPassFailure();
  while (distributeMicroSums()) {
    forgetClassification();
    if (failed(classifyArguments()) || failed(classifyOps()))
      return signalPassFailure();
  }
  findEarly();

  OpBuilder moduleBuilder(fn);
  SmallVector<func::FuncOp> stageFns;
  for (int64_t s = 0; s < stages; ++s) {
    FailureOr<func::FuncOp> stageFn = buildStage(s, moduleBuilder);
    if (failed(stageFn)) {
      for (func::FuncOp made : stageFns)
        made.erase();
      return signalPassFailure();
    }
    stageFns.push_back(*stageFn);
  }
  if (failed(verifySchedule(stageFns, pipelineAxis)))
    return signalPassFailure();

  // The micro-batches are time, not devices: their axis leaves the mesh,
  // or holds data parallelism's devices again.
  OpBuilder b(mesh);
  SmallVector<int64_t> devices(shape);
  if (appended)
    devices.pop_back();
  else
    devices[axisOfMicro] = microDevices;
  MeshOp::create(b, mesh.getLoc(), mesh.getSymName(), devices);
  mesh.erase();
  for (func::FuncOp stageFn : stageFns)
    stageFn.walk([&](Operation *op) {
      if (!isCollective(op) || !appended)
        return;
      op->removeAttr(DistDialect::kMicrobatchSumAttrName);
      for (NamedAttribute attr : op->getAttrs())
        if (auto axes = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
            axes && attr.getName() == "axes" &&
            hasAxis(axes.asArrayRef(), axisOfMicro))
          op->emitError("internal error: a collective over the micro-batch "
                        "axis is left");
    });
  MLIRContext *ctx = &getContext();
  SmallVector<Attribute> names;
  for (func::FuncOp stageFn : stageFns)
    names.push_back(FlatSymbolRefAttr::get(stageFn.getSymNameAttr()));
  NamedAttrList pipeline;
  pipeline.append("axis", b.getI64IntegerAttr(pipelineAxis));
  pipeline.append("stages", b.getI64IntegerAttr(stages));
  pipeline.append("microbatches", b.getI64IntegerAttr(microbatches));
  pipeline.append("schedule", b.getStringAttr(schedule));
  pipeline.append("virtual_stages", b.getI64IntegerAttr(chunksPerRank));
  pipeline.append("functions", ArrayAttr::get(ctx, names));
  module->setAttr(DistDialect::kPipelineAttrName,
                  pipeline.getDictionary(ctx));
  fn.erase();
}
