//===- VerifyPlan.cpp - Run a plan against one rank on a smaller copy -----===//

#include "VerifyPlan.h"

#include "passes/Transforms/RepeatedLayers.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace dist_compile;

namespace {

/// Flags left out of both compiles, and those only the plan's takes.
constexpr llvm::StringLiteral kDropped[] = {
    "o",           "emit",          "explain",           "plan-only",
    "time-phases", "input-shape",   "print-pipeline",    "device-spec",
    "plan-search", "memory-per-device", "verify-plan",   "verify-steps",
    "verify-launcher", "verify-tolerance", "mesh",       "parallel",
    "zero",        "microbatches",  "schedule",          "stages",
    "virtual-stages"};
constexpr llvm::StringLiteral kDistribution[] = {"overlap", "bucket-mb",
                                                 "reduce-precision"};
/// Dropped flags that take a value (which may be the next argument).
constexpr llvm::StringLiteral kValued[] = {
    "o",           "emit",         "input-shape",     "device-spec",
    "plan-search", "memory-per-device", "verify-steps", "verify-launcher",
    "verify-tolerance", "mesh",    "parallel",        "zero",
    "microbatches", "schedule",    "stages",          "virtual-stages",
    "bucket-mb",   "reduce-precision"};

/// Runs `args` (args[0] the program), its output to `log`; the exit code
/// or -1.
int run(ArrayRef<std::string> args, StringRef log, unsigned seconds) {
  SmallVector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(""), log, log};
  std::string error;
  std::string program = args.front();
  if (!llvm::sys::path::is_absolute(program)) {
    auto found = llvm::sys::findProgramByName(program);
    if (found)
      program = *found;
  }
  return llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                   seconds, 0, &error);
}

/// The last lines of `log`, indented.
std::string tail(StringRef log) {
  auto buffer = llvm::MemoryBuffer::getFile(log);
  if (!buffer)
    return "";
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().rtrim().split(lines, '\n');
  std::string text;
  for (StringRef line : ArrayRef<StringRef>(lines).take_back(8))
    text += "\n    " + line.str();
  return text;
}

/// step -> (loss, grad_norm) of a trainer's --log-json.
std::map<int64_t, std::pair<double, double>> readLog(StringRef path) {
  std::map<int64_t, std::pair<double, double>> steps;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return steps;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    if (!value) {
      llvm::consumeError(value.takeError());
      continue;
    }
    const llvm::json::Object *o = value->getAsObject();
    if (!o)
      continue;
    auto step = o->getInteger("step");
    auto loss = o->getNumber("loss");
    auto norm = o->getNumber("grad_norm");
    if (step && loss)
      steps[*step] = {*loss, norm ? *norm : 0};
  }
  return steps;
}

} // namespace

void dist_compile::splitFlags(int argc, char **argv, StringRef input,
                              std::vector<std::string> &common,
                              std::vector<std::string> &distribution) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == input)
      continue;
    // -o FILE, -oFILE, -o=FILE
    if (arg.starts_with("-o") && !arg.starts_with("--")) {
      i += arg == "-o";
      continue;
    }
    StringRef name = arg;
    if (!name.consume_front("--") && !name.consume_front("-")) {
      common.push_back(arg.str());
      continue;
    }
    bool inlineValue = name.contains('=');
    name = name.split('=').first;
    bool dropped = llvm::is_contained(kDropped, name);
    bool distributionFlag = llvm::is_contained(kDistribution, name);
    bool takesNext = !inlineValue && llvm::is_contained(kValued, name) &&
                     i + 1 < argc;
    if (dropped) {
      i += takesNext;
      continue;
    }
    auto &to = distributionFlag ? distribution : common;
    to.push_back(arg.str());
    if (takesNext)
      to.push_back(argv[++i]);
  }
}

