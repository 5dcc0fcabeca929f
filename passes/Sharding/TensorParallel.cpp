//===- TensorParallel.cpp - Megatron's column/row split of MLPs -----------===//
//
// Tensor parallelism is, like data parallelism, only annotations: the
// weights of a column-parallel linear are split along their output
// features, those of the row-parallel linear that consumes it along their
// input features. Propagation splits the activations between the two, and
// partitioning finds the row-parallel matmul's reduction split and
// all-reduces its partial result once. The matchers (MLPs, gated MLPs,
// attention fused or with separate projections) only choose splits: a
// choice propagation cannot follow costs collectives, never correctness.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "llvm/Support/FormatVariadic.h"
#include "dialects/Dist/IR/DistBuilder.h"

#include <numeric>

#include "dialects/Dist/IR/DistMesh.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTTENSORPARALLEL
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// A linear layer: `op` multiplies an activation by the parameter argument
/// `weight`, whose dimension `outDim` holds the output features.
struct Linear {
  Operation *op = nullptr;
  BlockArgument weight;
  int64_t outDim = 0;
  /// The parameter added to the result (gemm's bias or a following add).
  BlockArgument bias;
  /// The layer's output, after the bias.
  Value output;
};

BlockArgument parameterArg(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return {};
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!fn ||
      !fn.getArgAttr(arg.getArgNumber(), DistDialect::kParameterAttrName))
    return {};
  return arg;
}

/// A float-to-float dist.cast's result, or null: mixed precision reads
/// weights and writes products through them.
CastOp floatCast(Operation *op) {
  auto cast = dyn_cast_or_null<CastOp>(op);
  if (!cast || !isa<FloatType>(elementTypeOf(cast.getInput())) ||
      !isa<FloatType>(elementTypeOf(cast.getResult())))
    return {};
  return cast;
}

/// `v` before the float casts that produced it.
Value throughCasts(Value v) {
  while (CastOp cast = floatCast(v.getDefiningOp()))
    v = cast.getInput();
  return v;
}

/// The linear layer `op` computes, if it is one.
std::optional<Linear> matchLinear(Operation *op) {
  Linear l;
  l.op = op;
  Value rhs;
  bool transposed = false;
  if (auto m = dyn_cast<MatmulOp>(op)) {
    if (m.getTransposeLhs())
      return std::nullopt;
    rhs = m.getRhs();
    transposed = m.getTransposeRhs();
  } else if (auto g = dyn_cast<GemmOp>(op)) {
    if (g.getTransposeA())
      return std::nullopt;
    rhs = g.getB();
    transposed = g.getTransposeB();
    if (Value b = g.getBias())
      if (!(l.bias = parameterArg(b)))
        return std::nullopt;
  } else {
    return std::nullopt;
  }
  // A weight read through a 2-D transpose is the nn.Linear layout.
  rhs = throughCasts(rhs);
  if (auto t = rhs.getDefiningOp<TransposeOp>()) {
    if (t.getPermutation() != ArrayRef<int64_t>{1, 0})
      return std::nullopt;
    rhs = throughCasts(t.getInput());
    transposed = !transposed;
  }
  l.weight = parameterArg(rhs);
  if (!l.weight || cast<RankedTensorType>(rhs.getType()).getRank() != 2)
    return std::nullopt;
  l.outDim = transposed ? 0 : 1;
  l.output = op->getResult(0);
  // A product in a 16-bit compute type is cast back by its one user.
  if (l.output.hasOneUse())
    if (CastOp cast = floatCast(*l.output.getUsers().begin()))
      l.output = cast.getResult();
  int64_t out = cast<RankedTensorType>(rhs.getType()).getDimSize(l.outDim);
  // A bias added by the one user.
  if (!l.bias && l.output.hasOneUse())
    if (auto add = dyn_cast<AddOp>(*l.output.getUsers().begin())) {
      Value other = add.getLhs() == l.output ? add.getRhs() : add.getLhs();
      BlockArgument b = parameterArg(other);
      auto type = cast<RankedTensorType>(other.getType());
      if (b && type.getRank() == 1 && type.getDimSize(0) == out) {
        l.bias = b;
        l.output = add.getResult();
      }
    }
  return l;
}

