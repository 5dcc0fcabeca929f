//===- ExplainParameterServer.cpp - --explain of parameter-server mode ----===//

#include "tools/dist-compile/ExplainParameterServer.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistParameters.h"
#include "passes/CostModel/CostModel.h"
#include "passes/Pipelines/TrainingStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// "1.79 MiB", "935.0 KiB".
std::string bytesText(double bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytes >= 1024.0 * 1024.0)
    os << llvm::format("%.2f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0)
    os << llvm::format("%.1f KiB", bytes / 1024.0);
  else
    os << llvm::format("%.0f B", bytes);
  return text;
}

/// The bytes a push spends on a float32 gradient of `elements` (the
/// runtime's PushCodec::encodedBytes).
int64_t pushedBytes(StringRef compression, int64_t elements) {
  if (compression == "bf16" || compression == "fp16")
    return 2 * elements;
  double fraction;
  if (compression.consume_front("topk:") &&
      !compression.getAsDouble(fraction)) {
    auto kept = static_cast<int64_t>(
        std::ceil(fraction * static_cast<double>(elements)));
    return 8 * std::min(elements, std::max<int64_t>(kept, 1));
  }
  return 4 * elements;
}

struct Server {
  SmallVector<std::string> params;
  int64_t paramBytes = 0, stateBytes = 0, pushedBytes = 0;
};

/// What each of the `servers` update functions owns.
SmallVector<Server> ownedByServers(ModuleOp module, int64_t servers,
                                   StringRef compression) {
  SmallVector<Server> owned(servers);
  for (int64_t k = 0; k < servers; ++k) {
    auto fn = module.lookupSymbol<func::FuncOp>(
        TrainingStepOptions::serverFunction(k));
    if (!fn)
      continue;
    for (unsigned a = 0; a < fn.getNumArguments(); ++a) {
      int64_t bytes = tensorBytes(fn.getArgumentTypes()[a]);
      if (FlatSymbolRefAttr param = getParameterRef(fn, a)) {
        owned[k].params.push_back(param.getValue().str());
        owned[k].paramBytes += bytes;
        owned[k].pushedBytes += pushedBytes(
            compression,
            cast<RankedTensorType>(fn.getArgumentTypes()[a]).getNumElements());
      } else if (fn.getArgAttr(a, DistDialect::kOptimizerStateAttrName)) {
        owned[k].stateBytes += bytes;
      }
    }
  }
  return owned;
}

} // namespace

void mlir::dist::explainAsyncDataParallel(ModuleOp module, StringRef worker,
                                          int64_t ranks,
                                          const cost::DeviceSpec *spec,
                                          bool json, llvm::raw_ostream &os) {
  Server all = ownedByServers(module, 1, "none").front();
  // One all-reduce per step: the loss, then every gradient.
  double bytes = static_cast<double>(all.paramBytes + 4);
  double seconds = -1;
  if (spec) {
    cost::Link link = cost::meshLinks(*spec, {ranks}).front();
    seconds = cost::collectiveSeconds(cost::Collective::allReduce, ranks,
                                      bytes, link);
  }
  if (json) {
    llvm::json::Object plan{
        {"mode", "async-data-parallel"},
        {"ranks", ranks},
        {"worker_function", worker.str()},
        {"update_function", TrainingStepOptions::serverFunction(0)},
        {"parameters", static_cast<int64_t>(all.params.size())},
        {"parameter_bytes", all.paramBytes},
        {"state_bytes", all.stateBytes},
        {"all_reduce_bytes_per_step", bytes}};
    if (spec) {
      plan["device"] = spec->name;
      plan["predicted_all_reduce_seconds_per_step"] = seconds;
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(plan))) << "\n";
    return;
  }
  os << "asynchronous data parallelism: " << ranks
     << " ranks (mpirun -np " << ranks << "), each with the whole model ("
     << all.params.size() << " parameters, " << bytesText(all.paramBytes)
     << ", optimizer state " << bytesText(all.stateBytes) << ")\n"
     << "  per step each rank all-reduces " << bytesText(bytes)
     << " of gradients, started after its step and applied --staleness S "
        "steps later (run-time option, default 1; 0 is synchronous)\n";
  if (spec)
    os << "  the all-reduce: ~" << llvm::format("%.3g", seconds * 1e3)
       << " ms per step on " << spec->name
       << " (started after the step and waited for S steps later; MPI "
          "moves it only while the rank waits, so what S hides is a slow "
          "rank's lag, not the transfer)\n";
}

