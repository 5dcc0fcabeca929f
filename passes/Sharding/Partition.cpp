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
                                 int64_t dim, DimSharding entry, bool gather) {
  int64_t axis = entry.axis, groups = entry.groups;
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
    shape[at] *= meshShape[axis];
    v = markOrigin(AllGatherOp::create(b, loc, type.clone(shape), v, at,
                                       ArrayRef<int64_t>{axis}),
                   global);
  } else {
    shape[at] /= meshShape[axis];
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
                                 ArrayRef<DimSharding> wanted) {
  LocalValue &cur = state[global];
  if (cur.partial.empty())
    return;
  SmallVector<int64_t> rest;
  for (int64_t axis : cur.partial) {
    int64_t dim = -1;
    for (auto [d, want] : llvm::enumerate(wanted))
      if (want == DimSharding::split(axis) && !cur.sharding[d].isSplit() &&
          typeOf(cur.value).getDimSize(d) % meshShape[axis] == 0)
        dim = d;
    // ZeRO stage 1 (no reduce-scatter): the whole sum everywhere, and
    // reshard() then takes this rank's block.
    if (dim < 0 || !reduceScatter) {
      rest.push_back(axis);
      continue;
    }
    SmallVector<int64_t> shape(typeOf(cur.value).getShape());
    shape[dim] /= meshShape[axis];
    cur.value = markOrigin(ReduceScatterOp::create(
                               b, loc, typeOf(cur.value).clone(shape), cur.kind,
                               cur.value, dim, ArrayRef<int64_t>{axis}),
                           global);
    cur.sharding[dim] = DimSharding::split(axis);
  }
  if (!rest.empty())
    cur.value = markOrigin(AllReduceOp::create(b, loc, cur.kind, cur.value,
                                               ArrayRef<int64_t>(rest)),
                           global);
  cur.partial.clear();
}

Value Partitioner::reshard(Location loc, Value global,
                           ArrayRef<DimSharding> wanted, bool keepPartial) {
  if (!keepPartial)
    resolvePartial(loc, global, wanted);
  LocalValue &cur = state[global];
  auto key = std::make_pair(
      cur.value.getAsOpaquePointer(),
      ShardingAttr::get(b.getContext(), wanted).getAsOpaquePointer());
  if (auto it = reshards.find(key); it != reshards.end())
    return it->second;
  Value v = cur.value;
  SmallVector<DimSharding> s = cur.sharding;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!s[d].isSplit() || s[d] == wanted[d])
      continue;
    v = gatherOrSlice(loc, global, v, d, s[d], /*gather=*/true);
    s[d] = DimSharding::replicated();
  }
  for (size_t d = 0; d < s.size(); ++d) {
    if (!wanted[d].isSplit() || s[d] == wanted[d])
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
      ranks *= meshShape[axis];
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
  // A 16-bit partial sum widened to float32 (a mixed-precision product's
  // result): widening each rank's part is exact, so the sum may be taken
  // after it, in float32, when reduce-widened asks for that.
  // A compressed gradient (dist-optimizer{grad-compression}): each rank
  // rounds its part, and the sum is taken after it, in the narrow type (and
  // never widened again before it: that would undo the compression).
  if (auto castOp = dyn_cast<CastOp>(op)) {
    if (castOp->hasAttr(DistDialect::kCompressedAttrName))
      return partial;
    auto narrowed = castOp.getOperand().getDefiningOp<CastOp>();
    bool compressed =
        narrowed && narrowed->hasAttr(DistDialect::kCompressedAttrName);
    Type from = getElementTypeOrSelf(castOp.getOperand().getType());
    Type to = getElementTypeOrSelf(castOp.getType());
    if (reduceWidened && !compressed && (from.isBF16() || from.isF16()) &&
        to.isF32())
      return partial;
  }
  // Sums of partial sums (and of whole scalars, masked to one rank), and
  // maps linear in their partial operands.
  auto sharding = dyn_cast<ShardingOpInterface>(op);
  PartialSums kind = sharding ? sharding.getPartialSums() : PartialSums::none;
  switch (kind) {
  case PartialSums::none:
    return {};
  case PartialSums::linear:
    return partial;
  case PartialSums::oneFactor:
    return partial.size() == 1 ? partial : SmallVector<unsigned>{};
  case PartialSums::numerator:
    return partial.size() == 1 && partial[0] == 0 ? partial
                                                  : SmallVector<unsigned>{};
  case PartialSums::scatterUpdates:
    return partial.size() == 1 && partial[0] == 2 ? partial
                                                  : SmallVector<unsigned>{};
  case PartialSums::sum: {
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
  }
  return {};
}

SmallVector<Value> Partitioner::localOperands(Operation *op,
                                              const ShardingRule &rule,
                                              ArrayRef<DimSharding> factors) {
  SmallVector<Value> values;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    values.push_back(reshard(
        op->getLoc(), v, shardingFromFactors(rule, rule.operands[i], factors)));
  return values;
}

Value Partitioner::allReduce(Location loc, Value global, CollectiveKind kind,
                             Value value, ArrayRef<int64_t> axes) {
  return markOrigin(AllReduceOp::create(b, loc, kind, value, axes), global);
}

Value Partitioner::blockStart(Location loc, Value global, int64_t size,
                              int64_t axis, Type elementType) {
  int64_t ranks = meshShape[axis];
  SmallVector<Attribute> starts;
  for (int64_t r = 0; r < ranks; ++r)
    starts.push_back(b.getIntegerAttr(elementType, r * (size / ranks)));
  Value all = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({ranks}, elementType),
                             starts));
  return markOrigin(
      ShardSliceOp::create(b, loc, RankedTensorType::get({1}, elementType), all,
                           0, ArrayRef<int64_t>{axis}),
      global);
}

