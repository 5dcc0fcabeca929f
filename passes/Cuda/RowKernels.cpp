//===- RowKernels.cpp - Chains of row ops as one kernel per row -----------===//
//
// Softmax, layer norm and their gradients are chains of generics over the
// same rows: elementwise ops over rows x columns, reductions of each row
// and ops on one value per row. dist-linalg-to-gpu makes one kernel per op,
// each reading the row from memory again; here one kernel runs the chain,
// one block per row, each thread keeping its columns in registers from op
// to op. The kernel shape and the rules are described in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Cuda/Passes.h"

#include "passes/Cuda/Combiners.h"
#include "passes/Cuda/Launches.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "dist-row-kernels"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTROWKERNELS
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// What a member of a chain computes, per row.
enum class Role {
  Columns, // elementwise over rows x columns
  Reduce,  // a reduction of each row's columns
  PerRow,  // elementwise over the rows only
};

/// The buffer a view is of, through the views whose layouts keep offsets
/// relative to their source's base.
static Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto s = dyn_cast<memref::SubViewOp>(def))
      v = s.getSource();
    else if (auto c = dyn_cast<memref::CastOp>(def))
      v = c.getSource();
    else
      break;
  }
  return v;
}

static bool isAllocation(Value root) {
  return root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::AllocaOp>();
}

static bool isFunctionArgument(Value root) {
  auto arg = dyn_cast<BlockArgument>(root);
  return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp()) &&
         arg.getOwner()->isEntryBlock();
}

/// An allocation is distinct from any other allocation and from the
/// function's arguments; arguments may be the same memory as each other;
/// anything else (a view this file does not follow, a loop's value) may
/// be any memory.
static bool mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  bool knownA = isAllocation(a) || isFunctionArgument(a);
  bool knownB = isAllocation(b) || isFunctionArgument(b);
  if (!knownA || !knownB)
    return true;
  return !isAllocation(a) && !isAllocation(b);
}

/// Adds `scale * e` to `form` (coefficients of each dim, then the
/// constant); false when `e` is not linear.
static bool addLinear(AffineExpr e, int64_t scale,
                      MutableArrayRef<int64_t> form) {
  if (auto dim = dyn_cast<AffineDimExpr>(e)) {
    form[dim.getPosition()] += scale;
    return true;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    form.back() += scale * c.getValue();
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (e.getKind() == AffineExprKind::Add)
    return addLinear(bin.getLHS(), scale, form) &&
           addLinear(bin.getRHS(), scale, form);
  if (e.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return addLinear(bin.getLHS(), scale * c.getValue(), form);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return addLinear(bin.getRHS(), scale * c.getValue(), form);
  }
  return false;
}

/// The element an operand reads or writes at a point of the chain's loops:
/// its root buffer and its offset there, a linear function of the loop
/// dims (the rows' dims, then the column; then the constant). Two operands
/// touch the same element at every point exactly when their accesses are
/// equal.
struct Access {
  Value root;
  SmallVector<int64_t> offset;
  bool operator==(const Access &other) const {
    return root == other.root && offset == other.offset;
  }
};

/// `operand`'s access with `dims` loop dims in the chain, if its layout is
/// static and its indexing linear.
static std::optional<Access> accessOf(linalg::GenericOp op,
                                      OpOperand &operand, unsigned dims) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  Access access{rootOf(operand.get()), SmallVector<int64_t>(dims + 1, 0)};
  access.offset.back() = offset;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  for (auto [e, stride] : llvm::zip_equal(map.getResults(), strides))
    if (!addLinear(e, stride, access.offset))
      return std::nullopt;
  return access;
}

/// Whether `map` is (d0, ..., dn) -> (d0, ..., dn-1): a reduction of the
/// last dim writing one value per row.
static bool isRowProjection(AffineMap map) {
  if (map.getNumSymbols() != 0 || map.getNumDims() != map.getNumResults() + 1)
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != i)
      return false;
  }
  return true;
}

/// Whether `op`'s block argument for `operand` is read.
static bool isRead(linalg::GenericOp op, OpOperand &operand) {
  return !op.getMatchingBlockArgument(&operand).use_empty();
}

/// Whether `op` reads or writes `buffer` itself (not only its address).
static bool accesses(Operation *op, Value buffer) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffectsOnValue(buffer, instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
  });
}