/// The linear layer that reads `value` through unary elementwise ops only
/// (the forward path; the backward pass's uses are binary ops).
Operation *consumingLinear(Value value, int depth = 0) {
  if (depth > 8)
    return nullptr;
  for (Operation *user : value.getUsers())
    if (isa<MatmulOp, GemmOp>(user) && user->getOperand(0) == value)
      return user;
  for (Operation *user : value.getUsers())
    if (user->hasTrait<OpTrait::Elementwise>() && user->getNumOperands() == 1 &&
        user->getNumResults() == 1)
      if (Operation *linear = consumingLinear(user->getResult(0), depth + 1))
        return linear;
  return nullptr;
}

/// Attention: its projections, each a linear whose output (in `groups`
/// equal pieces along its features) is viewed as [..., heads, head size],
/// and the output projection that reads the attention's result. GPT-2's
/// fused c_attn is one projection in 3 groups; Hugging Face's separate
/// q, k and v are three in 1 group each.
struct Attention {
  SmallVector<Linear> projections;
  Linear output;
  /// `heads`: what every projection's heads are a multiple of (grouped-query
  /// keys and values have fewer than the queries' `queryHeads`).
  int64_t groups = 1, heads = 0, queryHeads = 0;
};

/// The heads `features` of `value` (through reshapes that keep the last
/// dimension and elementwise ops) are viewed as: a reshape to
/// [..., heads, features / heads].
int64_t headsOf(Value value, int64_t features, int depth = 0) {
  auto type = cast<RankedTensorType>(value.getType());
  if (depth > 4)
    return 0;
  for (Operation *user : value.getUsers()) {
    // Through a scaling of the same shape (BART scales its queries).
    if ((user->hasTrait<OpTrait::Elementwise>() ||
         isa<AddOp, SubOp, MulOp, DivOp>(user)) &&
        user->getNumResults() == 1 && user->getResult(0).getType() == type)
      if (int64_t heads = headsOf(user->getResult(0), features, depth + 1))
        return heads;
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (!reshape)
      continue;
    // [..., features] to [..., heads, features / heads], the leading
    // dimensions possibly regrouped (a 2-D gemm's rows back to batch and
    // sequence).
    ArrayRef<int64_t> shape = reshape.getType().getShape();
    if (shape.size() >= 2 && type.getShape().back() == features &&
        shape[shape.size() - 2] * shape.back() == features &&
        shape[shape.size() - 2] > 1)
      return shape[shape.size() - 2];
    if (!shape.empty() && shape.back() == type.getShape().back())
      if (int64_t heads = headsOf(reshape.getResult(), features, depth + 1))
        return heads;
  }
  return 0;
}

/// The first linear (in program order, so in the forward pass) that
/// `from` reaches reading `features` input features: an attention's output
/// projection.
std::optional<Linear>
firstLinearReached(ValueRange from, int64_t features,
                   const DenseMap<Operation *, int64_t> &order) {
  DenseSet<Value> reached;
  SmallVector<Value> work(from);
  Operation *best = nullptr;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!reached.insert(v).second)
      continue;
    for (Operation *user : v.getUsers()) {
      if (!order.count(user))
        continue;
      if (std::optional<Linear> l = matchLinear(user);
          l && user->getOperand(0) == v &&
          cast<RankedTensorType>(l->weight.getType())
                  .getDimSize(1 - l->outDim) == features) {
        if (!best || order.lookup(user) < order.lookup(best))
          best = user;
        continue;
      }
      for (Value r : user->getResults())
        work.push_back(r);
    }
  }
  if (!best)
    return std::nullopt;
  return matchLinear(best);
}

