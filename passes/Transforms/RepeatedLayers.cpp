//===- RepeatedLayers.cpp - Find a model's repeated layers ---------------===//

#include "passes/Transforms/RepeatedLayers.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistParameters.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// "h.11.attn.c_attn.weight" -> ("h", 11, "attn.c_attn.weight"): the first
/// all-digit component that is neither first nor last.
std::optional<std::tuple<std::string, int64_t, std::string>>
splitLayerName(StringRef name) {
  SmallVector<StringRef> parts;
  name.split(parts, '.');
  for (size_t k = 1; k + 1 < parts.size(); ++k) {
    int64_t index;
    if (parts[k].getAsInteger(10, index) || index < 0)
      continue;
    return std::make_tuple(
        llvm::join(ArrayRef<StringRef>(parts).take_front(k), "."), index,
        llvm::join(ArrayRef<StringRef>(parts).drop_front(k + 1), "."));
  }
  return std::nullopt;
}

} // namespace

FailureOr<RepeatedLayers>
mlir::dist::findRepeatedLayers(func::FuncOp fn, std::string &whyNot) {
  auto fail = [&](std::string why) -> FailureOr<RepeatedLayers> {
    whyNot = std::move(why);
    return failure();
  };
  if (fn.isExternal())
    return fail("the function has no body");
  // Parameters by prefix, then by layer index: (rest, type, argument).
  using Entry = std::tuple<std::string, Type, unsigned>;
  std::map<std::string, std::map<int64_t, SmallVector<Entry>>> byPrefix;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (FlatSymbolRefAttr ref = getParameterRef(fn, i))
      if (auto split = splitLayerName(ref.getValue())) {
        auto &[prefix, index, rest] = *split;
        byPrefix[prefix][index].push_back(
            {rest, fn.getArgument(i).getType(), i});
      }
  const std::map<int64_t, SmallVector<Entry>> *best = nullptr;
  RepeatedLayers layers;
  for (auto &[prefix, indices] : byPrefix)
    if (!best || indices.size() > best->size()) {
      best = &indices;
      layers.prefix = prefix;
    }
  if (!best || best->size() < 2)
    return fail("no parameters named <prefix>.<layer>.<name> for two or "
                "more layers");
  layers.count = static_cast<int64_t>(best->size());
  if (best->begin()->first != 0 || best->rbegin()->first != layers.count - 1)
    return fail(llvm::formatv("the layers of '{0}' are not numbered 0 to {1}",
                              layers.prefix, layers.count - 1));
  auto shape = [](SmallVector<Entry> entries) {
    SmallVector<std::pair<std::string, Type>> s;
    for (auto &[rest, type, arg] : entries)
      s.push_back({rest, type});
    llvm::sort(s, [](auto &a, auto &b) { return a.first < b.first; });
    return s;
  };
  auto first = shape(best->begin()->second);
  for (auto &[index, entries] : *best) {
    if (shape(entries) != first)
      return fail(llvm::formatv("layer {0}.{1} has other parameters than "
                                "{0}.0",
                                layers.prefix, index));
    SmallVector<unsigned> args;
    for (auto &entry : entries)
      args.push_back(std::get<2>(entry));
    layers.parameterArgs.push_back(args);
  }

  // Positions of the body's ops; each layer starts at its first parameter
  // use.
  Block &body = fn.getBody().front();
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : body.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  auto positionOf = [&](Operation *user) -> std::optional<unsigned> {
    Operation *at = body.findAncestorOpInBlock(*user);
    if (!at || !position.count(at))
      return std::nullopt;
    return position.lookup(at);
  };
  SmallVector<std::pair<unsigned, unsigned>> uses; // first and last
  for (auto &args : layers.parameterArgs) {
    unsigned lo = ops.size(), hi = 0;
    for (unsigned arg : args)
      for (Operation *user : fn.getArgument(arg).getUsers()) {
        std::optional<unsigned> p = positionOf(user);
        if (!p)
          continue;
        lo = std::min(lo, *p);
        hi = std::max(hi, *p);
      }
    if (lo == ops.size())
      return fail("a layer's parameters are not used");
    uses.push_back({lo, hi});
    layers.begin.push_back(lo);
  }
  for (int64_t i = 1; i < layers.count; ++i)
    if (layers.begin[i] <= layers.begin[i - 1])
      return fail("the layers do not run one after the other");
  layers.opsPerLayer = layers.begin[1] - layers.begin[0];
  for (int64_t i = 1; i + 1 < layers.count; ++i)
    if (layers.begin[i + 1] - layers.begin[i] != layers.opsPerLayer)
      return fail(llvm::formatv("layer {0}.{1} has {2} ops, {0}.0 has {3}",
                                layers.prefix, i,
                                layers.begin[i + 1] - layers.begin[i],
                                layers.opsPerLayer));
  if (layers.begin.back() + layers.opsPerLayer > ops.size())
    return fail("the last layer is shorter than the others");
  for (int64_t i = 0; i < layers.count; ++i) {
    unsigned begin = layers.begin[i], end = begin + layers.opsPerLayer;
    if (uses[i].second >= end)
      return fail(llvm::formatv("layer {0}.{1} uses its parameters after "
                                "layer {0}.{2} starts",
                                layers.prefix, i, i + 1));
    for (unsigned j = 0; j < layers.opsPerLayer; ++j)
      if (ops[begin + j]->getName() != ops[layers.begin[0] + j]->getName())
        return fail(llvm::formatv("layer {0}.{1} differs from {0}.0 at its "
                                  "op {2} ('{3}' where {0}.0 has '{4}')",
                                  layers.prefix, i, j,
                                  ops[begin + j]->getName(),
                                  ops[layers.begin[0] + j]->getName()));
    // One value leaves the layer; it reads its own values, the prologue's
    // and the previous layer's output only.
    Value out;
    for (unsigned p = begin; p < end; ++p) {
      for (Value result : ops[p]->getResults())
        for (Operation *user : result.getUsers()) {
          std::optional<unsigned> q = positionOf(user);
          if (q && *q >= begin && *q < end)
            continue;
          if (out && out != result)
            return fail(llvm::formatv("layer {0}.{1} passes on more than "
                                      "one value",
                                      layers.prefix, i));
          out = result;
        }
      WalkResult read = ops[p]->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def) {
            // A block argument: this layer's parameters or no layer's.
            auto arg = dyn_cast<BlockArgument>(operand);
            if (!arg || arg.getOwner() != &body)
              continue;
            for (int64_t other = 0; other < layers.count; ++other)
              if (other != i &&
                  llvm::is_contained(layers.parameterArgs[other],
                                     arg.getArgNumber()))
                return WalkResult::interrupt();
            continue;
          }
          std::optional<unsigned> q = positionOf(def);
          if (!q || *q < layers.begin[0] || (*q >= begin && *q < end))
            continue;
          if (i > 0 && operand == layers.out[i - 1])
            continue;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (read.wasInterrupted())
        return fail(llvm::formatv("layer {0}.{1} reads a value of a layer "
                                  "before the previous one or another "
                                  "layer's parameter",
                                  layers.prefix, i));
    }
    if (!out)
      return fail(llvm::formatv("layer {0}.{1} passes nothing on",
                                layers.prefix, i));
    if (i > 0 && out.getType() != layers.out[0].getType())
      return fail(llvm::formatv("layer {0}.{1} passes on a {2}, {0}.0 a {3}",
                                layers.prefix, i, out.getType(),
                                layers.out[0].getType()));
    layers.out.push_back(out);
  }
  return layers;
}

