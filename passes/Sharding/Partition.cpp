//===- Partition.cpp - The program one rank of the mesh runs --------------===//
//
// Walks an annotated function in order and rebuilds each op on local shards:
// the op's rule and the shardings of its operands decide, per factor, the
// mesh axis it is split over; operands are brought to the sharding that
// needs (collectives where they are held otherwise), and the op is cloned
// with local result types. Reductions over split factors leave partial
// values, combined lazily: linear consumers pass them on, anything else
// first all-reduces (or reduce-scatters) them.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "passes/Sharding/Partitioner.h"

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistParameters.h"
#include "dialects/Dist/Sharding/ShardingRule.h"

#include "mlir/IR/IRMapping.h"

#include <map>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPARTITION
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::detail;

namespace {

bool isPartialSum(const LocalValue &v) {
  return !v.partial.empty() && v.kind == CollectiveKind::sum;
}

/// "dist.matmul at model.onnx:3:7", or "argument #2": what produced a value
/// a collective moves, for dist-explain-plan.
std::string describeOrigin(Value global) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Location loc = global.getLoc();
  if (Operation *def = global.getDefiningOp()) {
    os << def->getName();
  } else {
    auto arg = cast<BlockArgument>(global);
    if (auto fn =
            dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())) {
      auto [role, name] = describeArgument(fn, arg.getArgNumber());
      return (role + " " + name).str();
    }
    os << "argument #" << arg.getArgNumber();
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << " at " << file.getFilename().getValue() << ":" << file.getLine()
       << ":" << file.getColumn();
  else if (auto name = dyn_cast<NameLoc>(loc))
    os << " '" << name.getName().getValue() << "'";
  return text;
}

} // namespace

Value mlir::dist::detail::markOrigin(Value collective, Value global) {
  Operation *op = collective.getDefiningOp();
  op->setLoc(NameLoc::get(
      StringAttr::get(collective.getContext(), describeOrigin(global)),
      op->getLoc()));
  return collective;
}

Value Partitioner::gatherOrSlice(Location loc, Value global, Value v,
                                 int64_t dim, int64_t entry, bool gather) {
  int64_t axis = shardAxis(entry), groups = shardGroups(entry);
  RankedTensorType type = typeOf(v);
  // A strided split is a block split of the dimension viewed as
  // [groups, size / groups].
  SmallVector<int64_t> shape(type.getShape());
  int64_t at = dim;
  if (groups > 1) {
    shape[dim] /= groups;
    shape.insert(shape.begin() + dim, groups);
    at = dim + 1;
    v = ReshapeOp::create(b, loc, type.clone(shape), v);
  }
  if (gather) {
    shape[at] *= mesh[axis];
    v = markOrigin(AllGatherOp::create(b, loc, type.clone(shape), v, at,
                                       ArrayRef<int64_t>{axis}),
                   global);
  } else {
    shape[at] /= mesh[axis];
    v = markOrigin(ShardSliceOp::create(b, loc, type.clone(shape), v, at,
                                        ArrayRef<int64_t>{axis}),
                   global);
  }
  if (groups == 1)
    return v;
  SmallVector<int64_t> merged(type.getShape());
  merged[dim] = shape[at] * groups;
  return ReshapeOp::create(b, loc, type.clone(merged), v);
}

void Partitioner::resolvePartial(Location loc, Value global,
                                 ArrayRef<int64_t> wanted) {
  LocalValue &cur = state[global];
  if (cur.partial.empty())
    return;
  SmallVector<int64_t> rest;
  for (int64_t axis : cur.partial) {
    int64_t dim = -1;
    for (auto [d, want] : llvm::enumerate(wanted))
      if (want == axis && shardGroups(want) == 1 &&
          cur.sharding[d] == kReplicated &&
          typeOf(cur.value).getDimSize(d) % mesh[axis] == 0)
        dim = d;
    // ZeRO stage 1 (no reduce-scatter): the whole sum everywhere, and
    // reshard() then takes this rank's block.
    if (dim < 0 || !reduceScatter) {
      rest.push_back(axis);
      continue;
    }
    SmallVector<int64_t> shape(typeOf(cur.value).getShape());
    shape[dim] /= mesh[axis];
    cur.value = markOrigin(ReduceScatterOp::create(
                               b, loc, typeOf(cur.value).clone(shape), cur.kind,
                               cur.value, dim, ArrayRef<int64_t>{axis}),
                           global);
    cur.sharding[dim] = axis;
  }
  if (!rest.empty())
    cur.value = markOrigin(AllReduceOp::create(b, loc, cur.kind, cur.value,
                                               ArrayRef<int64_t>(rest)),
                           global);
  cur.partial.clear();
}

