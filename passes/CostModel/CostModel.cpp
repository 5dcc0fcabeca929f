//===- CostModel.cpp - Predicted time of a distributed step --------------===//

#include "passes/CostModel/CostModel.h"

#include "passes/Sharding/OpCost.h"

#include "dialects/Dist/IR/DistDialect.h"
#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistParameters.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::cost;

SmallVector<Link> mlir::dist::cost::meshLinks(const DeviceSpec &spec,
                                              ArrayRef<int64_t> mesh) {
  SmallVector<Link> links(mesh.size());
  int64_t inner = 1; // devices per step along axes after this one
  for (int64_t axis = static_cast<int64_t>(mesh.size()) - 1; axis >= 0;
       --axis) {
    inner *= mesh[axis];
    links[axis] = inner <= spec.devicesPerHost ? spec.intraHost
                                               : spec.interHost;
  }
  return links;
}

double mlir::dist::cost::collectiveSeconds(Collective kind, int64_t n,
                                           double bytes, Link link) {
  if (n <= 1 && kind != Collective::pointToPoint)
    return 0;
  double steps = static_cast<double>(n - 1);
  double perRank = bytes / static_cast<double>(n);
  switch (kind) {
  case Collective::allReduce:
    return 2 * steps * perRank / link.bandwidth + 2 * steps * link.latency;
  case Collective::allGather:
  case Collective::reduceScatter:
    return steps * perRank / link.bandwidth + steps * link.latency;
  case Collective::pointToPoint:
    return bytes / link.bandwidth + link.latency;
  }
  return 0;
}

double mlir::dist::cost::computeSeconds(const DeviceSpec &spec,
                                        Precision precision, double flops,
                                        double bytes) {
  double arithmetic =
      flops / (spec.peakFlops[static_cast<int>(precision)] *
               spec.gemmEfficiency);
  double memory = bytes / (spec.memoryBandwidth * spec.memoryEfficiency);
  return std::max(arithmetic, memory);
}

namespace {

/// The precision of `op`'s products: its first operand's element type.
Precision precisionOf(Operation *op, const CostOptions &options) {
  Type element;
  if (op->getNumOperands())
    if (auto type = dyn_cast<ShapedType>(op->getOperand(0).getType()))
      element = type.getElementType();
  if (element && element.isBF16())
    return Precision::bf16;
  if (element && element.isF16())
    return Precision::fp16;
  return options.tf32 ? Precision::tf32 : Precision::fp32;
}

/// The group a collective spans: its size and slowest link.
std::pair<int64_t, Link> groupOf(ArrayRef<int64_t> axes,
                                 ArrayRef<int64_t> mesh,
                                 ArrayRef<Link> links) {
  int64_t n = 1;
  Link link{std::numeric_limits<double>::infinity(), 0};
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= static_cast<int64_t>(mesh.size()))
      continue;
    n *= mesh[axis];
    link.bandwidth = std::min(link.bandwidth, links[axis].bandwidth);
    link.latency = std::max(link.latency, links[axis].latency);
  }
  return {n, link};
}

/// The bytes a pointwise op moves once fused with its pointwise neighbours
/// (as dist-fuse-elementwise does): operands that no pointwise op makes,
/// and its result where a non-pointwise op (or the return) reads it.
double fusedBytes(Operation *op) {
  double bytes = 0;
  for (Value v : op->getOperands()) {
    Operation *def = v.getDefiningOp();
    if (!def || !isPointwise(def))
      bytes += static_cast<double>(tensorBytes(v.getType()));
  }
  Value result = op->getResult(0);
  if (llvm::any_of(result.getUsers(),
                   [](Operation *user) { return !isPointwise(user); }))
    bytes += static_cast<double>(tensorBytes(result.getType()));
  return bytes;
}

} // namespace

double mlir::dist::cost::collectiveSeconds(const DeviceSpec &spec,
                                           Collective kind,
                                           ArrayRef<int64_t> axes,
                                           ArrayRef<int64_t> mesh,
                                           double bytes) {
  SmallVector<Link> links = meshLinks(spec, mesh);
  auto [n, link] = groupOf(axes, mesh, links);
  return collectiveSeconds(kind, kind == Collective::pointToPoint ? 2 : n,
                           bytes, link);
}