struct Member {
  linalg::GenericOp op;
  Role role;
  SmallVector<dist::Combiner> combiners; // Reduce
};

/// A chain of generics over the same rows being collected, in block order,
/// with the other ops between them that may run before it.
class Chain {
public:
  Chain(int64_t blockSize, int64_t maxElements)
      : blockSize(blockSize), maxElements(maxElements) {}

  bool empty() const { return members.empty(); }

  /// Adds `op` as the chain's next member if it has the chain's rows and
  /// its reads and writes keep their order when each thread runs its
  /// columns of every member in turn and stores at the end.
  bool tryAdd(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op->getNumResults() != 0)
      return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || llvm::any_of(ranges, ShapedType::isDynamic) ||
        llvm::is_contained(ranges, 0))
      return false;
    // A body of pure ops, linalg.index (a loop coordinate) only at its top.
    Block &body = op.getRegion().front();
    for (Operation &inner : body)
      if (!isMemoryEffectFree(&inner))
        return false;
    if (op.getRegion()
            .walk([&](linalg::IndexOp index) {
              return index->getBlock() == &body ? WalkResult::advance()
                                                : WalkResult::interrupt();
            })
            .wasInterrupted())
      return false;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned last = ranges.size() - 1;
    bool reduces = iterators[last] == utils::IteratorType::reduction;
    for (unsigned d = 0; d < last; ++d)
      if (iterators[d] != utils::IteratorType::parallel)
        return false;

    Member member{op, Role::Columns, {}};
    ArrayRef<int64_t> outer = ArrayRef(ranges).drop_back();
    if (members.empty()) {
      int64_t threads = dist::reductionThreads(ranges[last], blockSize);
      if (ranges[last] < 32 || ranges[last] > threads * maxElements)
        return false;
      rows.assign(outer.begin(), outer.end());
      length = ranges[last];
    } else if (ArrayRef(ranges) == ArrayRef(rows) && !reduces) {
      member.role = Role::PerRow;
    } else if (outer != ArrayRef(rows) || ranges[last] != length) {
      return false;
    }
    if (reduces) {
      member.role = Role::Reduce;
      std::optional<SmallVector<dist::Combiner>> combiners =
          dist::matchCombiners(op);
      if (!combiners)
        return false;
      member.combiners = std::move(*combiners);
    }
    // Outputs: every point of the op's space (elementwise) or of the rows
    // (a reduction) once.
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      if (member.role == Role::Reduce ? !isRowProjection(map)
                                      : !map.isIdentity())
        return false;
    }

    // The hazards, checked against what the chain already does.
    unsigned index = members.size();
    unsigned dims = rows.size() + 1;
    SmallVector<Read> newReads;
    SmallVector<Write> newWrites;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      std::optional<Access> access = accessOf(op, operand, dims);
      if (!access)
        return false;
      bool isInit = op.isDpsInit(&operand);
      bool read = isRead(op, operand) || (isInit && reduces);
      if (read) {
        const Write *forward = nullptr;
        for (const Write &w : writes) {
          if (!mayAlias(w.access.root, access->root))
            continue;
          if (!(w.access == *access))
            return false; // another element of memory the chain writes
          forward = &w;
        }
        // Elementwise values live in the threads of their columns.
        if (forward && !forward->perRow && member.role == Role::PerRow)
          return false;
        newReads.push_back({*access, index, /*fromMemory=*/!forward});
      }
      if (!isInit)
        continue;
      for (const Read &r : llvm::concat<const Read>(reads, newReads))
        if (mayAlias(r.access.root, access->root) && !(r.access == *access))
          return false;
      for (const Write &w : writes)
        if (mayAlias(w.access.root, access->root) && !(w.access == *access))
          return false;
      bool perRow = member.role != Role::Columns;
      // A value per row is stored by thread 0 at the end: any thread still
      // reading the old value from memory must have passed a block
      // reduction (a barrier) first.
      if (member.role == Role::PerRow)
        for (const Read &r : llvm::concat<const Read>(reads, newReads))
          if (r.fromMemory && r.access == *access &&
              (lastReduce < 0 || lastReduce < static_cast<int>(r.member)))
            return false;
      newWrites.push_back({*access, perRow});
    }
    llvm::append_range(reads, newReads);
    llvm::append_range(writes, newWrites);
    if (member.role == Role::Reduce)
      lastReduce = index;
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()))
        roots.insert(rootOf(operand.get()));
    members.push_back(std::move(member));
    return true;
  }

  /// Whether `op`, found after the chain's members so far, may run before
  /// all of them (the kernel is built after the last member). A dealloc of
  /// a buffer the chain uses is postponed after the kernel instead.
  bool canRunBefore(Operation *op) {
    if (isMemoryEffectFree(op) || isa<memref::AllocOp, memref::AllocaOp>(op))
      return true;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      Value root = rootOf(dealloc.getMemref());
      if (llvm::any_of(roots, [&](Value r) { return mayAlias(r, root); }))
        postponed.push_back(op);
      return true;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value)
        return false;
      Value root = rootOf(value);
      bool writes = !isa<MemoryEffects::Read>(effect.getEffect());
      for (const Write &w : this->writes)
        if (mayAlias(w.access.root, root))
          return false;
      if (writes)
        for (const Read &r : reads)
          if (mayAlias(r.access.root, root))
            return false;
    }
    return true;
  }

  /// Whether one kernel pays: a reduction and something else.
  bool worthFusing() const {
    return members.size() >= 2 &&
           llvm::any_of(members, [](const Member &m) {
             return m.role == Role::Reduce;
           });
  }

  struct Read {
    Access access;
    unsigned member;
    bool fromMemory; // not a value an earlier member computed
  };
  struct Write {
    Access access;
    bool perRow;
  };

  int64_t blockSize, maxElements;
  SmallVector<int64_t> rows;
  int64_t length = 0;
  SmallVector<Member> members;
  SmallVector<Read> reads;
  SmallVector<Write> writes;
  llvm::SetVector<Value> roots;
  SmallVector<Operation *> postponed;
  int lastReduce = -1;
};