void mlir::dist::explainParameterServer(ModuleOp module, StringRef worker,
                                        int64_t workers, int64_t servers,
                                        StringRef compression,
                                        const cost::DeviceSpec *spec,
                                        bool json, llvm::raw_ostream &os) {
  SmallVector<Server> owned = ownedByServers(module, servers, compression);
  // Per step: each worker pushes every gradient (and its loss) and pulls
  // every parameter; the busiest server receives and sends its share once
  // per worker, one message each way.
  int64_t total = 0, pushed = 0;
  double serverIn = 0, serverOut = 0;
  for (const Server &s : owned) {
    total += s.paramBytes;
    pushed += s.pushedBytes + 4;
    double in = static_cast<double>(workers) * (s.pushedBytes + 4);
    double out = static_cast<double>(workers) * (s.paramBytes + 8);
    if (in + out > serverIn + serverOut) {
      serverIn = in;
      serverOut = out;
    }
  }
  double push = static_cast<double>(pushed);
  double seconds = -1;
  if (spec) {
    int64_t ranks = workers + servers;
    cost::Link link = cost::meshLinks(*spec, {ranks}).front();
    seconds = cost::collectiveSeconds(cost::Collective::pointToPoint, 2,
                                      serverIn + serverOut, link) +
              static_cast<double>(2 * workers - 1) * link.latency;
  }
  if (json) {
    llvm::json::Array list;
    for (auto [k, s] : llvm::enumerate(owned)) {
      llvm::json::Array names;
      for (const std::string &n : s.params)
        names.push_back(n);
      list.push_back(llvm::json::Object{
          {"server", static_cast<int64_t>(k)},
          {"rank", workers + static_cast<int64_t>(k)},
          {"parameters", std::move(names)},
          {"parameter_bytes", s.paramBytes},
          {"state_bytes", s.stateBytes}});
    }
    llvm::json::Object plan{
        {"mode", "parameter-server"},
        {"workers", workers},
        {"servers", std::move(list)},
        {"worker_function", worker.str()},
        {"grad_compression", compression.str()},
        {"uncompressed_push_bytes_per_worker_step",
         static_cast<double>(total + 4 * servers)},
        {"push_bytes_per_worker_step", push},
        {"pull_bytes_per_worker_step", static_cast<double>(total + 8 * servers)},
        {"busiest_server_bytes_per_step", serverIn + serverOut}};
    if (spec) {
      plan["device"] = spec->name;
      plan["predicted_transfer_seconds_per_step"] = seconds;
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(plan))) << "\n";
    return;
  }
  os << "parameter-server mode: " << workers << " workers (ranks 0-"
     << workers - 1 << "), " << servers << " server"
     << (servers > 1 ? "s" : "") << " (ranks " << workers << "-"
     << workers + servers - 1 << "): mpirun -np " << workers + servers
     << "\n";
  for (auto [k, s] : llvm::enumerate(owned))
    os << "  server " << k << " (rank " << workers + static_cast<int64_t>(k)
       << "): " << s.params.size() << " parameters, "
       << bytesText(s.paramBytes) << ", optimizer state "
       << bytesText(s.stateBytes) << "\n";
  os << "  per step each worker pushes " << bytesText(push)
     << " of gradients";
  if (compression != "none")
    os << " (" << compression << "; "
       << bytesText(static_cast<double>(total + 4 * servers))
       << " uncompressed)";
  os << " and pulls " << bytesText(total + 8 * servers)
     << " of parameters; the busiest server receives "
     << bytesText(serverIn) << " and sends " << bytesText(serverOut)
     << " (asynchronous: the same per update of one worker)\n";
  if (spec)
    os << "  transfers at the busiest server: ~"
       << llvm::format("%.3g", seconds * 1e3) << " ms per step on "
       << spec->name << "\n";
}
