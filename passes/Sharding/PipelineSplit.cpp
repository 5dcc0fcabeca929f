//===- PipelineSplit.cpp - Cut the forward into balanced pipeline stages --===//
//
// The forward function's ops, in order, are cut into `stages` contiguous
// runs. Each stage's time is its ops' cost (OpCost.h: FLOPs and bytes) plus
// the bytes of the values that cross its two cuts, weighted as network
// bytes; a dynamic program over the cut positions (PipeDream's partitioner
// on a linear graph) minimizes the slowest stage. Every op gets its stage
// as `dist.stage`, and every parameter argument the first stage that reads
// it; dist-autodiff gives the backward ops their forward op's stage, and
// dist-pipeline-schedule builds one program per stage from the tags.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/OpCost.h"
#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistParameters.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPIPELINESPLIT
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// A byte sent between stages is worth this many FLOPs (a network moves
/// bytes several times slower than memory does).
constexpr double kFlopsPerSentByte = 4 * kFlopsPerByte;

struct Cut {
  SmallVector<int64_t> starts; ///< first op index of each stage
  double slowest = 0;
};

/// What a stage holds, in bytes, if it runs ops [j, i) as stage s: its
/// parameters with their gradients and optimizer state, and its forward
/// values of the micro-batches in flight (1F1B: S - s of M; GPipe: all).
using MemoryOf = function_ref<double(int64_t s, int64_t j, int64_t i)>;

/// Balanced contiguous cut of ops with `cost` (prefix sums) into `stages`,
/// with `crossing[i]` the bytes live across the cut before op i; with a
/// `limit` (bytes, > 0), no stage may hold more.
std::optional<Cut> balance(ArrayRef<double> prefix, ArrayRef<double> crossing,
                           ArrayRef<bool> computes, int64_t stages,
                           MemoryOf memory, double limit) {
  int64_t n = static_cast<int64_t>(prefix.size()) - 1;
  constexpr double inf = std::numeric_limits<double>::infinity();
  // best[s][i]: the slowest of s stages covering ops [0, i); from[s][i]
  // where the last of them starts. A stage must compute something.
  SmallVector<int64_t> computing(n + 1, 0);
  for (int64_t i = 0; i < n; ++i)
    computing[i + 1] = computing[i] + (computes[i] ? 1 : 0);
  std::vector<std::vector<double>> best(stages + 1,
                                        std::vector<double>(n + 1, inf));
  std::vector<std::vector<int64_t>> from(stages + 1,
                                         std::vector<int64_t>(n + 1, -1));
  best[0][0] = 0;
  for (int64_t s = 1; s <= stages; ++s)
    for (int64_t i = 1; i <= n; ++i)
      for (int64_t j = s - 1; j < i; ++j) {
        if (best[s - 1][j] == inf || computing[i] == computing[j])
          continue;
        if (limit > 0 && memory(s - 1, j, i) > limit)
          continue;
        double time = prefix[i] - prefix[j] +
                      kFlopsPerSentByte * (crossing[j] + crossing[i]);
        double slowest = std::max(best[s - 1][j], time);
        if (slowest < best[s][i]) {
          best[s][i] = slowest;
          from[s][i] = j;
        }
      }
  if (best[stages][n] == inf)
    return std::nullopt;
  Cut cut;
  cut.slowest = best[stages][n];
  cut.starts.assign(stages, 0);
  for (int64_t s = stages, i = n; s > 0; --s) {
    i = from[s][i];
    cut.starts[s - 1] = i;
  }
  return cut;
}

std::string where(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at " << op->getLoc();
  return text;
}

