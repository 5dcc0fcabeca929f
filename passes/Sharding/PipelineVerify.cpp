//===- PipelineVerify.cpp - Pipeline stages' programs cannot deadlock -----===//
//
// dist-pipeline-verify, and the check dist-pipeline-schedule runs on what
// it builds: the stages' sends and receives, run against each other.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/PipelineVerify.h"
#include "passes/Sharding/Passes.h"

#include <map>

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPIPELINEVERIFY
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;


namespace {

/// A send or receive of a stage's program, for the deadlock check.
struct Transfer {
  bool send;
  int64_t peer, tag;
  Operation *op;
};

} // namespace

/// Runs the stages' programs against each other: sends never wait,
/// receives wait for their send. Fails naming where each stuck stage waits
/// if they cannot all finish, or a send without its receive.
LogicalResult mlir::dist::verifySchedule(MutableArrayRef<func::FuncOp> stageFns,
                                        int64_t axis) {
  int64_t stages = stageFns.size();
  SmallVector<SmallVector<Transfer>> programs(stages);
  for (auto [s, stageFn] : llvm::enumerate(stageFns))
    stageFn.walk([&](Operation *op) {
      if (auto send = dyn_cast<SendOp>(op))
        programs[s].push_back({true, static_cast<int64_t>(send.getPeer()),
                               static_cast<int64_t>(send.getTag()), op});
      else if (auto recv = dyn_cast<RecvOp>(op))
        programs[s].push_back({false, static_cast<int64_t>(recv.getPeer()),
                               static_cast<int64_t>(recv.getTag()), op});
    });
  // (tag) -> (from, to, type) of each send made so far.
  std::map<int64_t, std::tuple<int64_t, int64_t, Type>> sent;
  std::map<int64_t, int64_t> received;
  SmallVector<size_t> next(stages, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t s = 0; s < stages; ++s)
      for (; next[s] < programs[s].size(); ++next[s], progress = true) {
        Transfer &t = programs[s][next[s]];
        if (t.send) {
          Type type = cast<SendOp>(t.op).getInput().getType();
          if (!sent.try_emplace(t.tag, s, t.peer, type).second)
            return t.op->emitError("pipeline tag ")
                   << t.tag << " is sent twice";
          continue;
        }
        auto it = sent.find(t.tag);
        if (it == sent.end())
          break;
        auto [from, to, type] = it->second;
        if (from != t.peer || to != s ||
            type != cast<RecvOp>(t.op).getResult().getType())
          return t.op->emitError("pipeline tag ")
                 << t.tag << " is sent by stage " << from << " to stage "
                 << to << " as " << type << ", received by stage " << s
                 << " from stage " << t.peer;
        ++received[t.tag];
      }
  }
  bool stuck = false;
  for (int64_t s = 0; s < stages; ++s)
    if (next[s] < programs[s].size()) {
      Transfer &t = programs[s][next[s]];
      t.op->emitError("the pipeline schedule deadlocks: stage ")
          << s << " waits forever for tag " << t.tag << " from stage "
          << t.peer << " (mesh axis " << axis << ")";
      stuck = true;
    }
  if (stuck)
    return failure();
  for (auto &[tag, what] : sent)
    if (received[tag] != 1)
      return stageFns.front().emitError("pipeline tag ")
             << tag << " sent by stage " << std::get<0>(what)
             << " is received " << received[tag] << " times";
  return success();
}


namespace {

struct DistPipelineVerifyPass
    : dist::impl::DistPipelineVerifyBase<DistPipelineVerifyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto pipeline =
        module->getAttrOfType<DictionaryAttr>(DistDialect::kPipelineAttrName);
    auto functions = pipeline ? pipeline.getAs<ArrayAttr>("functions")
                              : ArrayAttr();
    auto axis = pipeline ? pipeline.getAs<IntegerAttr>("axis") : IntegerAttr();
    if (!functions || !axis) {
      module.emitError("dist-pipeline-verify: the module has no "
                       "'dist.pipeline' {axis, functions} (dist-pipeline-"
                       "schedule writes it)");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> stageFns;
    for (Attribute f : functions) {
      auto ref = dyn_cast<FlatSymbolRefAttr>(f);
      auto fn = ref ? module.lookupSymbol<func::FuncOp>(ref) : func::FuncOp();
      if (!fn) {
        module.emitError("dist-pipeline-verify: no stage function ") << f;
        return signalPassFailure();
      }
      stageFns.push_back(fn);
    }
    if (failed(verifySchedule(stageFns, axis.getInt())))
      signalPassFailure();
  }
};

} // namespace