void Partitioner::setResult(Value global, Value local,
                            ArrayRef<DimSharding> sharding,
                            ArrayRef<int64_t> partial) {
  state[global] = {local, SmallVector<DimSharding>(sharding),
                   SmallVector<int64_t>(partial), CollectiveKind::sum};
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
  SmallVector<const SmallVector<DimSharding> *> operands, results;
  for (Value v : op->getOperands())
    operands.push_back(&state[v].sharding);
  SmallVector<SmallVector<DimSharding>> resultShardings;
  if (auto attr = op->getAttrOfType<ArrayAttr>(DistDialect::kShardingAttrName))
    for (auto [r, a] : llvm::enumerate(attr)) {
      FailureOr<SmallVector<DimSharding>> dims = cast<ShardingAttr>(a).getDims(
          [&] { return op->emitError(); }, "result #" + std::to_string(r));
      if (failed(dims))
        return failure();
      resultShardings.push_back(std::move(*dims));
    }
  for (auto &s : resultShardings)
    results.push_back(&s);
  SmallVector<DimSharding> factors =
      mergeFactorAxes(*rule, operands, results, meshShape);
  if (auto parts = dyn_cast<BroadcastOp>(op);
      parts && op->hasAttr(DistDialect::kRankPartsAttrName))
    return partitionRankParts(parts, factors);

  bool splitCollective = false;
  for (auto [f, axis] : llvm::enumerate(factors))
    splitCollective |=
        axis.isSplit() && rule->factorKinds[f] == FactorKind::Collective;
  // The op's own rebuilding (collectives for a split Collective factor, a
  // mean over split positions); without one, Collective factors are taken
  // whole.
  auto sharding = cast<ShardingOpInterface>(op);
  if (sharding.partition(*this, *rule, factors))
    return success();
  if (splitCollective) {
    for (size_t f = 0; f < factors.size(); ++f)
      if (rule->factorKinds[f] == FactorKind::Collective)
        factors[f] = DimSharding::replicated();
    if (sharding.partition(*this, *rule, factors))
      return success();
  }

  SmallVector<unsigned> masked;
  SmallVector<unsigned> keep = linearPartialOperands(op, masked);
  SmallVector<int64_t> passedPartial;
  if (!keep.empty()) {
    passedPartial = state[op->getOperand(keep[0])].partial;
    auto splitOnPartial = [&](DimSharding axis) {
      return axis.isSplit() && llvm::is_contained(passedPartial, axis.axis);
    };
    // A compressed gradient wanted split over the axis it is partial on
    // (ZeRO): rounded whole, still partial, so that its reader's reshard
    // reduce-scatters (or all-reduces and slices) the narrow type.
    if (isa<CastOp>(op) && op->hasAttr(DistDialect::kCompressedAttrName))
      for (DimSharding &axis : factors)
        if (splitOnPartial(axis))
          axis = DimSharding::replicated();
    if (llvm::any_of(factors, splitOnPartial)) {
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
    if (axis.isSplit() && rule->factorKinds[f] == FactorKind::Reduction)
      partial.push_back(axis.axis);
  llvm::sort(partial);
  for (auto [r, result] : llvm::enumerate(op->getResults())) {
    SmallVector<DimSharding> sharding =
        shardingFromFactors(*rule, rule->results[r], factors);
    clone->getResult(r).setType(localType(typeOf(result), sharding, meshShape));
    state[result] = {clone->getResult(r), sharding, partial,
                     passedPartial.empty() ? rule->reduction
                                           : CollectiveKind::sum};
  }
  // A sum over the ranks' stacked parts (PowerSGD's P and Q) is taken whole
  // where it is made: its readers are not linear, and their parts (a
  // column of P) would each be reduced on their own.
  if (op->hasAttr(DistDialect::kRankSumAttrName))
    resolvePartial(loc, op->getResult(0), state[op->getResult(0)].sharding);
  return success();
}

LogicalResult Partitioner::partitionRankParts(BroadcastOp op,
                                              ArrayRef<DimSharding> factors) {
  Location loc = op.getLoc();
  // Factor 0 is the result's dimension 0 (BroadcastSharding).
  DimSharding stack = factors[0];
  int64_t ranks = typeOf(op.getResult()).getDimSize(0);
  if (!stack.isSplit() || stack.groups != 1 ||
      meshShape[stack.axis] != ranks)
    return op.emitError("the ranks' parts of a sum (dist.rank_parts), "
                        "stacked on a dimension of ")
           << ranks << ", must be split over a mesh axis of " << ranks
           << " ranks; annotate the per-rank state (dist.per_rank) with "
              "dist-data-parallel";
  Value input = op.getInput();
  LocalValue &held = state[input];
  SmallVector<int64_t> otherPartial;
  for (int64_t axis : held.partial)
    if (axis != stack.axis)
      otherPartial.push_back(axis);
  if (!otherPartial.empty() || (!held.partial.empty() && !isPartialSum(held)))
    return op.emitError("the ranks' parts of a value that is pending a "
                        "reduction other than a sum over mesh axis ")
           << stack.axis << " (dist.rank_parts)";
  SmallVector<DimSharding> operandSharding(factors.drop_front());
  bool partial = !held.partial.empty();
  Value local = reshard(loc, input, operandSharding, /*keepPartial=*/partial);
  if (!partial)
    local = maskToOneRank(loc, op.getResult(), local, {stack.axis});
  SmallVector<int64_t> shape(typeOf(local).getShape());
  shape.insert(shape.begin(), 1);
  auto clone = BroadcastOp::create(b, loc, typeOf(local).clone(shape), local);
  clone->setAttr(DistDialect::kRankPartsAttrName, b.getUnitAttr());
  SmallVector<DimSharding> sharding(factors);
  setResult(op.getResult(), clone, sharding, {});
  return success();
}

LogicalResult Partitioner::readSharding(ShardingAttr attr, StringRef what,
                                        SmallVectorImpl<DimSharding> &out) {
  if (!attr)
    return success();
  if (!attr.getPartialAxes().empty())
    return fn.emitError("the sharding of ")
           << what << " is partial; dist-partition takes and returns whole "
           << "sums (drop 'partial' from " << attr << ")";
  FailureOr<SmallVector<DimSharding>> dims =
      attr.getDims([&] { return fn.emitError(); }, what);
  if (failed(dims))
    return failure();
  out.assign(dims->begin(), dims->end());
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
    SmallVector<DimSharding> sharding = replicated(arg);
    if (failed(readSharding(getArgSharding(fn, i),
                            "argument #" + std::to_string(i), sharding)))
      return failure();
    // The local argument is a new one: rules read the global types of the
    // original values until the walk is over.
    Value local = body.addArgument(localType(typeOf(arg), sharding, meshShape),
                                   arg.getLoc());
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
    SmallVector<DimSharding> sharding = replicated(v);
    if (failed(readSharding(getResultSharding(fn, i),
                            "result #" + std::to_string(i), sharding)))
      return failure();
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
  fn->setAttr(DistDialect::kPartitionedAttrName,
              UnitAttr::get(fn.getContext()));
  return success();
}

namespace {

struct DistPartitionPass : dist::impl::DistPartitionBase<DistPartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp mesh = getMesh(module);
    if (!mesh)
      return;
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (fn.isExternal() || fn->hasAttr(DistDialect::kPartitionedAttrName))
        continue;
      if (!hasShardingAnnotations(fn))
        continue;
      if (failed(Partitioner(fn, mesh.getShape(), reduceScatter, reduceWidened)
                         .run()))
        return signalPassFailure();
    }
  }
};

} // namespace