Value Partitioner::reshard(Location loc, Value global, ArrayRef<int64_t> wanted,
                           bool keepPartial) {
  if (!keepPartial)
    resolvePartial(loc, global, wanted);
  LocalValue &cur = state[global];
  auto key =
      std::make_pair(cur.value.getAsOpaquePointer(),
                     const_cast<void *>(static_cast<const void *>(
                         b.getDenseI64ArrayAttr(wanted).getAsOpaquePointer())));
  if (auto it = reshards.find(key); it != reshards.end())
    return it->second;
  Value v = cur.value;
  SmallVector<int64_t> s = cur.sharding;
  for (size_t d = 0; d < s.size(); ++d) {
    if (s[d] == kReplicated || s[d] == wanted[d])
      continue;
    v = gatherOrSlice(loc, global, v, d, s[d], /*gather=*/true);
    s[d] = kReplicated;
  }
  for (size_t d = 0; d < s.size(); ++d) {
    if (wanted[d] == kReplicated || s[d] == wanted[d])
      continue;
    v = gatherOrSlice(loc, global, v, d, wanted[d], /*gather=*/false);
    s[d] = wanted[d];
  }
  reshards[key] = v;
  return v;
}

Value Partitioner::maskToOneRank(Location loc, Value global, Value v,
                                 ArrayRef<int64_t> axes) {
  Type i1 = b.getI1Type();
  Value &mine = firstRankMasks[SmallVector<int64_t>(axes)];
  if (!mine) {
    int64_t ranks = 1;
    for (int64_t axis : axes)
      ranks *= mesh[axis];
    SmallVector<bool> first(ranks, false);
    first[0] = true;
    Value all = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({ranks}, i1),
                               ArrayRef<bool>(first)));
    mine = markOrigin(ShardSliceOp::create(
                          b, loc, RankedTensorType::get({1}, i1), all, 0, axes),
                      global);
  }
  auto type = typeOf(v);
  Value mask = ReshapeOp::create(
      b, loc,
      RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1), i1), mine);
  Value zero = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, type.getElementType()),
                             b.getZeroAttr(type.getElementType())));
  return SelectOp::create(b, loc, type, mask, v, zero);
}

SmallVector<unsigned>
Partitioner::linearPartialOperands(Operation *op,
                                   SmallVector<unsigned> &masked) {
  masked.clear();
  SmallVector<unsigned> partial, other;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    const LocalValue &l = state[v];
    if (isPartialSum(l))
      partial.push_back(i);
    else if (!l.partial.empty())
      return {};
    else
      other.push_back(i);
  }
  if (partial.empty())
    return {};
  auto sameAxes = [&] {
    return llvm::all_of(partial, [&](unsigned i) {
      return state[op->getOperand(i)].partial ==
             state[op->getOperand(partial[0])].partial;
    });
  };
  // Sums of partial sums (and of whole scalars, masked to one rank), and
  // maps linear in their one partial operand.
  if (isa<AddOp, SubOp>(op)) {
    if (!sameAxes())
      return {};
    bool scalars = llvm::all_of(other, [&](unsigned i) {
      auto type = typeOf(op->getOperand(i));
      return type.getNumElements() == 1 &&
             type.getRank() <= typeOf(op->getResult(0)).getRank() &&
             isa<FloatType>(type.getElementType());
    });
    if (!scalars)
      return {};
    masked = other;
    return partial;
  }
  if (isa<NegOp, ReshapeOp, TransposeOp, ReduceSumOp, BroadcastOp, SliceOp>(op))
    return partial;
  if (isa<MulOp, MatmulOp>(op) ||
      (isa<GemmOp>(op) && !cast<GemmOp>(op).getBias()))
    return partial.size() == 1 ? partial : SmallVector<unsigned>{};
  if (isa<DivOp>(op))
    return partial.size() == 1 && partial[0] == 0 ? partial
                                                  : SmallVector<unsigned>{};
  return {};
}