StepPrediction mlir::dist::cost::predictFunction(func::FuncOp fn,
                                                 ArrayRef<int64_t> mesh,
                                                 const DeviceSpec &spec,
                                                 const CostOptions &options) {
  StepPrediction p;
  SmallVector<Link> links = meshLinks(spec, mesh);
  // When each queue is next free, and when each started request ends.
  double computeAt = 0, commAt = 0;
  DenseMap<Value, double> ends, lengths;
  auto blocking = [&](double seconds) {
    double start = std::max(computeAt, commAt);
    computeAt = commAt = start + seconds;
    p.communication += seconds;
  };
  // A collective over `axes` moving a tensor of type `moved`, waited for.
  auto blockingCollective = [&](Collective kind, ArrayRef<int64_t> axes,
                                Type moved) {
    auto [n, link] = groupOf(axes, mesh, links);
    blocking(collectiveSeconds(kind, n,
                               static_cast<double>(tensorBytes(moved)), link));
  };
  fn.walk([&](Operation *op) {
    if (op->getParentOp() != fn.getOperation())
      return;
    if (auto start = dyn_cast<AllReduceStartOp>(op)) {
      auto [n, link] = groupOf(start.getAxes(), mesh, links);
      double bytes = static_cast<double>(tensorBytes(start.getBucket().getType()));
      double seconds = collectiveSeconds(Collective::allReduce, n, bytes, link);
      double begin = std::max(computeAt, commAt);
      commAt = begin + seconds;
      ends[start.getRequest()] = commAt;
      lengths[start.getRequest()] = seconds;
      p.communication += seconds;
      return;
    }
    if (auto wait = dyn_cast<WaitOp>(op)) {
      // The part that cannot run behind compute runs at the wait.
      computeAt = std::max(computeAt + (1 - spec.overlap) *
                                           lengths.lookup(wait.getRequest()),
                           ends.lookup(wait.getRequest()));
      return;
    }
    if (auto reduce = dyn_cast<AllReduceOp>(op))
      return blockingCollective(Collective::allReduce, reduce.getAxes(),
                                reduce.getType());
    if (auto gather = dyn_cast<AllGatherOp>(op))
      return blockingCollective(Collective::allGather, gather.getAxes(),
                                gather.getType());
    if (auto scatter = dyn_cast<ReduceScatterOp>(op))
      return blockingCollective(Collective::reduceScatter, scatter.getAxes(),
                                scatter.getInput().getType());
    if (auto send = dyn_cast<SendOp>(op)) {
      // Buffered: the communication queue carries it.
      Link link = groupOf({static_cast<int64_t>(send.getAxis())}, mesh, links).second;
      double seconds = collectiveSeconds(
          Collective::pointToPoint, 2,
          static_cast<double>(tensorBytes(send.getInput().getType())), link);
      commAt = std::max(computeAt, commAt) + seconds;
      p.communication += seconds;
      return;
    }
    if (auto recv = dyn_cast<RecvOp>(op)) {
      Link link = groupOf({static_cast<int64_t>(recv.getAxis())}, mesh, links).second;
      blocking(collectiveSeconds(
          Collective::pointToPoint, 2,
          static_cast<double>(tensorBytes(recv.getType())), link));
      return;
    }
    if (isa<ShardSliceOp>(op) || op->hasTrait<OpTrait::IsTerminator>())
      return;
    OpCost cost = opCost(op);
    if (isPointwise(op))
      cost.bytes = fusedBytes(op);
    double seconds = computeSeconds(spec, precisionOf(op, options), cost.flops,
                                    cost.bytes);
    computeAt += seconds;
    p.compute += seconds;
  });
  double end = std::max(computeAt, commAt);
  p.exposed = std::max(0.0, end - p.compute);
  return p;
}