struct DistPipelineSplitPass
    : dist::impl::DistPipelineSplitBase<DistPipelineSplitPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn || fn.isExternal()) {
      module.emitError("dist-pipeline-split: no function @") << function;
      return signalPassFailure();
    }
    if (!fn.getBody().hasOneBlock()) {
      fn.emitError("dist-pipeline-split needs a single-block function");
      return signalPassFailure();
    }
    int64_t stages = this->stages;
    if (stages < 1) {
      fn.emitError("dist-pipeline-split: stages must be >= 1, got ")
          << stages;
      return signalPassFailure();
    }
    Block &body = fn.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    int64_t n = ops.size();
    DenseMap<Operation *, int64_t> index;
    for (auto [i, op] : llvm::enumerate(ops))
      index[op] = i;

    // Costs, and the bytes of the values live across each cut (defined
    // before it, used at or after it; the terminator is position n).
    SmallVector<double> prefix(n + 1, 0), crossing(n + 1, 0);
    SmallVector<bool> computes(n);
    SmallVector<double> costs(n);
    for (int64_t i = 0; i < n; ++i) {
      OpCost cost = opCost(ops[i]);
      costs[i] = cost.total();
      computes[i] = cost.total() > 0;
      prefix[i + 1] = prefix[i] + costs[i];
    }
    SmallVector<double> delta(n + 2, 0);
    for (int64_t i = 0; i < n; ++i)
      for (Value result : ops[i]->getResults()) {
        int64_t last = i;
        for (Operation *user : result.getUsers())
          last = std::max(last, user == body.getTerminator()
                                    ? n
                                    : index.lookup(user));
        if (last > i) {
          double bytes = static_cast<double>(tensorBytes(result.getType()));
          delta[i + 1] += bytes;
          delta[last + 1] -= bytes;
        }
      }
    for (int64_t i = 1; i <= n; ++i)
      crossing[i] = crossing[i - 1] + delta[i];
    crossing[0] = crossing[n] = 0;

    int64_t computing = llvm::count(computes, true);
    if (computing < stages) {
      fn.emitError("cannot cut @")
          << function << " into " << stages << " pipeline stages: it has "
          << computing << " op" << (computing == 1 ? "" : "s")
          << " that compute, and every stage needs at least one; use at most "
          << computing << " stages";
      return signalPassFailure();
    }
    // Memory per stage: parameters (each with its gradient and
    // `state-slots` optimizer tensors) and the forward values of the
    // micro-batches in flight, each 1/M of the batch's.
    SmallVector<double> paramPrefix(n + 1, 0), valuePrefix(n + 1, 0);
    {
      DenseSet<Value> counted;
      for (int64_t i = 0; i < n; ++i) {
        double params = 0, values = 0;
        for (Value operand : ops[i]->getOperands())
          if (auto arg = dyn_cast<BlockArgument>(operand);
              arg && fn.getArgAttr(arg.getArgNumber(),
                                   DistDialect::kParameterAttrName) &&
              counted.insert(arg).second)
            params += static_cast<double>(tensorBytes(arg.getType()));
        for (Value result : ops[i]->getResults())
          values += static_cast<double>(tensorBytes(result.getType()));
        paramPrefix[i + 1] = paramPrefix[i] + params;
        valuePrefix[i + 1] = valuePrefix[i] + values;
      }
    }
    int64_t micro = std::max<int64_t>(1, microbatches);
    auto memory = [&](int64_t s, int64_t j, int64_t i) {
      double inFlight = schedule == "gpipe"
                            ? static_cast<double>(micro)
                            : static_cast<double>(
                                  std::min<int64_t>(stages - s, micro));
      return (paramPrefix[i] - paramPrefix[j]) * (2.0 + stateSlots) +
             (valuePrefix[i] - valuePrefix[j]) * inFlight /
                 static_cast<double>(micro);
    };
    double limit = memoryLimitMib * 1024.0 * 1024.0;
    std::optional<Cut> cut =
        balance(prefix, crossing, computes, stages, memory, limit);
    if (!cut) {
      // The smallest peak any cut has, for the message.
      double least = std::numeric_limits<double>::infinity();
      for (double tryLimit = limit * 1.25; tryLimit < 1e15; tryLimit *= 1.25)
        if (balance(prefix, crossing, computes, stages, memory, tryLimit)) {
          least = tryLimit;
          break;
        }
      auto mib = [](double bytes) {
        return llvm::formatv("{0:f1}", bytes / (1024.0 * 1024.0)).str();
      };
      fn.emitError("no cut of @")
          << function << " into " << stages << " pipeline stages fits "
          << mib(limit)
          << " MiB per device (parameters with their gradients and "
             "optimizer state, and the activations of the micro-batches in "
             "flight); the least any cut needs is about "
          << mib(least)
          << " MiB: use more stages, more micro-batches or the 1f1b "
             "schedule, or raise the limit";
      return signalPassFailure();
    }

    MLIRContext *ctx = &getContext();
    auto stageOf = [&](int64_t i) {
      return static_cast<int64_t>(llvm::upper_bound(cut->starts, i) -
                                  cut->starts.begin()) -
             1;
    };
    Type i64 = IntegerType::get(ctx, 64);
    for (int64_t i = 0; i < n; ++i)
      ops[i]->setAttr(DistDialect::kStageAttrName,
                      IntegerAttr::get(i64, stageOf(i)));
    // A parameter belongs to the first stage that reads it.
    SymbolTableCollection symbols;
    SmallVector<ParameterArgument> params =
        getParameterArguments(fn, symbols, /*trainableOnly=*/false);
    SmallVector<double> paramBytes(stages, 0);
    SmallVector<int64_t> paramCount(stages, 0);
    for (ParameterArgument &p : params) {
      BlockArgument arg = fn.getArgument(p.argIndex);
      SmallVector<int64_t> readers;
      for (Operation *user : arg.getUsers())
        if (user != body.getTerminator())
          readers.push_back(stageOf(index.lookup(user)));
      llvm::sort(readers);
      readers.erase(llvm::unique(readers), readers.end());
      int64_t home = readers.empty() ? 0 : readers.front();
      fn.setArgAttr(p.argIndex, DistDialect::kStageAttrName,
                    IntegerAttr::get(i64, home));
      paramBytes[home] += static_cast<double>(tensorBytes(arg.getType()));
      ++paramCount[home];
      if (readers.size() > 1) {
        InFlightDiagnostic remark = emitRemark(fn.getLoc(), "parameter @")
                                    << p.parameter.getSymName()
                                    << " is read by stages";
        for (int64_t s : readers)
          remark << " " << s;
        remark << ": stage " << home
               << " holds it and sends it to the others each step; their "
                  "gradients come back to it";
      }
    }
    if (explain)
      print(fn, ops, costs, crossing, *cut, paramBytes, paramCount, memory);
  }

  void print(func::FuncOp fn, ArrayRef<Operation *> ops,
             ArrayRef<double> costs, ArrayRef<double> crossing, const Cut &cut,
             ArrayRef<double> paramBytes, ArrayRef<int64_t> paramCount,
             MemoryOf memory) {
    int64_t stages = this->stages;
    llvm::raw_ostream &os = llvm::outs();
    int64_t n = ops.size();
    double total = 0;
    for (double c : costs)
      total += c;
    os << "pipeline stages of @" << function << ": " << stages
       << " stages over " << n << " ops, balanced by cost (FLOPs + "
       << llvm::format("%g", kFlopsPerByte) << " x bytes moved + "
       << llvm::format("%g", kFlopsPerSentByte) << " x bytes sent)\n";
    for (int64_t s = 0; s < stages; ++s) {
      int64_t begin = cut.starts[s];
      int64_t end = s + 1 < stages ? cut.starts[s + 1] : n;
      double cost = 0, flops = 0;
      for (int64_t i = begin; i < end; ++i) {
        cost += costs[i];
        flops += opCost(ops[i]).flops;
      }
      os << "  stage " << s << ": ops " << begin << "-" << end - 1 << " ("
         << end - begin << "), cost "
         << llvm::format("%.3g", cost) << " ("
         << llvm::format("%.1f", total > 0 ? 100 * cost / total : 0)
         << "%), " << llvm::format("%.3g", flops) << " FLOPs, "
         << paramCount[s] << " parameters ("
         << llvm::format("%.1f", paramBytes[s] / 1024) << " KiB), about "
         << llvm::format("%.2f", memory(s, begin, end) / (1024.0 * 1024.0))
         << " MiB held\n";
      os << "    from " << where(ops[begin]) << "\n";
      os << "    to   " << where(ops[end - 1]) << "\n";
      if (s + 1 < stages)
        os << "    cut: " << llvm::format("%.0f", crossing[end])
           << " bytes per step cross to stage " << s + 1 << "\n";
    }
    os << "  slowest stage: " << llvm::format("%.3g", cut.slowest)
       << " (a perfect split: "
       << llvm::format("%.3g", total / static_cast<double>(stages)) << ")\n";
  }
};

} // namespace