/// A mean over split positions: the sum over this rank's positions and the
/// number of positions counted, each summed over the ranks, then divided,
/// so the result is exactly the mean over all positions.
bool Partitioner::partitionMeanLoss(Operation *op, const ShardingRule &rule,
                                    ArrayRef<int64_t> factors) {
  auto reduction = op->getAttrOfType<LossReductionAttr>("reduction");
  if (!reduction || reduction.getValue() != LossReduction::mean)
    return false;
  SmallVector<int64_t> axes;
  for (auto [f, axis] : llvm::enumerate(factors))
    if (axis != kReplicated && rule.factorKinds[f] == FactorKind::Reduction)
      axes.push_back(shardAxis(axis));
  if (axes.empty())
    return false;
  llvm::sort(axes);
  Location loc = op->getLoc();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    map.map(v, reshard(loc, v,
                       shardingFromFactors(rule, rule.operands[i], factors)));
  Operation *sum = b.clone(*op, map);
  sum->setAttr("reduction",
               LossReductionAttr::get(b.getContext(), LossReduction::sum));
  sum->removeAttr(DistDialect::kShardingAttrName);
  auto scalar = cast<RankedTensorType>(op->getResult(0).getType());
  Value labels = map.lookup(op->getOperand(1));
  Value count;
  auto ignore = op->getAttrOfType<IntegerAttr>("ignore_index");
  if (ignore) {
    auto labelType = typeOf(labels);
    Value ignored = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({}, labelType.getElementType()),
            b.getIntegerAttr(labelType.getElementType(), ignore.getInt())));
    Value kept =
        CompareOp::create(b, loc, ComparePredicate::ne, labels, ignored);
    Value keptF =
        CastOp::create(b, loc, labelType.clone(scalar.getElementType()), kept);
    SmallVector<int64_t> all =
        llvm::to_vector(llvm::seq<int64_t>(0, labelType.getRank()));
    count =
        ReduceSumOp::create(b, loc, keptF, b.getDenseI64ArrayAttr(all), false);
    count = markOrigin(AllReduceOp::create(b, loc, CollectiveKind::sum, count,
                                           ArrayRef<int64_t>(axes)),
                       op->getResult(0));
  } else {
    int64_t n = typeOf(op->getOperand(1)).getNumElements();
    count = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            scalar, b.getFloatAttr(scalar.getElementType(), double(n))));
  }
  Value total = markOrigin(AllReduceOp::create(b, loc, CollectiveKind::sum,
                                               sum->getResult(0),
                                               ArrayRef<int64_t>(axes)),
                           op->getResult(0));
  Value mean = DivOp::create(b, loc, total, count);
  state[op->getResult(0)] = {mean, replicated(op->getResult(0)), {}, {}};
  return true;
}

LogicalResult Partitioner::partitionOp(Operation *op) {
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  std::string why;
  std::optional<ShardingRule> rule = getShardingRule(op, why);
  if (!rule) {
    // Computed whole on every rank.
    IRMapping map;
    for (Value v : op->getOperands())
      map.map(v, reshard(loc, v, replicated(v)));
    Operation *clone = b.clone(*op, map);
    clone->removeAttr(DistDialect::kShardingAttrName);
    for (auto [r, n] : llvm::zip(op->getResults(), clone->getResults()))
      state[r] = {n, replicated(r), {}, {}};
    return success();
  }
  SmallVector<const SmallVector<int64_t> *> operands, results;
  for (Value v : op->getOperands())
    operands.push_back(&state[v].sharding);
  SmallVector<SmallVector<int64_t>> resultShardings;
  if (auto attr = op->getAttrOfType<ArrayAttr>(DistDialect::kShardingAttrName))
    for (Attribute a : attr)
      resultShardings.emplace_back(cast<DenseI64ArrayAttr>(a).asArrayRef());
  for (auto &s : resultShardings)
    results.push_back(&s);
  SmallVector<int64_t> factors =
      mergeFactorAxes(*rule, operands, results, mesh);

  bool splitCollective = false;
  for (auto [f, axis] : llvm::enumerate(factors))
    splitCollective |=
        axis != kReplicated && rule->factorKinds[f] == FactorKind::Collective;
  if (splitCollective) {
    if (partitionSplitOp(op, *rule, factors))
      return success();
    // No collective form: the op takes those factors whole.
    for (size_t f = 0; f < factors.size(); ++f)
      if (rule->factorKinds[f] == FactorKind::Collective)
        factors[f] = kReplicated;
  }
  if (isa<CrossEntropyOp, NllLossOp>(op) &&
      partitionMeanLoss(op, *rule, factors))
    return success();

  SmallVector<unsigned> masked;
  SmallVector<unsigned> keep = linearPartialOperands(op, masked);
  SmallVector<int64_t> passedPartial;
  if (!keep.empty()) {
    passedPartial = state[op->getOperand(keep[0])].partial;
    if (llvm::any_of(factors, [&](int64_t axis) {
          return llvm::is_contained(passedPartial, shardAxis(axis));
        })) {
      keep.clear();
      masked.clear();
      passedPartial.clear();
    }
  }
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    Value local =
        reshard(loc, v, shardingFromFactors(*rule, rule->operands[i], factors),
                llvm::is_contained(keep, i));
    if (llvm::is_contained(masked, i))
      local = maskToOneRank(loc, op->getResult(0), local, passedPartial);
    map.map(v, local);
  }
  Operation *clone = b.clone(*op, map);
  clone->removeAttr(DistDialect::kShardingAttrName);
  SmallVector<int64_t> partial = passedPartial;
  for (auto [f, axis] : llvm::enumerate(factors))
    if (axis != kReplicated && rule->factorKinds[f] == FactorKind::Reduction)
      partial.push_back(shardAxis(axis));
  llvm::sort(partial);
  for (auto [r, result] : llvm::enumerate(op->getResults())) {
    SmallVector<int64_t> sharding =
        shardingFromFactors(*rule, rule->results[r], factors);
    clone->getResult(r).setType(localType(typeOf(result), sharding, mesh));
    state[result] = {clone->getResult(r), sharding, partial,
                     passedPartial.empty() ? rule->reduction
                                           : CollectiveKind::sum};
  }
  return success();
}