/// The attention whose fused projection is `in`, if `in` is one.
std::optional<Attention>
matchAttention(const Linear &in, const DenseMap<Operation *, int64_t> &order) {
  // Through reshapes that keep the features (a 2-D gemm's rows back to
  // batch and sequence).
  Value fused = in.output;
  auto type = cast<RankedTensorType>(fused.getType());
  while (fused.hasOneUse())
    if (auto reshape = dyn_cast<ReshapeOp>(*fused.getUsers().begin());
        reshape && reshape.getType().getRank() > 0 &&
        reshape.getType().getShape().back() == type.getShape().back())
      fused = reshape.getResult();
    else
      break;
  type = cast<RankedTensorType>(fused.getType());
  SplitOp split;
  for (Operation *user : fused.getUsers())
    if (auto s = dyn_cast<SplitOp>(user); s && !split)
      split = s;
  if (!split || static_cast<int64_t>(split.getAxis()) != type.getRank() - 1 ||
      split.getNumResults() < 2)
    return std::nullopt;
  Attention a;
  a.projections = {in};
  a.groups = split.getNumResults();
  int64_t piece = type.getShape().back() / a.groups;
  for (Value v : split.getResults()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape().back() != piece)
      return std::nullopt;
    // Each piece viewed as heads: [..., heads, piece / heads].
    if (int64_t heads = headsOf(v, piece))
      a.heads = heads;
  }
  if (a.heads == 0)
    return std::nullopt;
  a.queryHeads = a.heads;
  std::optional<Linear> output =
      firstLinearReached(split.getResults(), piece, order);
  if (!output)
    return std::nullopt;
  a.output = *output;
  return a;
}

/// The linear layers `from` is computed from, through anything but linears
/// (the heads' layout, rotary embeddings, scaling, grouped-query repeats),
/// or nullopt past `limit` ops.
std::optional<SmallVector<Operation *>> linearsBehind(ValueRange from,
                                                      int limit = 256) {
  SmallVector<Operation *> linears;
  DenseSet<Operation *> seen;
  SmallVector<Value> work(from);
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (--limit == 0)
      return std::nullopt;
    if (matchLinear(def)) {
      linears.push_back(def);
      continue;
    }
    llvm::append_range(work, def->getOperands());
  }
  return linears;
}

/// The linear layers `value` is computed from through elementwise ops only
/// (a gated MLP's act(gate(x)) * up(x)); nullopt when a path ends anywhere
/// but at a linear or a constant.
std::optional<SmallVector<Operation *>> linearsThroughElementwise(Value value) {
  SmallVector<Operation *> linears;
  DenseSet<Operation *> seen;
  SmallVector<Value> work = {value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (!seen.insert(def).second || isa<ConstantOp>(def))
      continue;
    if (matchLinear(def)) {
      linears.push_back(def);
      continue;
    }
    bool elementwise = def->hasTrait<OpTrait::Elementwise>() ||
                       isa<AddOp, SubOp, MulOp, DivOp>(def);
    if (!elementwise || def->getNumResults() != 1 || seen.size() > 64)
      return std::nullopt;
    for (Value operand : def->getOperands())
      // A linear's bias (a parameter vector) belongs to it.
      if (!parameterArg(operand))
        work.push_back(operand);
  }
  return linears;
}

/// Attention with separate q, k and v projections (Hugging Face's BERT,
/// LLaMA with grouped-query heads and rotary embeddings, BART's
/// cross-attention), from its core: `scores` are what the scores are
/// computed from (the queries and keys), `values` the values, `result` the
/// attention's output. Each projection must be viewed as heads, and the
/// output projection read every query head's values.
std::optional<Attention>
matchSeparateAttention(ValueRange scores, Value values, Value result,
                       const DenseMap<Operation *, int64_t> &order) {
  std::optional<SmallVector<Operation *>> scoreLinears = linearsBehind(scores),
                                          valueLinears = linearsBehind(values);
  if (!scoreLinears || !valueLinears || scoreLinears->empty() ||
      valueLinears->empty() || scoreLinears->size() + valueLinears->size() < 2)
    return std::nullopt;
  Attention a;
  int64_t valueHeadSize = 0;
  auto add = [&](Operation *op, bool isValue) {
    Linear l = *matchLinear(op);
    int64_t out = cast<RankedTensorType>(l.weight.getType())
                      .getDimSize(l.outDim);
    int64_t heads = headsOf(l.output, out);
    if (heads == 0)
      return false;
    // The most heads are the queries' (grouped-query keys and values have
    // fewer); every projection's heads must split for its rows to.
    a.heads = a.heads ? std::gcd(a.heads, heads) : heads;
    if (isValue)
      valueHeadSize = out / heads;
    else
      a.queryHeads = std::max(a.queryHeads, heads);
    if (llvm::none_of(a.projections,
                      [&](const Linear &p) { return p.op == op; }))
      a.projections.push_back(l);
    return true;
  };
  for (Operation *op : *scoreLinears)
    if (!add(op, false))
      return std::nullopt;
  for (Operation *op : *valueLinears)
    if (!add(op, true))
      return std::nullopt;
  std::optional<Linear> output =
      firstLinearReached(result, a.queryHeads * valueHeadSize, order);
  if (!output)
    return std::nullopt;
  a.output = *output;
  return a;
}