double mlir::dist::cost::peakBytes(func::FuncOp fn) {
  Block &body = fn.getBody().front();
  double live = 0;
  for (BlockArgument arg : body.getArguments())
    live += static_cast<double>(tensorBytes(arg.getType()));
  // Each op's position, and the values to free after each.
  DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  std::vector<SmallVector<Value>> freeAfter(body.getOperations().size());
  for (Operation &op : body)
    for (Value result : op.getResults()) {
      unsigned last = position.lookup(&op);
      for (Operation *user : result.getUsers()) {
        // A use inside a region counts as a use by the op holding it.
        Operation *at = body.findAncestorOpInBlock(*user);
        if (at)
          last = std::max(last, position.lookup(at));
      }
      freeAfter[last].push_back(result);
    }
  double peak = live;
  for (Operation &op : body) {
    for (Value result : op.getResults())
      live += static_cast<double>(tensorBytes(result.getType()));
    peak = std::max(peak, live);
    for (Value v : freeAfter[position.lookup(&op)])
      live -= static_cast<double>(tensorBytes(v.getType()));
  }
  return peak;
}

double mlir::dist::cost::heldForBackwardBytes(func::FuncOp fn) {
  Block &body = fn.getBody().front();
  std::optional<unsigned> loss = lossResult(fn);
  if (!loss)
    return 0;
  // The forward: the ops the loss depends on.
  DenseSet<Operation *> forward =
      opsFeeding(body.getTerminator()->getOperand(*loss), body);
  DenseSet<Value> dataDependent;
  for (BlockArgument arg : body.getArguments())
    if (isDataArgument(fn, arg.getArgNumber()))
      dataDependent.insert(arg);
  // A reader outside the forward, other than the return and a barrier
  // nothing reads (remat's second use of a value it recomputes).
  auto readLater = [&](Operation *user) {
    return !forward.contains(user) &&
           !user->hasTrait<OpTrait::IsTerminator>() &&
           !(isa<OptimizationBarrierOp>(user) && user->use_empty());
  };
  double held = 0;
  for (Operation &op : body) {
    if (!forward.contains(&op) || llvm::none_of(op.getOperands(), [&](Value v) {
          return dataDependent.contains(v);
        }))
      continue;
    for (Value result : op.getResults()) {
      dataDependent.insert(result);
      if (llvm::any_of(result.getUsers(), readLater))
        held += static_cast<double>(tensorBytes(result.getType()));
    }
  }
  return held;
}

FailureOr<StepPrediction> mlir::dist::cost::predictStep(
    ModuleOp module, StringRef function, const DeviceSpec &spec,
    const CostOptions &options) {
  MeshOp meshOp = getMesh(module);
  SmallVector<int64_t> mesh;
  if (meshOp)
    mesh.assign(meshOp.getShape().begin(), meshOp.getShape().end());
  auto pipeline =
      module->getAttrOfType<DictionaryAttr>(DistDialect::kPipelineAttrName);
  if (!pipeline) {
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn || fn.isExternal())
      return failure();
    StepPrediction p = predictFunction(fn, mesh, spec, options);
    p.peakBytes = peakBytes(fn);
    return p;
  }
  // The slowest stage sets the pace; the others' idle time at the start
  // and end of the step is the bubble: (S - 1) slots of the slowest
  // stage's micro-batch, a slot of a chunk when interleaved.
  auto stages = pipeline.getAs<IntegerAttr>("stages");
  auto microbatches = pipeline.getAs<IntegerAttr>("microbatches");
  auto chunks = pipeline.getAs<IntegerAttr>("virtual_stages");
  auto functions = pipeline.getAs<ArrayAttr>("functions");
  if (!stages || !microbatches || !functions)
    return failure();
  StepPrediction slowest;
  double peak = 0;
  for (Attribute name : functions) {
    auto fn = module.lookupSymbol<func::FuncOp>(
        cast<FlatSymbolRefAttr>(name).getValue());
    if (!fn || fn.isExternal())
      return failure();
    StepPrediction stage = predictFunction(fn, mesh, spec, options);
    if (stage.total() > slowest.total())
      slowest = stage;
    peak = std::max(peak, peakBytes(fn));
  }
  slowest.peakBytes = peak;
  double slot = slowest.total() / static_cast<double>(microbatches.getInt());
  double perChunk = chunks ? static_cast<double>(chunks.getInt()) : 1.0;
  slowest.bubble =
      static_cast<double>(stages.getInt() - 1) * slot / perChunk;
  return slowest;
}