/// Builds the kernel of a chain: one block per row, thread `t` of `T`
/// holding columns t, t + T, ... (`lanes` of them) of every member.
class RowKernelBuilder {
public:
  RowKernelBuilder(const Chain &chain) : chain(chain) {}

  gpu::LaunchOp build(unsigned index) {
    linalg::GenericOp named =
        llvm::find_if(chain.members, [](const Member &m) {
          return m.role == Role::Reduce;
        })->op;
    Operation *lastOp = chain.members.back().op;
    loc = named.getLoc();
    int64_t threads = dist::reductionThreads(chain.length, chain.blockSize);
    lanes = (chain.length + threads - 1) / threads;
    OpBuilder b(lastOp->getContext());
    b.setInsertionPointAfter(lastOp);
    gpu::LaunchOp launch =
        dist::createLaunch(b, loc, computeProduct(chain.rows), threads);
    dist::nameKernel(launch, named, index, "", 'r');
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    threadId = launch.getThreadIds().x;
    rowIvs = dist::delinearize(kb, loc, launch.getBlockIds().x, chain.rows);
    Value last = arith::ConstantIndexOp::create(kb, loc, chain.length - 1);
    Value length = arith::ConstantIndexOp::create(kb, loc, chain.length);
    for (int64_t k = 0; k < lanes; ++k) {
      Value column = arith::AddIOp::create(
          kb, loc, threadId,
          arith::ConstantIndexOp::create(kb, loc, k * threads));
      Value valid;
      if ((k + 1) * threads > chain.length) {
        // The last lane's columns past the row's end: read the row's last
        // column (in bounds), leave reductions and stores alone.
        valid = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                      column, length);
        column = arith::SelectOp::create(kb, loc, valid, column, last);
      }
      SmallVector<Value> ivs(rowIvs);
      ivs.push_back(column);
      laneIvs.push_back(ivs);
      laneValid.push_back(valid);
    }
    for (const Member &member : chain.members) {
      switch (member.role) {
      case Role::Columns:
        buildColumns(kb, member.op);
        break;
      case Role::Reduce:
        buildReduce(kb, member);
        break;
      case Role::PerRow:
        buildPerRow(kb, member.op);
        break;
      }
    }
    storeResults(kb);
    return launch;
  }