LogicalResult Partitioner::run() {
  Block &body = fn.getBody().front();
  // The ranges of index inputs, read while the ops that show them are whole.
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (typeOf(fn.getArgument(i)).getElementType().isInteger() &&
        !fn.getArgAttr(i, DistDialect::kIndexRangeAttrName))
      if (std::optional<int64_t> range = indexRange(fn, i)) {
        fn.setArgAttr(i, DistDialect::kIndexRangeAttrName,
                      b.getI64IntegerAttr(*range));
        if (std::optional<int64_t> ignore = indexIgnore(fn, i))
          fn.setArgAttr(i, DistDialect::kIndexIgnoreAttrName,
                        b.getI64IntegerAttr(*ignore));
      }
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    BlockArgument arg = fn.getArgument(i);
    SmallVector<int64_t> sharding = replicated(arg);
    if (auto s = fn.getArgAttrOfType<DenseI64ArrayAttr>(
            i, DistDialect::kShardingAttrName))
      sharding.assign(s.asArrayRef().begin(), s.asArrayRef().end());
    // The local argument is a new one: rules read the global types of the
    // original values until the walk is over.
    Value local =
        body.addArgument(localType(typeOf(arg), sharding, mesh), arg.getLoc());
    state[arg] = {local, sharding, {}, {}};
  }
  unsigned numGlobalArgs = fn.getNumArguments();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(partitionOp(op)))
      return failure();
  Operation *ret = body.getTerminator();
  b.setInsertionPoint(ret);
  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    SmallVector<int64_t> sharding = replicated(v);
    if (auto s = fn.getResultAttrOfType<DenseI64ArrayAttr>(
            i, DistDialect::kShardingAttrName))
      sharding.assign(s.asArrayRef().begin(), s.asArrayRef().end());
    results.push_back(reshard(ret->getLoc(), v, sharding));
    resultTypes.push_back(results.back().getType());
  }
  func::ReturnOp::create(b, ret->getLoc(), results);
  ret->erase();
  for (Operation *op : llvm::reverse(ops)) {
    op->dropAllUses();
    op->erase();
  }
  body.eraseArguments(0, numGlobalArgs);
  fn.setType(
      FunctionType::get(fn.getContext(), body.getArgumentTypes(), resultTypes));
  fn->setAttr(kPartitionedAttrName, UnitAttr::get(fn.getContext()));
  return success();
}

namespace {

struct DistPartitionPass : dist::impl::DistPartitionBase<DistPartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseI64ArrayAttr mesh = getMesh(module);
    if (!mesh)
      return;
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (fn.isExternal() || fn->hasAttr(kPartitionedAttrName))
        continue;
      if (!hasShardingAnnotations(fn))
        continue;
      if (failed(Partitioner(fn, mesh.asArrayRef(), reduceScatter).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