/// gemm(a, b, bias) as gemm(a, b) + beta * bias, so that the row-parallel
/// matmul's partial sums are combined before the bias is added once.
Operation *splitBias(GemmOp gemm) {
  Value bias = gemm.getBias();
  if (!bias)
    return gemm;
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  auto product = GemmOp::create(
      b, loc, gemm.getA(), gemm.getB(), Value(), gemm.getTransposeAAttr(),
      gemm.getTransposeBAttr(), gemm.getAlphaAttr(), b.getF64FloatAttr(1.0));
  double betaValue = gemm.getBeta().convertToDouble();
  if (betaValue != 1.0) {
    auto type = cast<RankedTensorType>(bias.getType());
    Value beta = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({}, type.getElementType()),
            b.getFloatAttr(type.getElementType(), betaValue)));
    bias = MulOp::create(b, loc, bias, beta);
  }
  Value sum = AddOp::create(b, loc, product.getResult(), bias);
  gemm.getResult().replaceAllUsesWith(sum);
  gemm.erase();
  return product;
}

struct DistTensorParallelPass
    : dist::impl::DistTensorParallelBase<DistTensorParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp meshOp = getMesh(module);
    if (!meshOp) {
      module.emitError(
          "dist-tensor-parallel needs a device mesh: run dist-create-mesh "
          "first "
          "(e.g. --dist-create-mesh=shape=2; dist-compile --mesh)");
      return signalPassFailure();
    }
    ArrayRef<int64_t> mesh = meshOp.getShape();
    if (axis < 0 || axis >= static_cast<int64_t>(mesh.size())) {
      module.emitError("dist-tensor-parallel: axis ")
          << axis << " is not an axis of the mesh (it has " << mesh.size()
          << ")";
      return signalPassFailure();
    }
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn) {
      module.emitError("dist-tensor-parallel: no function @") << function;
      return signalPassFailure();
    }
    int64_t ranks = mesh[axis];
    SmallVector<std::pair<Linear, Linear>> pairs;
    DenseSet<Operation *> used;
    SmallVector<Operation *> ops;
    DenseMap<Operation *, int64_t> order;
    fn.walk([&](Operation *op) {
      order[op] = ops.size();
      ops.push_back(op);
    });
    // Attention first: its output projection is a linear an MLP must not
    // take.
    SmallVector<Attention> attentions, recognized;
    for (Operation *op : ops) {
      std::optional<Linear> fused = matchLinear(op);
      std::optional<Attention> a =
          fused ? matchAttention(*fused, order) : std::nullopt;
      if (!a || used.count(a->output.op))
        continue;
      used.insert(op);
      used.insert(a->output.op);
      recognized.push_back(*a);
      if (a->heads % ranks != 0) {
        op->emitRemark("tensor parallelism: ")
            << a->heads << " attention heads do not split over " << ranks
            << " ranks; this attention stays replicated";
        continue;
      }
      attentions.push_back(*a);
    }
    // Attention the pattern does not know (nn.MultiheadAttention's packed
    // in-projection, separate q/k/v projections) is not split: say so at
    // its softmax, over scores of rank >= 3, outside every attention found.
    auto within = [&](Operation *op, const Attention &a) {
      return llvm::all_of(a.projections,
                          [&](const Linear &l) {
                            return order.lookup(l.op) < order.lookup(op);
                          }) &&
             order.lookup(op) < order.lookup(a.output.op);
    };
    // Attention probabilities multiply the values (through reshapes and
    // dropout); a loss's softmax does not.
    auto weighsValues = [](Value probabilities) {
      SmallVector<Value> worklist = {probabilities};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (Operation *user : v.getUsers()) {
          if (isa<MatmulOp>(user))
            return true;
          if (isa<ReshapeOp, DropoutOp>(user))
            worklist.push_back(user->getResult(0));
        }
      }
      return false;
    };
    // The product of the probabilities and the values, after a softmax:
    // the first in program order (the backward pass multiplies the
    // transposed probabilities by the output's gradient).
    auto valuesProduct = [&](Value probabilities) -> MatmulOp {
      SmallVector<Value> worklist = {probabilities};
      MatmulOp first;
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (Operation *user : v.getUsers()) {
          if (auto product = dyn_cast<MatmulOp>(user);
              product && product.getLhs() == v &&
              !product.getTransposeLhs() && order.count(product) &&
              (!first || order.lookup(product) < order.lookup(first)))
            first = product;
          if (isa<ReshapeOp, DropoutOp>(user))
            worklist.push_back(user->getResult(0));
        }
      }
      return first;
    };
    // (A fused dist.attention is attention for sure.)
    for (Operation *op : ops) {
      auto softmax = dyn_cast<SoftmaxOp>(op);
      bool looksLike = softmax && softmax.getType().getRank() >= 3 &&
                       weighsValues(softmax.getResult());
      if (!(looksLike || isa<AttentionOp>(op)) ||
          llvm::any_of(recognized,
                       [&](const Attention &a) { return within(op, a); }))
        continue;
      std::optional<Attention> separate;
      if (auto fused = dyn_cast<AttentionOp>(op))
        separate = matchSeparateAttention({fused.getQuery(), fused.getKey()},
                                          fused.getValue(), fused.getResult(),
                                          order);
      else if (MatmulOp product = valuesProduct(softmax.getResult()))
        separate = matchSeparateAttention(softmax.getInput(), product.getRhs(),
                                          product.getResult(), order);
      if (separate &&
          llvm::none_of(separate->projections,
                        [&](const Linear &l) { return used.count(l.op); }) &&
          !used.count(separate->output.op)) {
        for (const Linear &l : separate->projections)
          used.insert(l.op);
        used.insert(separate->output.op);
        recognized.push_back(*separate);
        if (separate->heads % ranks != 0) {
          op->emitRemark("tensor parallelism: ")
              << separate->heads << " attention heads do not split over "
              << ranks << " ranks; this attention stays replicated";
          continue;
        }
        attentions.push_back(*separate);
        continue;
      }
      op->emitRemark()
            << "tensor parallelism: this "
            << (softmax ? "softmax looks like attention, but its"
                        : "attention's")
            << " projections are not linear layers viewed as heads (as "
               "GPT-2's c_attn or separate q, k and v projections); it is "
               "not split by heads and stays replicated";
    }
    for (Operation *op : ops) {
      if (used.count(op))
        continue;
      std::optional<Linear> first = matchLinear(op);
      if (!first)
        continue;
      Operation *next = consumingLinear(first->output);
      std::optional<Linear> second =
          next && !used.count(next) ? matchLinear(next) : std::nullopt;
      if (!second)
        continue;
      if (llvm::any_of(pairs, [&](const auto &p) {
            return p.first.weight == first->weight ||
                   p.second.weight == second->weight ||
                   p.first.weight == second->weight ||
                   p.second.weight == first->weight;
          }))
        continue;
      int64_t features = cast<RankedTensorType>(first->weight.getType())
                             .getDimSize(first->outDim);
      if (features % ranks != 0) {
        op->emitRemark("tensor parallelism: ")
            << features << " hidden features do not split over " << ranks
            << " ranks; this MLP stays replicated";
        continue;
      }
      used.insert(op);
      used.insert(next);
      pairs.push_back({*first, *second});
    }
    // Gated MLPs (LLaMA's down(silu(gate(x)) * up(x))): every linear the
    // second reads through elementwise ops column-parallel.
    SmallVector<std::pair<SmallVector<Linear>, Linear>> gated;
    for (Operation *op : ops) {
      std::optional<Linear> second =
          used.count(op) ? std::nullopt : matchLinear(op);
      if (!second)
        continue;
      int64_t features = cast<RankedTensorType>(second->weight.getType())
                             .getDimSize(1 - second->outDim);
      std::optional<SmallVector<Operation *>> behind =
          linearsThroughElementwise(op->getOperand(0));
      if (!behind || behind->size() < 2 ||
          llvm::any_of(*behind, [&](Operation *l) { return used.count(l); }))
        continue;
      SmallVector<Linear> firsts;
      for (Operation *l : *behind) {
        Linear first = *matchLinear(l);
        if (cast<RankedTensorType>(first.weight.getType())
                .getDimSize(first.outDim) == features &&
            first.weight != second->weight)
          firsts.push_back(first);
      }
      if (firsts.size() != behind->size())
        continue;
      if (features % ranks != 0) {
        op->emitRemark("tensor parallelism: ")
            << features << " hidden features do not split over " << ranks
            << " ranks; this MLP stays replicated";
        continue;
      }
      for (const Linear &first : firsts)
        used.insert(first.op);
      used.insert(op);
      gated.push_back({firsts, *second});
    }
    // Shardings by argument, then mirrored onto optimizer state and updates.
    DenseMap<unsigned, SmallVector<DimSharding>> shardings;
    DenseMap<unsigned, std::string> reasons;
    auto split = [&](BlockArgument arg, int64_t dim, int64_t groups,
                     StringRef reason) {
      if (!arg)
        return;
      reasons[arg.getArgNumber()] = reason.str();
      auto type = cast<RankedTensorType>(arg.getType());
      SmallVector<DimSharding> s = replicatedSharding(type.getRank());
      s[dim] = DimSharding::split(axis, groups);
      shardings[arg.getArgNumber()] = s;
    };
    // Row-parallel gemms whose bias must be added after the all-reduce.
    SmallVector<GemmOp> biasSplits;
    // The fused projection by heads: each rank holds its heads of every
    // piece (a strided split); the output projection by input features.
    for (Attention &a : attentions) {
      std::string heads =
          a.groups > 1
              ? llvm::formatv("attention by heads: {0} heads, {1} per rank; "
                              "the q/k/v projection column-parallel (each "
                              "rank its heads of each piece)",
                              a.heads, a.heads / ranks)
                    .str()
              : llvm::formatv("attention by heads: {0} query heads, {1} per "
                              "rank; the q, k and v projections "
                              "column-parallel (each rank its heads)",
                              a.queryHeads, a.queryHeads / ranks)
                    .str();
      for (const Linear &l : a.projections) {
        split(l.weight, l.outDim, a.groups, heads);
        split(l.bias, 0, a.groups, heads);
      }
      split(a.output.weight, 1 - a.output.outDim, 1,
            "attention output projection row-parallel: by the heads each "
            "rank holds, partial sums all-reduced");
      if (auto gemm = dyn_cast<GemmOp>(a.output.op))
        biasSplits.push_back(gemm);
    }
    // Vocabulary parallelism: the loss's classes split (a parallel
    // cross-entropy), with the output head that computes them
    // (column-parallel) and every embedding table with a row per class.
    bool vocabulary = false;
    for (Operation *op : ops) {
      if (!vocab || !isa<CrossEntropyOp, NllLossOp>(op) ||
          op->getNumOperands() != 2)
        continue;
      Value logits = op->getOperand(0);
      int64_t classes = cast<RankedTensorType>(logits.getType()).getDimSize(1);
      if (classes % ranks != 0) {
        op->emitRemark("tensor parallelism: ")
            << classes << " classes do not split over " << ranks
            << " ranks; the embedding and output head stay replicated";
        continue;
      }
      vocabulary = true;
      while (Operation *def = logits.getDefiningOp()) {
        if (isa<ReshapeOp, LogSoftmaxOp>(def)) {
          logits = def->getOperand(0);
          continue;
        }
        if (std::optional<Linear> head = matchLinear(def);
            head && !used.count(def) &&
            cast<RankedTensorType>(head->weight.getType())
                    .getDimSize(head->outDim) == classes) {
          split(head->weight, head->outDim, 1,
                "vocabulary-parallel output head: each rank its classes, "
                "the cross-entropy computed in parallel");
          split(head->bias, 0, 1, "vocabulary-parallel output head");
        }
        break;
      }
      for (Operation *user : ops)
        if (auto gather = dyn_cast<GatherOp>(user))
          if (BlockArgument table = parameterArg(gather.getInput());
              table && gather.getAxis() == 0 &&
              cast<RankedTensorType>(table.getType()).getDimSize(0) == classes)
            split(table, 0, 1,
                  "vocabulary-parallel embedding: each rank its rows of the "
                  "classes, lookups all-reduced");
    }
    auto rowParallel = [&](const Linear &row) {
      split(row.weight, 1 - row.outDim, 1,
            "MLP second linear row-parallel: by the hidden features, partial "
            "sums all-reduced");
      if (auto gemm = dyn_cast<GemmOp>(row.op))
        biasSplits.push_back(gemm);
    };
    for (auto &[column, row] : pairs) {
      split(column.weight, column.outDim, 1,
            "MLP first linear column-parallel: each rank its hidden "
            "features, the activation between runs on them");
      split(column.bias, 0, 1, "MLP first linear column-parallel");
      rowParallel(row);
    }
    for (auto &[columns, row] : gated) {
      for (const Linear &column : columns) {
        split(column.weight, column.outDim, 1,
              "gated MLP linear column-parallel: each rank its hidden "
              "features, the gate's product runs on them");
        split(column.bias, 0, 1, "gated MLP linear column-parallel");
      }
      rowParallel(row);
    }
    // Only now: splitting a bias erases the gemm, which `ops` still lists.
    for (GemmOp gemm : biasSplits)
      splitBias(gemm);
    MLIRContext *ctx = module.getContext();
    if (pairs.empty() && gated.empty() && attentions.empty() && !vocabulary) {
      // Still a per-rank program on the mesh: every rank computes it all.
      fn.emitRemark("tensor parallelism found no MLP (linear, elementwise, "
                    "linear) or attention to split; every rank computes the "
                    "whole step");
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (!fn.getArgAttr(i, DistDialect::kShardingAttrName))
          fn.setArgAttr(
              i, DistDialect::kShardingAttrName,
              ShardingAttr::get(
                  ctx, replicatedSharding(
                           cast<RankedTensorType>(fn.getArgument(i).getType())
                               .getRank())));
      return;
    }
    // An optimizer state is split as its parameter.
    DenseMap<StringRef, unsigned> byName;
    for (auto [i, s] : shardings)
      byName[fn.getArgAttrOfType<FlatSymbolRefAttr>(
                   i, DistDialect::kParameterAttrName)
                 .getValue()] = i;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto state = fn.getArgAttrOfType<OptimizerStateAttr>(
          i, DistDialect::kOptimizerStateAttrName);
      if (!state || !state.getParameter())
        continue;
      auto it = byName.find(state.getParameter().getValue());
      // (State of another shape than its parameter's stays whole.)
      if (it != byName.end() && fn.getArgumentTypes()[it->second] ==
                                    fn.getArgumentTypes()[i]) {
        // Copied first: inserting entry i may rehash the map.
        SmallVector<DimSharding> parameterSharding = shardings[it->second];
        shardings[i] = std::move(parameterSharding);
      }
    }
    for (auto [i, s] : shardings)
      if (!fn.getArgAttr(i, DistDialect::kShardingAttrName)) {
        fn.setArgAttr(i, DistDialect::kShardingAttrName,
                      ShardingAttr::get(ctx, s));
        auto reason = reasons.find(i);
        fn.setArgAttr(i, DistDialect::kSplitReasonAttrName,
                      StringAttr::get(ctx, reason != reasons.end()
                                               ? reason->second
                                               : "optimizer state, split as "
                                                 "its parameter"));
      }
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      auto updates =
          fn.getResultAttrOfType<IntegerAttr>(r, DistDialect::kUpdatesAttrName);
      if (updates && shardings.count(updates.getInt()) &&
          !fn.getResultAttr(r, DistDialect::kShardingAttrName))
        fn.setResultAttr(
            r, DistDialect::kShardingAttrName,
            fn.getArgAttr(updates.getInt(), DistDialect::kShardingAttrName));
    }
  }
};

} // namespace