private:
  /// A value the chain computed for an element: one per lane, or one per
  /// row (the same in every thread).
  struct Def {
    Access access;
    SmallVector<Value> values;
    bool perRow;
    Value buffer;
    AffineMap map;
  };

  const Def *lookup(const Access &access) const {
    for (const Def &d : llvm::reverse(defs))
      if (d.access == access)
        return &d;
    return nullptr;
  }

  void define(linalg::GenericOp op, OpOperand &init, SmallVector<Value> values,
              bool perRow) {
    Access access = *accessOf(op, init, chain.rows.size() + 1);
    llvm::erase_if(defs, [&](const Def &d) { return d.access == access; });
    defs.push_back({access, std::move(values), perRow, init.get(),
                    op.getMatchingIndexingMap(&init)});
  }

  /// `operand`'s value at `ivs` in lane `lane`: what an earlier member
  /// computed for that element, or a load.
  Value read(OpBuilder &b, linalg::GenericOp op, OpOperand &operand,
             ArrayRef<Value> ivs, int64_t lane) {
    if (!isa<MemRefType>(operand.get().getType()))
      return operand.get();
    Access access = *accessOf(op, operand, chain.rows.size() + 1);
    if (const Def *def = lookup(access))
      return def->perRow ? def->values.front() : def->values[lane];
    // Memory the chain does not write (before this) keeps its values in the
    // kernel: one load per thread and element.
    if (access.offset[chain.rows.size()] == 0)
      lane = 0; // the same element in every lane
    for (const Loaded &l : loaded)
      if (l.lane == lane && l.access == access)
        return l.value;
    Value value = memref::LoadOp::create(
        b, loc, operand.get(),
        indices(b, op.getMatchingIndexingMap(&operand), ivs));
    loaded.push_back({access, lane, value});
    return value;
  }

  SmallVector<Value> indices(OpBuilder &b, AffineMap map,
                             ArrayRef<Value> ivs) {
    SmallVector<Value> result;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      result.push_back(affine::AffineApplyOp::create(
          b, loc, map.getSubMap({i}),
          ivs.take_front(map.getNumDims())));
    return result;
  }

  /// Maps the read block arguments of `op` at `ivs` in lane `lane`; with
  /// `inits`, the outputs' too.
  void mapArguments(OpBuilder &b, linalg::GenericOp op, ArrayRef<Value> ivs,
                    int64_t lane, bool inits, IRMapping &map) {
    for (OpOperand &operand : op->getOpOperands())
      if ((inits || !op.isDpsInit(&operand)) && isRead(op, operand))
        map.map(op.getMatchingBlockArgument(&operand),
                read(b, op, operand, ivs, lane));
  }

  /// The generic's body with `map`, linalg.index as `ivs`; its yielded
  /// values.
  SmallVector<Value> cloneBody(OpBuilder &b, linalg::GenericOp op,
                               ArrayRef<Value> ivs, IRMapping &map) {
    Block &body = op.getRegion().front();
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      b.clone(inner, map);
    }
    return llvm::map_to_vector(body.getTerminator()->getOperands(),
                               [&](Value v) { return map.lookupOrDefault(v); });
  }

  void buildColumns(OpBuilder &b, linalg::GenericOp op) {
    // Every lane reads before any result is defined: an op that updates a
    // buffer in place reads the old values.
    SmallVector<SmallVector<Value>> results;
    for (int64_t k = 0; k < lanes; ++k) {
      IRMapping map;
      mapArguments(b, op, laneIvs[k], k, /*inits=*/true, map);
      results.push_back(cloneBody(b, op, laneIvs[k], map));
    }
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable()))
      define(op, init,
             llvm::map_to_vector(results,
                                 [&](ArrayRef<Value> r) { return r[i]; }),
             /*perRow=*/false);
  }

  void buildReduce(OpBuilder &b, const Member &member) {
    linalg::GenericOp op = member.op;
    // The outputs' old values are read before the block reduction (a
    // barrier): a thread storing the row's result at the end cannot
    // overwrite them under a thread still reading.
    SmallVector<Value> olds, partials;
    for (const dist::Combiner &c : member.combiners) {
      olds.push_back(read(b, op, op.getDpsInitsMutable()[c.output],
                          laneIvs[0], 0));
      partials.push_back(arith::ConstantOp::create(b, loc, c.identity));
    }
    for (int64_t k = 0; k < lanes; ++k) {
      IRMapping map;
      mapArguments(b, op, laneIvs[k], k, /*inits=*/false, map);
      for (auto [c, partial] : llvm::zip_equal(member.combiners, partials))
        map.map(op.getMatchingBlockArgument(
                    &op.getDpsInitsMutable()[c.output]),
                partial);
      SmallVector<Value> folded = cloneBody(b, op, laneIvs[k], map);
      for (auto [c, partial] : llvm::zip_equal(member.combiners, partials))
        partial = laneValid[k] ? arith::SelectOp::create(b, loc, laneValid[k],
                                                         folded[c.output],
                                                         partial)
                               : folded[c.output];
    }
    for (auto [c, partial, old] :
         llvm::zip_equal(member.combiners, partials, olds)) {
      Value total = gpu::AllReduceOp::create(
          b, loc, partial,
          gpu::AllReduceOperationAttr::get(b.getContext(), c.kind),
          /*uniform=*/true);
      define(op, op.getDpsInitsMutable()[c.output],
             {dist::combine(b, op, c, old, total)}, /*perRow=*/true);
    }
  }

  void buildPerRow(OpBuilder &b, linalg::GenericOp op) {
    IRMapping map;
    mapArguments(b, op, rowIvs, 0, /*inits=*/true, map);
    SmallVector<Value> results = cloneBody(b, op, rowIvs, map);
    for (auto [init, value] : llvm::zip_equal(op.getDpsInitsMutable(),
                                              results))
      define(op, init, {value}, /*perRow=*/true);
  }

  /// Whether a buffer's values may be read after the kernel: it is not an
  /// allocation in the chain's block that is only deallocated after the
  /// kernel or first overwritten whole without being read, and whose every
  /// use before is a read or write then.
  bool isReadAfter(Value root, Operation *kernel) const {
    Operation *alloc = root.getDefiningOp();
    Block *block = kernel->getBlock();
    if (!alloc || !isAllocation(root) || alloc->getBlock() != block)
      return true;
    Operation *next = nullptr; // the first use after the kernel
    SmallVector<Value> views{root};
    while (!views.empty()) {
      Value v = views.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
                memref::SubViewOp, memref::CastOp>(user)) {
          views.push_back(user->getResult(0));
          continue;
        }
        // Nothing uses a buffer after its dealloc (those between members
        // move after the kernel).
        if (isa<memref::DeallocOp>(user) || kernel->isAncestor(user) ||
            llvm::any_of(chain.members, [&](const Member &m) {
              return m.op == user;
            }))
          continue;
        Operation *ancestor = block->findAncestorOpInBlock(*user);
        if (!ancestor)
          return true;
        if (ancestor->isBeforeInBlock(kernel)) {
          // Earlier accesses are done; an earlier op that only takes the
          // address (a gemm's pointer) may read it later.
          if (!accesses(user, v))
            return true;
          continue;
        }
        if (!next || ancestor->isBeforeInBlock(next))
          next = ancestor;
      }
    }
    return next && !overwritesAll(next, root);
  }

  /// Whether `op` is a generic that writes every element of `root` and
  /// reads none.
  static bool overwritesAll(Operation *op, Value root) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !generic.hasPureBufferSemantics())
      return false;
    bool writes = false;
    for (OpOperand &operand : generic->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()) ||
          rootOf(operand.get()) != root)
        continue;
      auto type = cast<MemRefType>(operand.get().getType());
      auto rootType = cast<MemRefType>(root.getType());
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      if (!generic.isDpsInit(&operand) || isRead(generic, operand) ||
          !map.isPermutation() || !type.hasStaticShape() ||
          !rootType.hasStaticShape() ||
          type.getNumElements() != rootType.getNumElements())
        return false;
      writes = true;
    }
    return writes;
  }

  /// Stores the values the chain computed into the buffers read after it.
  void storeResults(OpBuilder &b) {
    Operation *kernel = b.getBlock()->getParentOp();
    SmallVector<const Def *> columns, perRow;
    for (const Def &d : defs)
      if (isReadAfter(d.access.root, kernel))
        (d.perRow ? perRow : columns).push_back(&d);
    for (int64_t k = 0; k < lanes; ++k) {
      if (columns.empty())
        break;
      OpBuilder::InsertionGuard guard(b);
      if (laneValid[k]) {
        auto inRow = scf::IfOp::create(b, loc, laneValid[k], false);
        b.setInsertionPointToStart(&inRow.getThenRegion().front());
      }
      for (const Def *d : columns)
        memref::StoreOp::create(b, loc, d->values[k], d->buffer,
                                indices(b, d->map, laneIvs[k]));
    }
    if (perRow.empty())
      return;
    Value first = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, threadId,
        arith::ConstantIndexOp::create(b, loc, 0));
    auto onFirst = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&onFirst.getThenRegion().front());
    for (const Def *d : perRow)
      memref::StoreOp::create(b, loc, d->values.front(), d->buffer,
                              indices(b, d->map, laneIvs[0]));
  }

  struct Loaded {
    Access access;
    int64_t lane;
    Value value;
  };

  const Chain &chain;
  Location loc = UnknownLoc();
  int64_t lanes = 0;
  Value threadId;
  SmallVector<Value> rowIvs;
  SmallVector<SmallVector<Value>> laneIvs;
  SmallVector<Value> laneValid; // null: every column of the lane is in
  SmallVector<Def> defs;
  SmallVector<Loaded> loaded;
};