LogicalResult dist_compile::verifyPlan(ModuleOp model,
                                       const VerifyPlanRequest &request,
                                       raw_ostream &os) {
  // The report goes to `os`; errors, like the compiler's, to stderr.
  auto fail = [&](const Twine &message) {
    os.flush();
    llvm::errs() << "dist-compile: error: --verify-plan: " << message << "\n";
    return failure();
  };
  // A copy with a few layers: one per stage, at least two.
  std::string copyText = "the whole model";
  if (auto fn = model.lookupSymbol<func::FuncOp>(request.entry)) {
    std::string whyNot;
    FailureOr<mlir::dist::RepeatedLayers> layers =
        mlir::dist::findRepeatedLayers(fn, whyNot);
    if (succeeded(layers)) {
      int64_t keep = std::min<int64_t>(
          layers->count, std::max<int64_t>(2, request.stages));
      if (failed(mlir::dist::shrinkLayers(model, fn, *layers, keep)))
        return fail("cannot cut the model's layers");
      copyText = llvm::formatv("a copy with {0} of its {1} layers ('{2}')",
                               keep, layers->count, layers->prefix)
                     .str();
    } else {
      copyText = "the whole model (no repeated layers to cut: " + whyNot + ")";
    }
  }
  // A model planned without weights (examples/gpt/make_gpt.py) gets small
  // deterministic ones: any weights show whether the plan computes what
  // one rank does.
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (auto param : model.getOps<mlir::dist::ParameterOp>()) {
    if (param.getInitialValue())
      continue;
    auto type = dyn_cast<RankedTensorType>(param.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return fail("parameter @" + param.getSymName() +
                  " has no value and is not a float32 tensor to initialize");
    std::vector<float> values(type.getNumElements());
    for (float &v : values) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      v = 0.04f * (static_cast<float>(state >> 40) / 16777216.0f - 0.5f);
    }
    param.setInitialValueAttr(
        DenseElementsAttr::get(type, ArrayRef<float>(values)));
  }
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("dist-verify-plan", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  auto path = [&](StringRef name) {
    SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  struct Cleanup {
    std::string dir;
    ~Cleanup() { llvm::sys::fs::remove_directories(dir); }
  } cleanup{std::string(dir)};
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(path("model.mlir"), ec);
    if (ec)
      return fail("cannot write " + path("model.mlir") + ": " + ec.message());
    model.print(file);
  }
  // The two compiles.
  for (bool distributed : {false, true}) {
    std::vector<std::string> args = {request.self, path("model.mlir")};
    args.insert(args.end(), request.common.begin(), request.common.end());
    if (distributed)
      args.insert(args.end(), request.plan.begin(), request.plan.end());
    args.push_back("-o");
    args.push_back(path(distributed ? "plan" : "one"));
    std::string log = path(distributed ? "plan-compile.log" : "one-compile.log");
    if (run(args, log, 3600) != 0)
      return fail(Twine("compiling ") + copyText +
                  (distributed ? " with the plan" : " for one rank") +
                  " failed:" + tail(log));
  }
  // The two runs, on the same synthetic data.
  std::vector<std::string> train = {"--steps", std::to_string(request.steps),
                                    "--synthetic", "1", "--log-json"};
  std::vector<std::string> one = {path("one")};
  one.insert(one.end(), train.begin(), train.end());
  one.push_back(path("one.jsonl"));
  if (run(one, path("one.log"), 3600) != 0)
    return fail("the one-rank run failed:" + tail(path("one.log")));
  std::vector<std::string> plan = request.launcher;
  plan.push_back("-np");
  plan.push_back(std::to_string(request.ranks));
  plan.push_back(path("plan"));
  plan.insert(plan.end(), train.begin(), train.end());
  plan.push_back(path("plan.jsonl"));
  if (run(plan, path("plan.log"), 3600) != 0)
    return fail("the " + std::to_string(request.ranks) +
                "-rank run under '" + request.launcher.front() +
                "' failed (--verify-launcher sets the launcher and its "
                "flags):" +
                tail(path("plan.log")));
  auto a = readLog(path("one.jsonl")), b = readLog(path("plan.jsonl"));
  if (a.size() != static_cast<size_t>(request.steps) || a.size() != b.size())
    return fail(llvm::formatv("the runs logged {0} and {1} of {2} steps",
                              a.size(), b.size(), request.steps));
  double worst = 0;
  int64_t worstStep = 0;
  std::string worstWhat = "loss";
  for (auto &[step, values] : a) {
    auto other = b.find(step);
    if (other == b.end())
      return fail(llvm::formatv("step {0} is missing from the plan's run",
                                step));
    auto rel = [](double x, double y) -> double {
      if (std::isnan(x) || std::isnan(y))
        return INFINITY;
      return std::fabs(x - y) / std::max(1e-30, std::fabs(x));
    };
    double loss = rel(values.first, other->second.first);
    double norm = rel(values.second, other->second.second);
    if (loss > worst || norm > worst) {
      worst = std::max(loss, norm);
      worstStep = step;
      worstWhat = loss >= norm ? "loss" : "gradient norm";
    }
  }
  os << "verify-plan: " << request.planText << " on " << copyText << ", "
     << request.ranks << " ranks against one for " << request.steps
     << " steps: worst relative difference "
     << llvm::format("%.3g", worst) << " (" << worstWhat << ", step "
     << worstStep << "), tolerance " << llvm::format("%.3g", request.tolerance)
     << "\n";
  if (!(worst <= request.tolerance))
    return fail(llvm::formatv("the plan's {0} differs from one rank's by {1:e} "
                              "at step {2}, more than {3:e}: the plan "
                              "computes something else; please report it "
                              "with the model",
                              worstWhat, worst, worstStep, request.tolerance));
  return success();
}
