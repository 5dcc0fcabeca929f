//===- PipelineZero.cpp - ZeRO-1 inside the stages of a pipeline ---------===//
//
// Data parallelism inside a pipeline stage keeps every parameter's
// optimizer state whole on each of the D ranks that run the stage. ZeRO-1
// splits it: each rank keeps 1/D of the state, updates 1/D of the
// parameter from the whole (all-reduced) gradient, and the ranks all-gather
// the updated parameter.
//
// Without pipelines the sharding annotation does this (dist-data-parallel
// zero=1, then propagation). With them, the data-parallel axis also holds
// the micro-batches while the step is partitioned, and the state would be
// split over (device, micro-batch) pairs; so this pass works on the stages'
// programs instead, after dist-pipeline-schedule. For each parameter a
// stage holds, the update is the elementwise ops (with scalar operands)
// between the parameter, its gradient and its state and the updated
// parameter and state: those are rebuilt on this rank's block of a
// dimension that D divides, their other operands sliced to it. The values
// are the same ones, element for element, so the losses are bit-identical
// to the run without ZeRO.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/OpCost.h"
#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPIPELINEZERO
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

RankedTensorType tensorType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

struct DistPipelineZeroPass
    : dist::impl::DistPipelineZeroBase<DistPipelineZeroPass> {
  using Base::Base;

  int64_t ranks = 1;

  /// The update of one parameter: its argument, its state's, and the
  /// results updating them.
  struct Update {
    unsigned param;
    std::string name;
    SmallVector<unsigned> states;
    DenseMap<unsigned, unsigned> resultOf; // argument -> result updating it
  };

  /// The state arguments split, with their block type and sharding: the
  /// other stages' programs (which do not read them) get the same, so that
  /// every stage describes the same arguments.
  DenseMap<unsigned, std::pair<Type, ShardingAttr>> splitStates;

  /// Splits the update `u` of `fn` over the data-parallel axis, or says
  /// (a remark) why its state stays whole.
  void split(func::FuncOp fn, const Update &u) {
    Block &body = fn.getBody().front();
    Operation *terminator = body.getTerminator();
    RankedTensorType full = tensorType(body.getArgument(u.param));
    auto keepWhole = [&](const Twine &why) {
      emitRemark(fn.getLoc(), "ZeRO-1 in ")
          << fn.getSymName() << ": the optimizer state of '" << u.name
          << "' stays whole: " << why;
    };
    // A dimension the ranks divide that no other axis splits.
    ShardingAttr sharding = getArgSharding(fn, u.param);
    SmallVector<DimSharding> dims = replicatedSharding(full.getRank());
    if (sharding) {
      FailureOr<SmallVector<DimSharding>> current =
          sharding.getDims([&] { return fn.emitError(); }, u.name);
      if (failed(current))
        return signalPassFailure();
      dims = *current;
    }
    std::optional<int64_t> dim;
    for (int64_t d = 0; d < full.getRank() && !dim; ++d)
      if (!dims[d].isSplit() && full.getDimSize(d) % ranks == 0)
        dim = d;
    if (!dim)
      return keepWhole("no dimension of its type " + describe(full) +
                       " (on this rank) that " + Twine(ranks) +
                       " divides and no other mesh axis splits");
    for (unsigned s : u.states)
      if (body.getArgument(s).getType() != full)
        return keepWhole("a state's type differs from the parameter's");

    // The ops of the update: back from the updated parameter and state
    // through pointwise ops of the parameter's shape.
    SetVector<Operation *> ops;
    SmallVector<Value> work;
    SmallVector<unsigned> updated = {u.param};
    updated.append(u.states.begin(), u.states.end());
    for (unsigned a : updated)
      work.push_back(terminator->getOperand(u.resultOf.lookup(a)));
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || ops.contains(def) || !isPointwise(def) ||
          tensorType(v).getShape() != full.getShape())
        continue;
      ops.insert(def);
      work.append(def->operand_begin(), def->operand_end());
    }
    // The state is read by the update alone, and the update's values are
    // its own (nothing else reads them but the step's results).
    for (unsigned s : u.states)
      for (Operation *user : body.getArgument(s).getUsers())
        if (!ops.contains(user))
          return keepWhole("its state is read outside its update");
    for (Operation *op : ops)
      for (Operation *user : op->getUsers())
        if (user != terminator && !ops.contains(user))
          return keepWhole("a value of its update is read by '" +
                           user->getName().getStringRef() + "'");
    // The other operands: whole values of the parameter's shape (sliced),
    // and scalars.
    for (Operation *op : ops)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && ops.contains(def))
          continue;
        RankedTensorType type = tensorType(operand);
        if (!type || (type.getRank() != 0 && type.getShape() != full.getShape()))
          return keepWhole("its update reads a value of type " +
                           describe(operand.getType()) +
                           " (neither a scalar nor of the parameter's shape)");
      }

    // Rebuild the update on this rank's block, before the return.
    OpBuilder b(terminator);
    Location loc = NameLoc::get(
        b.getStringAttr("optimizer update of parameter '" + u.name + "'"),
        fn.getLoc());
    auto block = [&](RankedTensorType type) {
      SmallVector<int64_t> shape(type.getShape());
      shape[*dim] /= ranks;
      return type.clone(shape);
    };
    SmallVector<int64_t> axes = {axis};
    IRMapping mapping;
    DenseMap<Value, Value> sliced;
    for (unsigned s : u.states) {
      BlockArgument arg = body.getArgument(s);
      arg.setType(block(full));
      mapping.map(arg, arg);
    }
    // Block order: operands before users.
    SmallVector<Operation *> order(ops.begin(), ops.end());
    llvm::sort(order, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    for (Operation *op : order) {
      for (Value operand : op->getOperands()) {
        if (mapping.contains(operand) || tensorType(operand).getRank() == 0)
          continue;
        auto slice = ShardSliceOp::create(
            b, loc, block(tensorType(operand)), operand, *dim, axes);
        mapping.map(operand, slice.getResult());
      }
      Operation *clone = b.clone(*op, mapping);
      clone->getResult(0).setType(block(tensorType(op->getResult(0))));
    }
    // The state's updates stay blocks; the parameter's is gathered.
    dims[*dim] = DimSharding::split(axis);
    auto blockSharding = ShardingAttr::get(&getContext(), dims);
    for (unsigned s : u.states) {
      unsigned r = u.resultOf.lookup(s);
      terminator->setOperand(
          r, mapping.lookup(terminator->getOperand(r)));
      fn.setArgAttr(s, DistDialect::kShardingAttrName, blockSharding);
      splitStates[s] = {block(full), blockSharding};
      fn.setResultAttr(r, DistDialect::kShardingAttrName, blockSharding);
    }
    unsigned r = u.resultOf.lookup(u.param);
    Value gathered = AllGatherOp::create(
        b, loc, full, mapping.lookup(terminator->getOperand(r)), *dim, axes);
    terminator->setOperand(r, gathered);
    for (Operation *op : llvm::reverse(order))
      op->erase();
  }

  static std::string describe(Type type) {
    std::string text;
    llvm::raw_string_ostream(text) << type;
    return text;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp mesh = getMesh(module);
    auto pipeline =
        module->getAttrOfType<DictionaryAttr>(DistDialect::kPipelineAttrName);
    if (!mesh || !pipeline) {
      module.emitError("dist-pipeline-zero works on the stages' programs: "
                       "run dist-pipeline-schedule first");
      return signalPassFailure();
    }
    ArrayRef<int64_t> shape = mesh.getShape();
    auto pipelineAxis = pipeline.getAs<IntegerAttr>("axis");
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) ||
        (pipelineAxis && pipelineAxis.getInt() == axis)) {
      module.emitError("dist-pipeline-zero: axis ")
          << axis << " is not a data-parallel axis of the mesh";
      return signalPassFailure();
    }
    ranks = shape[axis];
    if (ranks == 1)
      return;
    auto functions = pipeline.getAs<ArrayAttr>("functions");
    for (auto [stage, name] : llvm::enumerate(functions)) {
      auto fn = module.lookupSymbol<func::FuncOp>(
          cast<FlatSymbolRefAttr>(name).getValue());
      if (!fn || fn.isExternal())
        continue;
      // The parameters this stage holds, with their state.
      SmallVector<Update> updates;
      DenseMap<Attribute, unsigned> byParameter;
      auto heldHere = [&](unsigned i) {
        auto at = fn.getArgAttrOfType<IntegerAttr>(i, DistDialect::kStageAttrName);
        return at && at.getInt() == static_cast<int64_t>(stage);
      };
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (FlatSymbolRefAttr ref = getParameterRef(fn, i); ref && heldHere(i)) {
          byParameter[ref] = updates.size();
          Update u;
          u.param = i;
          u.name = ref.getValue().str();
          updates.push_back(std::move(u));
        }
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (auto state = fn.getArgAttrOfType<OptimizerStateAttr>(
                i, DistDialect::kOptimizerStateAttrName);
            state && state.getParameter() && heldHere(i) &&
            byParameter.count(state.getParameter()))
          updates[byParameter.lookup(state.getParameter())].states.push_back(i);
      for (unsigned r = 0; r < fn.getNumResults(); ++r)
        if (auto of = fn.getResultAttrOfType<IntegerAttr>(
                r, DistDialect::kUpdatesAttrName))
          for (Update &u : updates)
            if (u.param == of.getInt() || llvm::is_contained(u.states, of.getInt()))
              u.resultOf[of.getInt()] = r;
      for (const Update &u : updates) {
        // A frozen parameter, or an optimizer without state (SGD).
        if (u.states.empty() || u.resultOf.size() != u.states.size() + 1)
          continue;
        split(fn, u);
      }
    }
    // Every stage's program takes the split state (only its holder reads
    // it).
    for (Attribute name : functions) {
      auto fn = module.lookupSymbol<func::FuncOp>(
          cast<FlatSymbolRefAttr>(name).getValue());
      if (!fn || fn.isExternal())
        continue;
      Block &body = fn.getBody().front();
      for (auto &[s, split] : splitStates) {
        BlockArgument arg = body.getArgument(s);
        if (arg.getType() == split.first)
          continue;
        if (!arg.use_empty()) {
          fn.emitError("internal error: optimizer state argument #")
              << s << " is read by a stage that does not hold it";
          return signalPassFailure();
        }
        arg.setType(split.first);
        fn.setArgAttr(s, DistDialect::kShardingAttrName, split.second);
      }
      fn.setType(FunctionType::get(&getContext(), body.getArgumentTypes(),
                                   body.getTerminator()->getOperandTypes()));
    }
  }
};

} // namespace