/// Erases `root` and its views and deallocs when nothing else uses them.
static void eraseIfUnused(Value root) {
  Operation *alloc = root.getDefiningOp();
  if (!alloc || !isAllocation(root))
    return;
  SmallVector<Operation *> ops;
  SmallVector<Value> values{root};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
              memref::SubViewOp, memref::CastOp>(user))
        values.push_back(user->getResult(0));
      else if (!isa<memref::DeallocOp>(user))
        return;
      ops.push_back(user);
    }
  }
  // Users before the values they use are gone.
  for (Operation *op : llvm::reverse(ops))
    if (isa<memref::DeallocOp>(op))
      op->erase();
  for (Operation *op : llvm::reverse(ops))
    if (!isa<memref::DeallocOp>(op))
      op->erase();
  alloc->erase();
}

struct DistRowKernelsPass
    : dist::impl::DistRowKernelsBase<DistRowKernelsPass> {
  using DistRowKernelsBase::DistRowKernelsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(dist::checkBlockSize(func, "dist-row-kernels", blockSize)))
      return signalPassFailure();
    if (rowElements < 0 || rowElements > 64) {
      func.emitError() << "dist-row-kernels: row-elements "
                       << static_cast<int64_t>(rowElements)
                       << " is not from 0 to 64";
      return signalPassFailure();
    }
    if (rowElements == 0)
      return;
    kernelCount = 0;
    SmallVector<Block *> blocks;
    func.walk([&](Block *block) {
      if (!block->getParentOp()->getParentOfType<gpu::LaunchOp>() &&
          !isa<gpu::LaunchOp, linalg::LinalgOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      runOnBlock(*block);
  }

  void runOnBlock(Block &block) {
    SmallVector<Operation *> ops =
        llvm::map_to_vector(block, [](Operation &op) { return &op; });
    Chain chain(blockSize, rowElements);
    for (Operation *op : ops) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        if (chain.tryAdd(generic))
          continue;
        finish(chain);
        chain = Chain(blockSize, rowElements);
        chain.tryAdd(generic);
        continue;
      }
      if (chain.empty() || chain.canRunBefore(op))
        continue;
      finish(chain);
      chain = Chain(blockSize, rowElements);
    }
    finish(chain);
    llvm::SetVector<Value> roots(llvm::from_range, unusedCandidates);
    unusedCandidates.clear();
    for (Value root : roots)
      eraseIfUnused(root);
  }

  void finish(Chain &chain) {
    if (!chain.worthFusing())
      return;
    gpu::LaunchOp launch = RowKernelBuilder(chain).build(kernelCount++);
    Operation *lastMember = chain.members.back().op;
    Operation *after = launch;
    for (Operation *dealloc : chain.postponed)
      if (dealloc->isBeforeInBlock(lastMember)) {
        dealloc->moveAfter(after);
        after = dealloc;
      }
    for (const Member &member : llvm::reverse(chain.members))
      member.op->erase();
    // Erased once the block's ops are all visited (their deallocs may come
    // later in the block).
    llvm::append_range(unusedCandidates, chain.roots);
  }

  unsigned kernelCount = 0;
  SmallVector<Value> unusedCandidates;
};

} // namespace