LogicalResult mlir::dist::shrinkLayers(ModuleOp module, func::FuncOp fn,
                                       const RepeatedLayers &layers,
                                       int64_t keep) {
  if (keep < 1)
    return failure();
  if (keep >= layers.count)
    return success();
  Block &body = fn.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  unsigned eraseBegin = layers.begin[keep];
  unsigned eraseEnd = layers.begin.back() + layers.opsPerLayer;
  // What read the last layer's output reads the last kept layer's.
  Value last = layers.out.back();
  last.replaceUsesWithIf(
      layers.out[keep - 1], [&](OpOperand &use) {
        Operation *at = body.findAncestorOpInBlock(*use.getOwner());
        return at && llvm::find(ops, at) >= ops.begin() + eraseEnd;
      });
  for (unsigned p = eraseEnd; p > eraseBegin; --p) {
    Operation *op = ops[p - 1];
    if (!op->use_empty())
      return op->emitError("dist-shrink-layers: still used after the layers "
                           "are cut");
    op->erase();
  }
  // The prologue's values only the cut layers read (their masks).
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && isMemoryEffectFree(&op) &&
        !op.hasTrait<OpTrait::IsTerminator>())
      op.erase();
  llvm::BitVector erase(fn.getNumArguments());
  for (int64_t i = keep; i < layers.count; ++i)
    for (unsigned arg : layers.parameterArgs[i])
      erase.set(arg);
  if (failed(fn.eraseArguments(erase)))
    return failure();
  // Parameters no function reads any more.
  llvm::StringSet<> read;
  for (auto f : module.getOps<func::FuncOp>())
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      if (FlatSymbolRefAttr ref = getParameterRef(f, i))
        read.insert(ref.getValue());
  for (ParameterOp param :
       llvm::make_early_inc_range(module.getOps<ParameterOp>()))
    if (!read.contains(param.getSymName()))
      param.erase();
  return success();
}
