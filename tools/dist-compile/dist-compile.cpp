//===- dist-compile.cpp - Models to native executables --------------------===//
//
//   dist-compile model.onnx -o model        # model + model.safetensors
//   ./model --input x=x.npy --output-dir out
//
// Imports the model (ONNX or dist MLIR text), lowers it with the
// dist-lower-to-llvm pipeline (or --pipeline), emits an object file in
// process, and links it with the runtime's generic main and libdistrt. The
// parameters go to <output>.safetensors, which the executable reads at start.
// --emit stops after a stage and prints it: dist, linalg, llvm (LLVM IR) or
// obj.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistParameters.h"
#include "passes/Import/OnnxDiagnostics.h"
#include "passes/Import/OnnxImporter.h"
#include "passes/InitAll.h"
#include "passes/Pipelines/Pipelines.h"
#include "passes/Pipelines/TrainingStep.h"
#include "passes/Planner/PlanSearch.h"
#include "passes/Transforms/Passes.h"
#include "passes/Transforms/TopKCompression.h"

#include "tools/dist-compile/ExplainParameterServer.h"
#include "tools/dist-compile/Link.h"
#include "tools/dist-compile/ObjectEmission.h"
#include "tools/dist-compile/VerifyPlan.h"
#include "tools/dist-compile/WeightsFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <limits>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

enum class Stage { Dist, Linalg, Mlir, LLVMIR, Object, Executable };

cl::OptionCategory category("dist-compile options");
cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                   cl::desc("<model.onnx | model.mlir>"),
                                   cl::cat(category));
cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                    cl::value_desc("path"), cl::cat(category));
cl::opt<Stage>
    emit("emit", cl::desc("What to produce (default: an executable)"),
         cl::values(clEnumValN(Stage::Dist, "dist",
                               "the dist dialect: the imported model, or with "
                               "--train / --gradients / --mesh the (per-rank) "
                               "step, which dist-compile compiles as is"),
                    clEnumValN(Stage::Linalg, "linalg",
                               "linalg on tensors, after dist-lower-to-linalg"),
                    clEnumValN(Stage::Mlir, "mlir",
                               "the LLVM dialect module the whole pipeline "
                               "(--print-pipeline) makes"),
                    clEnumValN(Stage::LLVMIR, "llvm", "optimized LLVM IR text"),
                    clEnumValN(Stage::Object, "obj", "an object file"),
                    clEnumValN(Stage::Executable, "exe",
                               "an executable and its weights file")),
         cl::init(Stage::Executable), cl::cat(category));
cl::opt<std::string> pipeline(
    "pipeline",
    cl::desc("Pass pipeline from the dist dialect to the LLVM dialect, "
             "replacing dist-lower-to-llvm (see --print-pipeline)"),
    cl::cat(category));
enum class Target { Cpu, Cuda, CudaEmulate };
cl::opt<Target> target(
    "target", cl::desc("Where the executable runs (default: cpu)"),
    cl::values(clEnumValN(Target::Cpu, "cpu", "the host's CPU (MPI + BLAS)"),
               clEnumValN(Target::Cuda, "cuda",
                          "one NVIDIA GPU: generated kernels + cuBLASLt "
                          "(docs/cuda-backend.md)"),
               clEnumValN(Target::CudaEmulate, "cuda-emulate",
                          "the CUDA target's kernels run on the CPU, one "
                          "thread after another: checks the kernel "
                          "generation without a GPU (slow)")),
    cl::init(Target::Cpu), cl::cat(category));
cl::opt<std::string>
    gpuArch("gpu-arch",
            cl::desc("With --target=cuda: the GPU to compile for, sm_80, "
                     "sm_89, sm_90 (default) or sm_100"),
            cl::init("sm_90"), cl::cat(category));
cl::opt<std::string> cudaToolkit(
    "cuda-toolkit",
    cl::desc("With --target=cuda: the CUDA toolkit whose ptxas, fatbinary "
             "and libdevice build the kernels (default: $CUDA_HOME, "
             "$CUDA_PATH, /usr/local/cuda)"),
    cl::cat(category));
cl::opt<bool> printPipeline("print-pipeline",
                            cl::desc("Print the lowering pipeline and exit"),
                            cl::cat(category));
cl::opt<std::string> entry("entry", cl::desc("The function to compile"),
                           cl::init("forward"), cl::cat(category));
cl::opt<bool> gradients(
    "gradients",
    cl::desc("Compile the gradient function instead (dist-autodiff): the "
             "executable outputs the loss and one <param>.grad per trainable "
             "parameter"),
    cl::cat(category));
cl::opt<std::string>
    loss("loss",
         cl::desc("With --gradients or --train: the output to differentiate "
                  "(default: the one named loss, or the only float scalar); or "
                  "cross-entropy:<output>,<labels> to add a mean cross-entropy "
                  "over <output> (classes last) against a new int64 input "
                  "<labels>"),
         cl::cat(category));
cl::opt<bool>
    train("train",
          cl::desc("Compile a trainer: dist-autodiff + dist-optimizer build "
                   "@train_step, and the executable trains (docs/training.md)"),
          cl::cat(category));
cl::opt<std::string> optimizerName("optimizer",
                                   cl::desc("With --train: sgd or adamw"),
                                   cl::init("sgd"), cl::cat(category));
cl::opt<double> learningRate("lr", cl::desc("With --train: learning rate"),
                             cl::init(1e-3), cl::cat(category));
cl::opt<double> momentum("momentum", cl::desc("SGD momentum"), cl::init(0.0),
                         cl::cat(category));
cl::opt<bool> nesterov("nesterov", cl::desc("SGD with Nesterov momentum"),
                       cl::cat(category));
cl::opt<double> weightDecay("weight-decay",
                            cl::desc("Weight decay (decoupled for AdamW)"),
                            cl::init(0.0), cl::cat(category));
cl::opt<double> beta1("beta1", cl::desc("AdamW beta1"), cl::init(0.9),
                      cl::cat(category));
cl::opt<double> beta2("beta2", cl::desc("AdamW beta2"), cl::init(0.999),
                      cl::cat(category));
cl::opt<double> adamEps("eps", cl::desc("AdamW epsilon"), cl::init(1e-8),
                        cl::cat(category));
cl::opt<double> maxGradNorm("max-grad-norm",
                            cl::desc("Clip the global gradient norm (0: off)"),
                            cl::init(0.0), cl::cat(category));
cl::opt<int64_t> warmupSteps("warmup-steps", cl::desc("Linear warmup steps"),
                             cl::init(0), cl::cat(category));
cl::opt<int64_t> decaySteps("decay-steps",
                            cl::desc("Step where cosine decay reaches "
                                     "--min-lr (0: no decay)"),
                            cl::init(0), cl::cat(category));
cl::opt<double> minLr("min-lr", cl::desc("Learning rate after the decay"),
                      cl::init(0.0), cl::cat(category));
cl::opt<std::string>
    meshShape("mesh",
              cl::desc("With --train: the device mesh, e.g. 4 or 2x2 (one "
                       "process per device under mpirun; docs/parallelism.md)"),
              cl::cat(category));
cl::opt<std::string>
    parallel("parallel",
             cl::desc("With --mesh: what each mesh axis does, in order: dp "
                      "(data parallel), tp (tensor parallel, Megatron's "
                      "recipes: MLPs, attention by heads, embeddings and "
                      "cross-entropy by vocabulary) or pp (pipeline "
                      "stages), e.g. dp,tp on a 2x2 mesh; or auto: the "
                      "planner chooses (and --explain says why); or ps: "
                      "parameter-server mode, --mesh=W workers and "
                      "--servers=K servers"),
             cl::cat(category));
cl::opt<int64_t> psServers(
    "servers",
    cl::desc("With --parallel=ps: the parameter servers (default 1); the "
             "workers are --mesh=W, and the program runs as mpirun -np W+K "
             "(ranks W.. are the servers; docs/parallelism.md)"),
    cl::init(1), cl::cat(category));
cl::opt<std::string> syncMode(
    "sync",
    cl::desc("With --parallel=dp: sync (default: every step all-reduces "
             "and applies the step's gradients) or async (the step in two "
             "halves: each step's all-reduce is started and its update "
             "applied --staleness S steps later, S a run-time option; "
             "docs/parallelism.md). Parameter-server programs take --sync "
             "when they run"),
    cl::init("sync"), cl::cat(category));
cl::opt<int64_t> microbatches(
    "microbatches",
    cl::desc("Micro-batches per step (default 1): with --parallel=pp each "
             "pipeline stage runs the batch in this many pieces; without, "
             "gradient accumulation (the pieces run one after another and "
             "their gradients add up before one optimizer step)"),
    cl::init(1), cl::cat(category));
cl::opt<std::string> pipelineSchedule(
    "schedule",
    cl::desc("With --parallel=pp: gpipe (every forward, then every "
             "backward), 1f1b (default: one forward, one backward in turn "
             "once the pipeline is full) or interleaved (1F1B over "
             "--virtual-stages chunks per rank)"),
    cl::init("1f1b"), cl::cat(category));
cl::opt<int64_t> virtualStages(
    "virtual-stages",
    cl::desc("With --schedule=interleaved: model chunks per pipeline rank "
             "(default 2 for interleaved; the forward is cut into ranks x "
             "this stages, chunk c on rank c % ranks)"),
    cl::init(1), cl::cat(category));
cl::opt<std::string> deviceSpec(
    "device-spec",
    cl::desc("With --explain: also predict the step's time on this device: "
             "h100-sxm, h200, a100-80g, cpu-here, or a JSON description "
             "(devices/*.json's format; distrt-calibrate writes one)"),
    cl::cat(category));
cl::opt<double> memoryPerDevice(
    "memory-per-device",
    cl::desc("With --parallel=auto: the GiB each device may hold (default: "
             "the device description's memory); plans that need more are "
             "ruled out"),
    cl::init(0), cl::cat(category));
cl::opt<std::string> planSearch(
    "plan-search",
    cl::desc("With --parallel=auto: exhaustive (build every plan of the "
             "mesh's axes), layers (factor the devices into dp x pp x tp and "
             "compose each plan from one repeated layer solved once) or auto "
             "(default: layers above 8 devices when the model has repeated "
             "layers)"),
    cl::init("auto"), cl::cat(category));

/// Above this many devices --plan-search=auto composes plans by layer.
constexpr int64_t kExhaustiveDevices = 8;

cl::opt<bool> verifyPlanFlag(
    "verify-plan",
    cl::desc("With --train and --mesh: after compiling, check the plan: a "
             "copy of the model with a few of its repeated layers is "
             "compiled for one rank and with the plan, both train "
             "--verify-steps steps on the same synthetic data (the plan "
             "under --verify-launcher) and their losses and gradient norms "
             "must agree within --verify-tolerance"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> verifySteps("verify-steps",
                             cl::desc("With --verify-plan: steps to train "
                                      "(default 3)"),
                             cl::init(3), cl::cat(category));
cl::opt<std::string> verifyLauncher(
    "verify-launcher",
    cl::desc("With --verify-plan: the launcher and its flags, before -np N "
             "(default mpirun; as root on a small machine: 'mpirun "
             "--allow-run-as-root --oversubscribe')"),
    cl::init("mpirun"), cl::cat(category));
cl::opt<double> verifyTolerance(
    "verify-tolerance",
    cl::desc("With --verify-plan: the largest relative difference allowed "
             "(default 1e-5 in fp32, 2e-2 with --precision=bf16 or fp16)"),
    cl::init(0), cl::cat(category));

cl::opt<bool> planOnly(
    "plan-only",
    cl::desc("With --parallel=auto: print the plan search and stop, without "
             "compiling"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> stageCount(
    "stages",
    cl::desc("With pp in --parallel: how many stages to cut the forward into "
             "(default: the pp axis's size; a multiple of it runs the "
             "interleaved schedule with stages / size chunks per rank)"),
    cl::init(0), cl::cat(category));
cl::opt<double> stageMemory(
    "stage-memory",
    cl::desc("With --parallel=pp: MiB a pipeline stage may hold (its "
             "parameters, gradients and optimizer state, and its "
             "micro-batches' activations); the cut respects it (default: no "
             "limit)"),
    cl::init(0.0), cl::cat(category));
cl::opt<int64_t> zeroStage("zero",
                           cl::desc("With --parallel=dp: ZeRO stage 0, 1 "
                                    "(optimizer state split) or 2 (and "
                                    "gradients reduce-scattered)"),
                           cl::init(0), cl::cat(category));
cl::opt<bool> overlapCollectives(
    "overlap",
    cl::desc("With --mesh: bucket the gradient all-reduces and overlap them "
             "with the backward pass (default true)"),
    cl::init(true), cl::cat(category));
cl::opt<double> bucketMb("bucket-mb",
                         cl::desc("With --overlap: bucket size in MiB "
                                  "(default 25)"),
                         cl::init(25.0), cl::cat(category));
cl::opt<std::string> remat(
    "remat",
    cl::desc("With --train: recompute activations in the backward pass "
             "instead of keeping them: none (default on the CPU), full (keep only "
             "stage boundaries, as torch.utils.checkpoint per block) or "
             "selective (also keep weight products; recompute norms, GELU, "
             "attention scores, dropout), auto (with --memory-budget) or "
             "cheap (keep the fewest bytes while recomputing only "
             "elementwise ops, softmax and norms next to their backward "
             "reads: the default of --target=cuda and cuda-emulate); "
             "docs/memory.md"),
    cl::init("none"), cl::cat(category));
cl::opt<std::string> precision(
    "precision",
    cl::desc("With --train or --gradients: the compute type of matrix "
             "products and convolutions: fp32 (default), bf16 or fp16 "
             "(mixed precision: fp32 accumulation, fp32 master weights, "
             "gradients and optimizer state); docs/memory.md"),
    cl::init("fp32"), cl::cat(category));
cl::opt<std::string> gradCompression(
    "grad-compression",
    cl::desc("With --parallel=dp: compress the data-parallel gradient "
             "reduction: none (default), bf16 or fp16 (each rank rounds its "
             "part, the sum is taken in that type: half the bytes; fp16 "
             "wants --loss-scale), powersgd:R (PowerSGD's rank-R "
             "approximation of each weight matrix, with error feedback) or "
             "topk:F (each rank sends the fraction F of each gradient's "
             "elements, largest first, with error feedback). With "
             "--parallel=ps: the workers' pushes, bf16, fp16 or topk:F; "
             "docs/parallelism.md"),
    cl::init("none"), cl::cat(category));
cl::opt<std::string> reducePrecision(
    "reduce-precision",
    cl::desc("With --precision=bf16|fp16 and a mesh: all-reduce the partial "
             "sums of 16-bit products (data-parallel weight gradients, "
             "tensor-parallel row-parallel outputs) in the compute type "
             "(compute, the default: half the bytes) or widened to fp32 "
             "first (fp32: each rank's part rounded once, the sum exact in "
             "float32); docs/memory.md"),
    cl::init("compute"), cl::cat(category));
cl::opt<std::string> lossScale(
    "loss-scale",
    cl::desc("With --train: loss scaling, PyTorch's GradScaler: dynamic "
             "(the default with --precision=fp16; dynamic:INIT starts at "
             "INIT instead of 65536), static:X (a fixed scale) or none (the "
             "default otherwise). Steps with inf/nan gradients are skipped; "
             "docs/memory.md"),
    cl::init(""), cl::cat(category));
cl::opt<int64_t> lossScaleGrowthInterval(
    "loss-scale-growth-interval",
    cl::desc("With --loss-scale=dynamic: double the scale after this many "
             "steps in a row without inf/nan gradients (default 2000)"),
    cl::init(2000), cl::cat(category));
cl::opt<double> memoryBudget(
    "memory-budget",
    cl::desc("With --remat=auto: MiB of forward activations the backward "
             "may keep; whole stages are kept where recomputing them would "
             "cost the most, the rest recomputed (--explain says which)"),
    cl::init(0.0), cl::cat(category));
cl::opt<std::string> explainFlag(
    "explain",
    cl::desc("With --train: print each argument of the step (trained, "
             "frozen, state), and with --mesh its split (and why) and each "
             "inserted collective (kind, bytes, mesh axes, source op); "
             "--explain=json prints the same (and the planner's search) as "
             "one JSON object per line, for tools"),
    cl::ValueOptional, cl::cat(category));
/// --explain given (as text or json).
bool explain = false;
cl::opt<bool> gemmRuntime(
    "gemm-runtime",
    cl::desc("Call the runtime's BLAS gemm for f32/f64 matrix products "
             "(default true)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> approximateMath(
    "approximate-math",
    cl::desc("Inline polynomial approximations of f32 exp, log, tanh and erf "
             "(default true; false calls libm)"),
    cl::init(true), cl::cat(category));
cl::opt<std::string> cpu("cpu",
                         cl::desc("Target CPU: native (default) or an LLVM "
                                  "CPU name such as x86-64-v3 or generic"),
                         cl::init("native"), cl::cat(category));
cl::opt<unsigned> optLevel("O",
                           cl::desc("LLVM optimization level of the host "
                                    "code, 0 to 3 (default 2; 0 with "
                                    "--target=cuda)"),
                           cl::init(2), cl::Prefix, cl::cat(category));
cl::opt<bool> timePhases("time-phases",
                         cl::desc("Print the time each phase takes"),
                         cl::cat(category));
cl::opt<bool> fuseAttention(
    "fuse-attention",
    cl::desc("Fuse softmax(mask(scale * Q K^T)) V into one dist.attention "
             "that never stores the scores (default: on for --target=cpu, "
             "off for the CUDA targets until their kernel is measured on a "
             "GPU; docs/training.md)"),
    cl::cat(category));
cl::opt<bool> evalMode(
    "eval",
    cl::desc("Compile the forward pass with eval-mode semantics (no dropout, "
             "batch norm with running statistics) from a training-mode "
             "export; it reads a trainer checkpoint's params.safetensors"),
    cl::cat(category));
cl::opt<dist::OnnxImportOptions::FoldedCopies> foldedCopies(
    "folded-copies",
    cl::desc("With --train or --gradients on an eval-mode export whose "
             "exporter merged equal weight copies it folded: what they are "
             "(docs/training.md)"),
    cl::values(clEnumValN(dist::OnnxImportOptions::FoldedCopies::Shared,
                          "shared",
                          "one weight the model uses more than once (a layer "
                          "applied twice): train them as one tensor"),
               clEnumValN(dist::OnnxImportOptions::FoldedCopies::Separate,
                          "separate",
                          "equal copies of separate weights (layers cloned "
                          "by copy.deepcopy): train each apart")),
    cl::init(dist::OnnxImportOptions::FoldedCopies::Unknown),
    cl::cat(category));
cl::list<std::string> paddingIdx(
    "padding-idx",
    cl::desc("With --train or --gradients: an embedding table whose "
             "nn.Embedding has a padding_idx, TABLE=ROW (comma separated, "
             "repeatable): lookups of that row give it no gradient, as in "
             "PyTorch. ONNX drops padding_idx; python/dist_export.py "
             "records it in the file"),
    cl::CommaSeparated, cl::cat(category));
cl::list<std::string> frozenPatterns(
    "frozen",
    cl::desc("With --train or --gradients: parameters not to train, as glob "
             "patterns of their names (comma separated, repeatable), e.g. "
             "--frozen='pos_emb,h.*.attn.bias'"),
    cl::CommaSeparated, cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Static shape of an ONNX input exported with dynamic axes, "
             "NAME=D0xD1x... (repeatable)"),
    cl::cat(category));
cl::list<std::string> boundInputs(
    "bind-input",
    cl::desc("Fix an ONNX input to the value in a serialized TensorProto, "
             "NAME=FILE.pb (repeatable)"),
    cl::cat(category));

/// Prints phase times to stderr with --time-phases.
class PhaseTimer {
public:
  void done(StringRef phase) {
    auto now = std::chrono::steady_clock::now();
    if (timePhases)
      llvm::errs() << llvm::format(
          "dist-compile: %-8s %7.3f s\n", phase.str().c_str(),
          std::chrono::duration<double>(now - last).count());
    last = now;
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

int fail(const Twine &message) {
  llvm::errs() << "dist-compile: error: " << message << "\n";
  return 1;
}

/// LLVM's parser reads an unknown `--name=value` as a group of one-letter
/// options and complains about `-o` ("may not occur within a group"). Long
/// options are checked here first: an unknown one is an error that names the
/// closest option of dist-compile's own.
std::optional<std::string> unknownLongOption(int argc, char **argv) {
  auto &options = cl::getRegisteredOptions();
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (!arg.consume_front("--") || arg.empty())
      continue;
    StringRef name = arg.split('=').first;
    if (options.count(name))
      continue;
    std::string message = "unknown option '--" + name.str() + "'";
    StringRef best;
    unsigned bestDistance = 4; // a misspelling, not another word
    for (const auto &entry : options) {
      if (!llvm::is_contained(entry.second->Categories, &category))
        continue;
      unsigned d = name.edit_distance(entry.first, true, bestDistance);
      if (d < bestDistance) {
        bestDistance = d;
        best = entry.first;
      }
    }
    if (!best.empty())
      message += "; did you mean '--" + best.str() + "'?";
    return message + " (see --help)";
  }
  return std::nullopt;
}

OwningOpRef<ModuleOp> loadModel(MLIRContext &context,
                                llvm::SourceMgr &sourceMgr) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    fail(error);
    return nullptr;
  }
  dist::ModelFileKind kind = dist::classifyModelFile(*input, inputFilename);
  dist::OnnxImportOptions options;
  options.forTraining = train || gradients;
  options.foldedCopies = foldedCopies;
  if (std::optional<std::string> error = dist::readModelInputFlags(
          kind, inputFilename, inputShapes, boundInputs, options)) {
    fail(*error);
    return nullptr;
  }
  for (const std::string &spec : paddingIdx) {
    std::optional<std::string> error =
        kind != dist::ModelFileKind::Onnx
            ? std::optional<std::string>(
                  "--padding-idx applies to ONNX models; in MLIR, set "
                  "padding_idx on the embedding's dist.gather")
            : dist::parsePaddingIdx(spec, options);
    if (error) {
      fail("--padding-idx: " + *error);
      return nullptr;
    }
  }
  if (kind == dist::ModelFileKind::Onnx)
    return dist::importOnnxModel(std::move(input), inputFilename, &context,
                                 options);
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

/// Writes `print` to the output file (stdout by default), kept only on
/// success.
int writeOutput(function_ref<LogicalResult(llvm::raw_pwrite_stream &)> print,
                StringRef defaultName) {
  std::string name =
      outputFilename.empty() ? defaultName.str() : outputFilename.getValue();
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(name, &error);
  if (!out)
    return fail(error);
  if (failed(print(out->os())))
    return 1;
  out->keep();
  return 0;
}

} // namespace

/// The CUDA toolkit to build kernels with: `explicitDir`, else the first of
/// $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, /usr/local/cuda that has ptxas and
/// fatbinary.
std::optional<std::string> findCudaToolkit(StringRef explicitDir) {
  auto usable = [](StringRef dir) {
    SmallString<256> ptxas(dir), fatbinary(dir);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    llvm::sys::path::append(fatbinary, "bin", "fatbinary");
    return !dir.empty() && llvm::sys::fs::can_execute(ptxas) &&
           llvm::sys::fs::can_execute(fatbinary);
  };
  if (!explicitDir.empty())
    return usable(explicitDir) ? std::optional(explicitDir.str())
                               : std::nullopt;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *dir = std::getenv(var); dir && usable(dir))
      return std::string(dir);
  if (usable("/usr/local/cuda"))
    return std::string("/usr/local/cuda");
  return std::nullopt;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  dist::registerAllDialects(registry);
  dist::registerAllPasses();
  cl::HideUnrelatedOptions(category);
  if (std::optional<std::string> unknown = unknownLongOption(argc, argv))
    return fail(*unknown);
  cl::ParseCommandLineOptions(
      argc, argv,
      "dist-compile: compiles a model (ONNX or dist MLIR) to a native "
      "executable\n\n"
      "  dist-compile model.onnx -o model   writes model and "
      "model.safetensors\n"
      "  ./model --input NAME=FILE.npy --output-dir DIR\n");

  if (gradients && train)
    return fail("--gradients and --train exclude each other");
  explain = explainFlag.getNumOccurrences() > 0;
  bool explainJson = explainFlag == "json";
  if (explain && !explainFlag.empty() && !explainJson)
    return fail("--explain=" + explainFlag +
                ": --explain prints text, --explain=json JSON lines");
  // Training options without --train would be ignored; say so instead.
  for (const cl::Option *option : std::initializer_list<const cl::Option *>{
           &optimizerName, &learningRate, &momentum, &nesterov, &weightDecay,
           &beta1, &beta2, &adamEps, &maxGradNorm, &warmupSteps, &decaySteps,
           &minLr})
    if (option->getNumOccurrences() && !train)
      return fail("--" + option->ArgStr +
                  " is an optimizer option: add --train");
  if (evalMode && (train || gradients))
    return fail("--eval builds an inference program; it excludes --train and "
                "--gradients");
  for (const std::string &pattern : frozenPatterns)
    if (pattern.empty() ||
        pattern.find_first_of(" \t{}\n") != std::string::npos)
      return fail("--frozen='" + pattern +
                  "': a pattern is a parameter name with * ? [ ] wildcards, "
                  "without spaces or braces");
  // Options that only mean something to a training (or gradient) compile.
  const std::pair<bool, const char *> trainingOnly[] = {
      {!paddingIdx.empty(), "--padding-idx keeps embedding rows out of "
                            "training"},
      {foldedCopies.getNumOccurrences() > 0,
       "--folded-copies says how to train merged weight copies"},
      {!frozenPatterns.empty(), "--frozen keeps parameters out of training"},
      {loss.getNumOccurrences() > 0, "--loss names what to differentiate"}};
  if (!train && !gradients)
    for (auto [given, what] : trainingOnly)
      if (given)
        return fail(std::string(what) + ": add --train or --gradients");
  // The device mesh and what each of its axes does.
  dist::DistributeOptions distribute;
  int64_t pipelineStages = 0;
  bool autoPlan = false;
  distribute.explain = explain;
  distribute.explainFormat = explainJson ? "json" : "text";
  if (remat != "none" && remat != "full" && remat != "selective" &&
      remat != "auto" && remat != "cheap")
    return fail("--remat=" + remat +
                ": none, full, selective, auto or cheap");
  if (remat == "auto" &&
      !(memoryBudget > 0 && std::isfinite(memoryBudget) && memoryBudget <= 1e12))
    return fail("--remat=auto needs --memory-budget=MiB (the forward "
                "activations the backward may keep; a positive number)");
  if (memoryBudget.getNumOccurrences() && remat != "auto")
    return fail("--memory-budget is for --remat=auto");
  distribute.memoryBudget = memoryBudget.getValue();
  if (remat.getNumOccurrences() && !train && !gradients)
    return fail("--remat recomputes a training step's activations: add "
                "--train or --gradients");
  distribute.remat = remat.getValue();
  if (precision != "fp32" && precision != "bf16" && precision != "fp16" &&
      precision != "auto")
    return fail("--precision=" + precision + ": fp32, bf16, fp16 or auto");
  if (precision == "auto" && parallel != "auto")
    return fail("--precision=auto lets the planner choose fp32 or bf16: add "
                "--mesh=SHAPE --parallel=auto (or give the precision)");
  if (precision.getNumOccurrences() && !train && !gradients)
    return fail("--precision sets a training step's compute type: add "
                "--train or --gradients");
  if (reducePrecision != "compute" && reducePrecision != "fp32")
    return fail("--reduce-precision=" + reducePrecision + ": compute or fp32");
  if (reducePrecision.getNumOccurrences() &&
      (precision == "fp32" || !meshShape.getNumOccurrences()))
    return fail("--reduce-precision chooses the type of a mesh's reductions "
                "of 16-bit products: add --precision=bf16 or fp16 and "
                "--mesh");
  distribute.reducePrecision = reducePrecision.getValue();
  if (explain && !train)
    return fail("--explain prints the plan of a training step: add --train");
  if (deviceSpec.getNumOccurrences() && !explain && parallel != "auto")
    return fail("--device-spec predicts the step's time in --explain's "
                "plan (or for --parallel=auto): add --explain");
  distribute.deviceSpec = deviceSpec.getValue();
  if ((overlapCollectives.getNumOccurrences() ||
       bucketMb.getNumOccurrences()) &&
      !meshShape.getNumOccurrences())
    return fail("--overlap and --bucket-mb schedule a mesh's collectives: "
                "add --mesh");
  // Gradient accumulation: micro-batches without pipeline stages are a
  // pipeline of one stage (a pp axis of one device), which runs them one
  // after another and adds their gradients before the update.
  if (microbatches < 1)
    return fail("--microbatches must be at least 1");
  bool accumulate = microbatches.getNumOccurrences() && microbatches > 1 &&
                    parallel != "auto" &&
                    !llvm::is_contained(
                        llvm::split(StringRef(parallel), ','), "pp");
  if (accumulate && !train)
    return fail("--microbatches splits a training step's batch: add --train");
  // --parallel=ps: the workers' gradient function and the servers'
  // updates, one program each (docs/parallelism.md).
  // --parallel=dp --sync=async: the same programs, with the one update
  // (the whole model's, server 0's) run on every rank after an all-reduce.
  int64_t psWorkers = 0;
  if (syncMode != "sync" && syncMode != "async")
    return fail("--sync=" + syncMode + ": sync or async");
  bool asyncDp = syncMode == "async";
  std::string psMode = asyncDp ? "--sync=async" : "--parallel=ps";
  if (asyncDp && parallel != "dp")
    return fail(parallel == "ps"
                    ? "--sync=async: a parameter-server program chooses "
                      "sync or async when it runs (mpirun ... ./model "
                      "--sync async); drop --sync here"
                    : "--sync=async compiles asynchronous data "
                      "parallelism: give --mesh=W --parallel=dp (one dp "
                      "axis)");
  if (parallel == "ps" || asyncDp) {
    const std::string &mode = psMode;
    if (!train)
      return fail(mode + " trains: add --train");
    int64_t workers;
    if (StringRef(meshShape).getAsInteger(10, workers) || workers < 1)
      return fail(asyncDp
                      ? "--sync=async takes the data-parallel ranks as "
                        "--mesh=W (one axis), e.g. --mesh=4 --parallel=dp "
                        "--sync=async"
                      : "--parallel=ps takes the number of workers as "
                        "--mesh=W (one axis), e.g. --mesh=4 --parallel=ps "
                        "--servers=1");
    if (asyncDp && psServers.getNumOccurrences())
      return fail("--servers counts parameter servers: asynchronous data "
                  "parallelism has none (use --parallel=ps --servers=K)");
    if (psServers < 1)
      return fail("--servers must be at least 1");
    if (zeroStage.getNumOccurrences() || accumulate ||
        stageCount.getNumOccurrences() ||
        pipelineSchedule.getNumOccurrences() ||
        virtualStages.getNumOccurrences() || remat.getNumOccurrences() ||
        overlapCollectives.getNumOccurrences() ||
        bucketMb.getNumOccurrences() || verifyPlanFlag ||
        precision == "fp16" || (!lossScale.empty() && lossScale != "none"))
      return fail(mode + " does not combine with --zero, "
                  "--microbatches, pipeline options, --remat, --overlap, "
                  "--bucket-mb, --verify-plan or loss scaling "
                  "(--precision=fp16, --loss-scale) yet: " +
                  (asyncDp ? "each rank applies a plain float32 update of "
                             "the whole model"
                           : "the servers own the parameters and apply "
                             "plain float32 updates"));
    if (asyncDp && gradCompression != "none")
      return fail("--grad-compression with --sync=async: the delayed "
                  "all-reduce sums float32 gradients so far; drop "
                  "--grad-compression, or use --parallel=ps (compressed "
                  "pushes) or synchronous dp");
    if (StringRef(gradCompression).starts_with("powersgd:"))
      return fail("--grad-compression=" + gradCompression +
                  " with --parallel=ps: PowerSGD sums its factors over the "
                  "ranks, which the pushes to the servers do not; use bf16, "
                  "fp16 or topk:F");
    if (target != Target::Cpu)
      return fail(mode + " compiles for the CPU so far");
    psWorkers = workers;
  } else if (psServers.getNumOccurrences()) {
    return fail("--servers counts parameter servers: add --parallel=ps");
  }
  if (psWorkers == 0 &&
      (meshShape.getNumOccurrences() || parallel.getNumOccurrences() ||
       zeroStage.getNumOccurrences() || accumulate)) {
    if (!train)
      return fail("--mesh, --parallel and --zero distribute a training step: "
                  "add --train");
    bool bare = !meshShape.getNumOccurrences() &&
                !parallel.getNumOccurrences() && accumulate;
    if (!bare && (meshShape.empty() || parallel.empty()))
      return fail("--mesh and --parallel go together, e.g. --mesh=4 "
                  "--parallel=dp");
    SmallVector<StringRef> sizes, kinds;
    if (!bare)
      StringRef(meshShape).split(sizes, 'x');
    for (StringRef size : sizes) {
      int64_t n;
      if (size.getAsInteger(10, n) || n < 1)
        return fail("--mesh=" + meshShape +
                    ": the mesh is sizes >= 1 joined by 'x', e.g. 4 or 2x2");
      distribute.mesh.push_back(n);
    }
    if (!bare)
      StringRef(parallel).split(kinds, ',');
    if (parallel == "auto") {
      if (zeroStage.getNumOccurrences() || microbatches.getNumOccurrences() ||
          pipelineSchedule.getNumOccurrences() ||
          virtualStages.getNumOccurrences() || stageCount.getNumOccurrences())
        return fail("--parallel=auto chooses ZeRO, micro-batches and the "
                    "schedule: drop --zero, --microbatches, --schedule, "
                    "--virtual-stages and --stages (or give the plan by "
                    "hand)");
      if (meshShape.empty())
        return fail("--parallel=auto plans for a mesh: add --mesh, e.g. "
                    "--mesh=2x2");
      autoPlan = true;
      kinds.clear();
      if (!(memoryPerDevice >= 0) || !std::isfinite(memoryPerDevice))
        return fail("--memory-per-device must be a number of GiB >= 0");
      distribute.overlap = overlapCollectives;
      distribute.bucketMb = bucketMb.getValue();
    } else if (kinds.size() != sizes.size())
      return fail("--parallel=" + parallel + " names " + Twine(kinds.size()) +
                  " kinds of parallelism for a mesh of " + Twine(sizes.size()) +
                  " axes (--mesh=" + meshShape + "): one per axis, in order");
    if (zeroStage < 0 || zeroStage > 2)
      return fail("--zero=" + Twine(zeroStage) + ": the stage is 0, 1 or 2");
    for (StringRef kind : kinds) {
      if (llvm::count(kinds, kind) > 1)
        return fail("--parallel=" + parallel + ": " + kind +
                    " names more than one mesh axis");
      if (kind != "dp" && kind != "tp" && kind != "pp")
        return fail("--parallel: unknown kind '" + kind +
                    "' (dp for data parallelism, tp for tensor parallelism, "
                    "pp for pipeline stages)");
      distribute.parallel.push_back(kind.str());
    }
    if (accumulate) {
      distribute.mesh.push_back(1);
      distribute.parallel.push_back("pp");
      kinds.push_back("pp");
    }
    if (auto pp = llvm::find(kinds, "pp"); pp != kinds.end()) {
      if (zeroStage > 1)
        return fail(accumulate
                        ? "--zero=2 with --microbatches: each gradient adds "
                          "up whole over the micro-batches; use --zero=1 "
                          "(the optimizer state split over dp)"
                        : "--zero=2 with pipeline stages: a stage "
                          "accumulates each gradient whole over its "
                          "micro-batches; use --zero=1 (each stage's "
                          "optimizer state split over dp)");
      if (microbatches < 1)
        return fail("--microbatches must be at least 1");
      if (pipelineSchedule != "gpipe" && pipelineSchedule != "1f1b" &&
          pipelineSchedule != "interleaved")
        return fail("--schedule=" + pipelineSchedule +
                    ": gpipe, 1f1b or interleaved");
      int64_t ranks = distribute.mesh[pp - kinds.begin()];
      int64_t chunks = virtualStages;
      if (stageCount.getNumOccurrences()) {
        if (stageCount < ranks || stageCount % ranks != 0)
          return fail("--stages=" + Twine(stageCount) + ": the pp axis has " +
                      Twine(ranks) + " devices, each running one stage or "
                      "the same number of interleaved chunks: give a "
                      "multiple of " + Twine(ranks));
        int64_t perRank = stageCount / ranks;
        if (virtualStages.getNumOccurrences() && virtualStages != perRank)
          return fail("--stages=" + Twine(stageCount) + " and --virtual-stages=" +
                      Twine(virtualStages) + " disagree: " +
                      Twine(stageCount) + " stages on " + Twine(ranks) +
                      " devices are " + Twine(perRank) + " chunks per device");
        if (perRank > 1 && pipelineSchedule.getNumOccurrences() &&
            pipelineSchedule != "interleaved")
          return fail("--stages=" + Twine(stageCount) + " puts " +
                      Twine(perRank) + " stages on each of the " +
                      Twine(ranks) + " pp devices, which only "
                      "--schedule=interleaved runs (not " +
                      pipelineSchedule + ")");
        if (perRank > 1)
          pipelineSchedule = "interleaved";
        chunks = perRank;
      } else if (pipelineSchedule == "interleaved" &&
                 !virtualStages.getNumOccurrences())
        chunks = 2;
      if (chunks < 1 || (chunks > 1) != (pipelineSchedule == "interleaved"))
        return fail("--virtual-stages=" + Twine(chunks) +
                    ": more than 1 goes with --schedule=interleaved, which "
                    "needs at least 2");
      distribute.microbatches = microbatches;
      distribute.schedule = pipelineSchedule.getValue();
      distribute.virtualStages = chunks;
      pipelineStages = ranks * chunks;
    }
    if (zeroStage > 0 && !llvm::is_contained(kinds, "dp"))
      return fail("--zero splits optimizer state over the data-parallel "
                  "axis: add dp to --parallel");
    if (bucketMb <= 0)
      return fail("--bucket-mb must be positive");
    distribute.zero = zeroStage;
    distribute.overlap = overlapCollectives;
    distribute.bucketMb = bucketMb.getValue();
  }
  if (verifyPlanFlag &&
      (!train || distribute.mesh.empty() || planOnly ||
       (emit != Stage::Executable)))
    return fail("--verify-plan checks a distributed training step's plan by "
                "running it: add --train and --mesh (and no --plan-only or "
                "--emit)");
  if (verifySteps < 1)
    return fail("--verify-steps must be at least 1");
  if (!(verifyTolerance >= 0))
    return fail("--verify-tolerance must be a number >= 0");
  if (planSearch != "auto" && planSearch != "exhaustive" &&
      planSearch != "layers")
    return fail("--plan-search=" + planSearch +
                ": one of auto, exhaustive, layers");
  if (!autoPlan &&
      (memoryPerDevice.getNumOccurrences() || planOnly.getNumOccurrences() ||
       planSearch.getNumOccurrences()))
    return fail("--memory-per-device, --plan-search and --plan-only are for "
                "the planner: "
                "add --mesh=SHAPE --parallel=auto");
  if (!autoPlan && (accumulate || pipelineStages == 0) &&
      (pipelineSchedule.getNumOccurrences() ||
       virtualStages.getNumOccurrences() || stageCount.getNumOccurrences()))
    return fail("--stages, --schedule and --virtual-stages shape pipeline "
                "stages: add a pp axis, e.g. --mesh=2 --parallel=pp");
  StringRef powerSgdSpec = gradCompression;
  int64_t powerSgdRank = 0;
  bool powerSgd = powerSgdSpec.consume_front("powersgd:");
  if (powerSgd &&
      (powerSgdSpec.getAsInteger(10, powerSgdRank) || powerSgdRank < 1))
    return fail("--grad-compression=" + gradCompression +
                ": powersgd:R takes the rank R of the approximation, an "
                "integer >= 1 (e.g. powersgd:4)");
  bool topK = StringRef(gradCompression).starts_with("topk:");
  if (topK && !dist::topKFraction(gradCompression))
    return fail("--grad-compression=" + gradCompression +
                ": topk:F sends the fraction F of each gradient's "
                "elements, largest first: a number in (0, 1], e.g. "
                "topk:0.01");
  if (gradCompression != "none" && gradCompression != "bf16" &&
      gradCompression != "fp16" && !powerSgd && !topK)
    return fail("--grad-compression=" + gradCompression +
                ": none, bf16, fp16, powersgd:R or topk:F");
  if (topK && psWorkers == 0 && target == Target::Cuda)
    return fail("--grad-compression=" + gradCompression +
                " with --target=cuda: the top-k selection runs on the CPU "
                "so far; use bf16, fp16 or powersgd:R on a GPU mesh");
  if (gradCompression != "none" && psWorkers == 0) {
    if (!train)
      return fail("--grad-compression compresses a training step's "
                  "data-parallel gradients: add --train");
    // --parallel=auto: the planner applies it to the plans with a dp axis
    // (and rules out those that cannot take it).
    if (autoPlan && planSearch == "layers")
      return fail("--plan-search=layers does not plan --grad-compression "
                  "yet: leave --plan-search out (the planner then builds "
                  "every plan of the mesh)");
    if (!autoPlan &&
        !llvm::is_contained(llvm::split(StringRef(parallel), ','), "dp"))
      return fail("--grad-compression compresses the data-parallel "
                  "gradient reduction: add a dp axis, e.g. --mesh=2 "
                  "--parallel=dp");
    if (verifyPlanFlag)
      return fail("--verify-plan checks that a plan computes the 1-rank "
                  "losses; --grad-compression rounds the gradients the ranks "
                  "send, so its losses differ from one rank's by more than "
                  "that check allows: verify the plan without "
                  "--grad-compression");
    if (pipelineStages > 0 || accumulate)
      return fail("--grad-compression does not work with pipeline stages "
                  "or gradient accumulation yet (each micro-batch's "
                  "gradient would be rounded, not the sum a rank sends): "
                  "drop --microbatches or the pp axis");
    if ((powerSgd || topK) &&
        llvm::is_contained(llvm::split(StringRef(parallel), ','), "tp"))
      return fail("--grad-compression=" + gradCompression +
                  (powerSgd ? " compresses whole gradient matrices"
                            : " selects among whole gradients") +
                  "; with a tp axis each rank holds a block of them: use "
                  "bf16 or fp16, or drop tp");
    if ((powerSgd || topK) && (precision == "fp16" ||
                     (!lossScale.empty() &&
                      !StringRef(lossScale).starts_with("none"))))
      return fail("--grad-compression=" + gradCompression +
                  " with loss scaling (--precision=fp16 or --loss-scale): "
                  "the residuals each rank keeps would be in the scale of "
                  "the step that made them; use --precision=bf16 or fp32");
  }
  // The training step, from the model function.
  dist::TrainingStepOptions step;
  // Parameter-server mode compresses the pushes in the runtime.
  if (psWorkers == 0)
    step.gradCompression = gradCompression.getValue();
  for (auto [kind, size] : llvm::zip(distribute.parallel, distribute.mesh))
    if (kind == "dp")
      step.dataParallelRanks = size;
  step.entry = entry.getValue();
  step.gradientsOnly = gradients;
  step.frozen =
      SmallVector<std::string>(frozenPatterns.begin(), frozenPatterns.end());
  StringRef lossSpec = loss;
  if (lossSpec.consume_front("cross-entropy:")) {
    auto [output, labels] = lossSpec.split(',');
    if (output.empty() || labels.empty())
      return fail("--loss=cross-entropy:<output>,<labels> names an output "
                  "and a new input, got '" +
                  loss + "'");
    step.crossEntropyOutput = output.str();
    step.crossEntropyLabels = labels.str();
  } else {
    step.loss = loss.getValue();
  }
  step.precision = precision.getValue();
  step.fuseAttention = fuseAttention.getNumOccurrences()
                           ? fuseAttention.getValue()
                           : target == Target::Cpu;
  {
    // --loss-scale: none, dynamic[:INIT] or static:X.
    StringRef spec = lossScale;
    if (spec.empty())
      spec = precision == "fp16" ? "dynamic" : "none";
    auto [mode, value] = spec.split(':');
    bool hasValue = spec.contains(':');
    double number = 65536.0;
    if ((mode != "none" && mode != "dynamic" && mode != "static") ||
        (mode == "none" && hasValue) || (mode == "static" && !hasValue) ||
        (hasValue && (value.getAsDouble(number) ||
                      !(number >= std::numeric_limits<float>::min()) ||
                      !std::isfinite(number) ||
                      number > std::numeric_limits<float>::max())))
      return fail("--loss-scale=" + lossScale +
                  ": none, dynamic, dynamic:INIT or static:X, with INIT and "
                  "X normal positive float32 numbers, 1.2e-38 to 3.4e38 "
                  "(e.g. static:1024)");
    if (lossScale.getNumOccurrences() && !train)
      return fail("--loss-scale scales a training step's backward: add "
                  "--train");
    if (lossScaleGrowthInterval.getNumOccurrences() && mode != "dynamic")
      return fail("--loss-scale-growth-interval is for --loss-scale=dynamic");
    if (lossScaleGrowthInterval < 1)
      return fail("--loss-scale-growth-interval must be at least 1");
    step.lossScale = (gradients ? StringRef("none") : mode).str();
    step.lossScaleValue = number;
    step.lossScaleGrowthInterval = lossScaleGrowthInterval;
  }
  step.pipelineStages = pipelineStages;
  step.pipelineMicrobatches = distribute.microbatches;
  step.pipelineSchedule = distribute.schedule.getValue();
  if (stageMemory < 0 || !std::isfinite(stageMemory))
    return fail("--stage-memory must be a number of MiB >= 0");
  if (stageMemory.getNumOccurrences() && pipelineStages <= 1)
    return fail("--stage-memory limits pipeline stages: add --parallel=pp");
  step.stageMemoryLimit = stageMemory.getValue();
  step.explainStages = explain && !explainJson && pipelineStages > 1;
  step.optimizer = optimizerName.getValue();
  step.lr = learningRate.getValue();
  step.momentum = momentum.getValue();
  step.nesterov = nesterov;
  step.weightDecay = weightDecay.getValue();
  step.beta1 = beta1.getValue();
  step.beta2 = beta2.getValue();
  step.eps = adamEps.getValue();
  step.maxGradNorm = maxGradNorm.getValue();
  step.warmupSteps = warmupSteps;
  step.decaySteps = decaySteps;
  step.minLr = minLr.getValue();
  if (psWorkers > 0)
    step.parameterServers = psServers;

  if (target == Target::CudaEmulate) {
    // A mesh is fine: the emulated GPU's memory is host memory, so its
    // collectives run on the CPU transports (MPI or TCP) as the CPU
    // target's do.
    if (gpuArch.getNumOccurrences() || cudaToolkit.getNumOccurrences())
      return fail("--target=cuda-emulate runs on the CPU: --gpu-arch and "
                  "--cuda-toolkit do not apply");
  } else if (target == Target::Cuda) {
    // With --mesh: one process per GPU, the collectives over NCCL.
    if (dist::ptxFeaturesForArch(gpuArch).empty())
      return fail("--gpu-arch=" + gpuArch +
                  ": supported are sm_80, sm_89, sm_90 and sm_100");
  } else if (gpuArch.getNumOccurrences() || cudaToolkit.getNumOccurrences()) {
    return fail("--gpu-arch and --cuda-toolkit compile for a GPU: add "
                "--target=cuda");
  }
  if ((emit == Stage::Object || emit == Stage::Executable) &&
      outputFilename.empty() && !printPipeline && !planOnly)
    return fail("-o is required for --emit=obj and executables");
  if (!pipeline.empty() && (emit == Stage::Linalg || emit == Stage::Dist))
    return fail("--pipeline replaces the whole pipeline; --emit=dist and "
                "--emit=linalg stop inside the default one");
  if (!pipeline.empty() &&
      (train || gradients || evalMode || meshShape.getNumOccurrences()))
    return fail("--pipeline replaces the whole pipeline, the training step "
                "and its distribution included: put them in the text (see "
                "--print-pipeline with the same options) and drop --train, "
                "--gradients, --eval and --mesh");

  MLIRContext context(registry);
  // Diagnostics name the model node; an IR dump of the op is for dist-opt.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  dist::OnnxDiagnosticHandler diagnostics(&context);
  PhaseTimer timer;
  if (psWorkers > 0) {
    // Each worker's step takes its part of the batch: the batch (first
    // size) of every --input-shape divided by the workers.
    for (std::string &shape : inputShapes) {
      auto [name, dims] = StringRef(shape).rsplit('=');
      auto [first, rest] = dims.split('x');
      int64_t batch;
      if (first.getAsInteger(10, batch) || batch < 1)
        continue; // the importer says what is wrong with it
      if (batch % psWorkers != 0)
        return fail("--input-shape=" + shape + ": " +
                    (asyncDp ? "--sync=async" : "--parallel=ps") +
                    " splits the batch over the " + Twine(psWorkers) +
                    (asyncDp ? " ranks" : " workers") + ", and " +
                    Twine(batch) + " is not a multiple of " +
                    Twine(psWorkers));
      shape = (name + "=" + Twine(batch / psWorkers) +
               (dims.contains('x') ? "x" + rest : StringRef()))
                  .str();
    }
  }
  OwningOpRef<ModuleOp> module = loadModel(context, sourceMgr);
  if (!module || failed(verify(*module)))
    return 1;
  if (psWorkers > 0) {
    // A batch fixed in the model would be each worker's, not the step's.
    auto fn = module->lookupSymbol<func::FuncOp>(entry);
    for (unsigned i = 0; fn && i < fn.getNumArguments(); ++i) {
      auto name =
          fn.getArgAttrOfType<StringAttr>(i, dist::DistDialect::kInputNameAttrName);
      if (!name || !dist::isDataArgument(fn, i))
        continue;
      bool given = llvm::any_of(inputShapes, [&](const std::string &shape) {
        return StringRef(shape).rsplit('=').first == name.getValue();
      });
      if (!given && !StringRef(inputFilename).ends_with(".onnx"))
        return fail(inputFilename + ": " + psMode + " compiles each "
                    "worker's step for its share of the batch, which needs "
                    "an ONNX model with a dynamic batch axis (given whole "
                    "with --input-shape); the shapes of an MLIR model are "
                    "fixed: use " +
                    (asyncDp ? "synchronous --parallel=dp (drop --sync)"
                             : "--parallel=dp"));
      if (!given)
        return fail(inputFilename + ": input '" + name.getValue() +
                    "' has a fixed shape; " + psMode + " splits the batch "
                    "over the workers, so give its (whole) batch with "
                    "--input-shape=" + name.getValue() +
                    "=BxD... (export the model with a dynamic batch axis)");
    }
  }
  timer.done("import");
  // --verify-plan runs the plan on a copy of the model as imported.
  OwningOpRef<ModuleOp> imported;
  if (verifyPlanFlag)
    imported = module->clone();

  // The function the executable runs: the step the pipeline builds, else
  // --entry, else (a step compiled as is: --emit=dist of a trainer) the
  // module's only public function.
  std::string runs = entry;
  if (train || gradients) {
    runs = step.stepFunction();
  } else if (!entry.getNumOccurrences() &&
             !module->lookupSymbol<func::FuncOp>(entry)) {
    SmallVector<func::FuncOp> publics;
    for (auto fn : module->getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isDeclaration())
        publics.push_back(fn);
    if (publics.size() == 1)
      runs = publics.front().getSymName().str();
  }
  if ((train || gradients) && module->lookupSymbol<func::FuncOp>(runs))
    return fail(inputFilename + " already has @" + runs +
                " (a step built before): compile it without --train / "
                "--gradients");
  if (autoPlan) {
    // The planner: every plan of the mesh built on a copy of the model and
    // predicted; the fastest is then compiled as if given by hand.
    if (!train)
      return fail("--parallel=auto plans a training step: add --train");
    std::string name = deviceSpec.empty()
                           ? (target == Target::Cuda ? "h100-sxm" : "cpu-here")
                           : deviceSpec.getValue();
    std::string error;
    FailureOr<dist::cost::DeviceSpec> spec =
        dist::cost::loadDeviceSpec(name, error);
    if (failed(spec))
      return fail(error);
    distribute.function = runs;
    SmallVector<int64_t> mesh(distribute.mesh.begin(), distribute.mesh.end());
    int64_t devices = 1;
    for (int64_t n : mesh)
      devices *= n;
    dist::plan::SearchResult search;
    bool byLayer = planSearch == "layers" ||
                   (planSearch == "auto" && devices > kExhaustiveDevices &&
                    gradCompression == "none");
    if (planSearch == "auto" && devices > kExhaustiveDevices &&
        gradCompression != "none")
      llvm::errs() << "dist-compile: note: --grad-compression: the planner "
                      "builds every plan of the "
                   << devices
                   << "-device mesh (the layer search, used above "
                   << kExhaustiveDevices
                   << " devices, does not plan compression yet)\n";
    if (byLayer) {
      std::string whyNot;
      FailureOr<dist::plan::SearchResult> layered =
          dist::plan::searchPlansByLayer(*module, step, distribute, mesh,
                                         *spec, memoryPerDevice * 1073741824.0,
                                         whyNot);
      if (succeeded(layered))
        search = std::move(*layered);
      else if (planSearch == "layers")
        return fail("--plan-search=layers: " + whyNot);
      else
        byLayer = false;
    }
    if (!byLayer)
      search = dist::plan::searchPlans(*module, step, distribute, mesh, *spec,
                                       memoryPerDevice * 1073741824.0);
    timer.done("plan");
    if (search.plans.empty() || !search.plans.front().ruledOut.empty()) {
      std::string reasons;
      for (const auto &e : search.plans)
        reasons += "\n  " + e.plan.describe() + ": " + e.ruledOut;
      return fail("--parallel=auto: no plan of mesh " + meshShape +
                  " can run this step:" + reasons);
    }
    const dist::plan::Plan &chosen = search.plans.front().plan;
    auto printSearch = [&] {
      if (explainJson)
        dist::plan::printSearchJson(search, mesh, *spec, llvm::outs());
      else
        dist::plan::printSearch(search, mesh, *spec, llvm::outs());
    };
    if (planOnly) {
      printSearch();
      return 0;
    }
    if (explain)
      printSearch();
    else
      llvm::errs() << "dist-compile: --parallel=auto chose "
                   << chosen.describe() << " (predicted "
                   << llvm::format("%.4g", search.plans.front().predicted.total() * 1e3)
                   << " ms per step on " << spec->name
                   << "; --explain lists the alternatives)\n";
    if (!chosen.mesh.empty()) {
      mesh = chosen.mesh;
      distribute.mesh = mesh;
    }
    distribute.parallel = ArrayRef<std::string>(chosen.parallel);
    if (!chosen.precision.empty())
      step.precision = chosen.precision;
    step.gradCompression =
        chosen.gradCompression.empty() ? "none" : chosen.gradCompression;
    step.dataParallelRanks = dist::plan::dataParallelRanks(chosen.parallel, mesh);
    distribute.zero = chosen.zero;
    distribute.microbatches = chosen.microbatches;
    distribute.schedule = chosen.schedule;
    distribute.virtualStages = 1;
    distribute.remat = chosen.remat;
    auto pp = llvm::find(chosen.parallel, "pp");
    pipelineStages = pp == chosen.parallel.end()
                         ? 0
                         : mesh[pp - chosen.parallel.begin()];
    step.pipelineStages = pipelineStages;
    step.pipelineMicrobatches = chosen.microbatches;
    step.pipelineSchedule = chosen.schedule;
    step.explainStages = explain && !explainJson && pipelineStages > 1;
  }
  // On the GPU a step recomputes by default what is cheaper to recompute
  // than to keep (docs/memory.md, decision 56): the recomputation fuses
  // into the backward's kernels, so the step moves fewer bytes and keeps
  // fewer. On the CPU it would be computed again in buffers of its own.
  if (target != Target::Cpu && (train || gradients) &&
      !remat.getNumOccurrences() && distribute.remat == "none")
    distribute.remat = "cheap";
  dist::LowerToLLVMOptions options;
  options.entry = runs;
  options.gemmRuntime = gemmRuntime;
  options.approximateMath = approximateMath;
  // (Parameter-server mode: its own plan, printed after the front.)
  options.explainMemory =
      explain && !explainJson && target == Target::Cpu && psWorkers == 0;
  dist::LowerToCudaOptions cudaOptions;
  cudaOptions.entry = runs;
  cudaOptions.explainMemory =
      explain && !explainJson && target == Target::Cuda && psWorkers == 0;
  if (target == Target::Cuda) {
    std::optional<std::string> toolkit = findCudaToolkit(cudaToolkit);
    if (!toolkit)
      return fail(cudaToolkit.empty()
                      ? std::string("--target=cuda needs the CUDA toolkit "
                                    "(ptxas, fatbinary, libdevice): none "
                                    "in $CUDA_HOME, $CUDA_PATH or "
                                    "/usr/local/cuda; name it with "
                                    "--cuda-toolkit=DIR")
                      : "--cuda-toolkit=" + cudaToolkit +
                            ": no bin/ptxas and bin/fatbinary there");
    cudaOptions.gpuArch = gpuArch.getValue();
    cudaOptions.toolkit = *toolkit;
  }

  // From the model to the (per-rank) step: eval mode, the training step,
  // its distribution.
  auto buildFront = [&](OpPassManager &pm) -> LogicalResult {
    if (evalMode)
      pm.addNestedPass<func::FuncOp>(dist::createDistEvalMode());
    // (A training step fuses it after mixed precision: the option below.)
    if (step.fuseAttention && !train && !gradients)
      pm.addNestedPass<func::FuncOp>(dist::createDistFuseAttention());
    if (train || gradients) {
      if (failed(dist::buildTrainingStepPipeline(pm, step)))
        return failure();
      if (psWorkers > 0)
        return success(); // one program per worker and server, below
      distribute.function = runs;
      if (failed(dist::buildDistributePipeline(pm, distribute)))
        return failure();
    }
    return success();
  };
  // The whole lowering from the dist dialect, for the chosen target.
  auto buildLowering = [&](OpPassManager &pm) {
    switch (target) {
    case Target::Cuda:
      return dist::buildLowerToCudaPipeline(pm, cudaOptions);
    case Target::CudaEmulate:
      return dist::buildCudaEmulatorPipeline(pm, cudaOptions);
    case Target::Cpu:
      break;
    }
    return dist::buildLowerToLLVMPipeline(pm, options);
  };
  PassManager pm(&context, ModuleOp::getOperationName());
  bool staged = pipeline.empty() &&
                (pipelineStages > 0 || psWorkers > 0 ||
                 (*module)->hasAttr(dist::DistDialect::kPipelineAttrName));
  // The lowering of pipeline stage `name` (a function of the module).
  auto lowerStage = [&](OpPassManager &stagePm, StringRef name) {
    options.entry = name.str();
    cudaOptions.entry = name.str();
    return buildLowering(stagePm);
  };
  if (!pipeline.empty()) {
    std::string error;
    llvm::raw_string_ostream os(error);
    StringRef text = StringRef(pipeline).trim();
    // Anchored text (what --print-pipeline prints) is a whole module
    // pipeline; bare text adds its passes to the module's.
    if (text.starts_with("builtin.module(")) {
      FailureOr<OpPassManager> parsed = parsePassPipeline(text, os);
      if (failed(parsed))
        return fail("--pipeline: " + error);
      static_cast<OpPassManager &>(pm) = *parsed;
    } else if (failed(parsePassPipeline(text, pm, os))) {
      return fail("--pipeline: " + error);
    }
  } else if (staged) {
    // Pipeline stages: the front makes one function per stage, each then
    // lowered as its own program (below).
    // (It compiles and links for CUDA, but no GPU machine here has two
    // GPUs to run it on: NCCL refuses two ranks on one GPU.)
    if (target == Target::Cuda)
      return fail("pipeline stages (--parallel=pp) and gradient "
                  "accumulation (--microbatches without pp) compile for "
                  "the CPU and --target=cuda-emulate so far, not "
                  "--target=cuda");
    if (emit == Stage::Linalg || emit == Stage::Mlir)
      return fail(psWorkers > 0
                      ? "--parallel=ps and --sync=async have a gradient "
                        "program and update programs: --emit=linalg and "
                        "--emit=mlir show one; use --emit=dist or "
                        "--emit=llvm"
                      : "a pipeline has one program per stage: "
                        "--emit=linalg and --emit=mlir show one; use "
                        "--emit=dist or --emit=llvm");
    if (failed(buildFront(pm)))
      return 1;
  } else {
    if (failed(buildFront(pm)))
      return 1;
    if (emit == Stage::Linalg) {
      if (failed(dist::buildLowerToLinalgPipeline(pm, options)))
        return 1;
    } else if (emit != Stage::Dist && failed(buildLowering(pm))) {
      return 1;
    }
  }
  if (printPipeline) {
    pm.printAsTextualPipeline(llvm::outs());
    llvm::outs() << "\n";
    if (staged && emit != Stage::Dist) {
      PassManager stagePm(&context, ModuleOp::getOperationName());
      if (failed(lowerStage(stagePm, runs + "_stage<k>")))
        return 1;
      llvm::outs() << "# then each pipeline stage k, alone in a copy of the "
                      "module:\n";
      stagePm.printAsTextualPipeline(llvm::outs());
      llvm::outs() << "\n";
    }
    return 0;
  }
  auto printModule = [&](llvm::raw_pwrite_stream &os) {
    module->print(os);
    os << "\n";
    return success();
  };
  if (emit == Stage::Dist && !train && !gradients && !evalMode)
    return writeOutput(printModule, "-");

  // The lowering drops the parameter declarations; keep them for the
  // weights file, written once the executable exists.
  OwningOpRef<ModuleOp> parameters = ModuleOp::create(module->getLoc());
  for (dist::ParameterOp param : module->getOps<dist::ParameterOp>())
    parameters->getBody()->push_back(param->clone());

  if (failed(pm.run(*module)))
    return 1;
  if (psWorkers > 0 && explain) {
    std::optional<dist::cost::DeviceSpec> spec;
    if (!deviceSpec.empty()) {
      std::string error;
      FailureOr<dist::cost::DeviceSpec> loaded =
          dist::cost::loadDeviceSpec(deviceSpec, error);
      if (failed(loaded))
        return fail(error);
      spec = *loaded;
    }
    if (asyncDp)
      dist::explainAsyncDataParallel(*module, runs, psWorkers,
                                     spec ? &*spec : nullptr, explainJson,
                                     llvm::outs());
    else
      dist::explainParameterServer(*module, runs, psWorkers, psServers,
                                   gradCompression,
                                   spec ? &*spec : nullptr, explainJson,
                                   llvm::outs());
  }
  timer.done(staged ? "distribute" : "lower");
  if (emit == Stage::Linalg || emit == Stage::Dist || emit == Stage::Mlir)
    return writeOutput(printModule, "-");

  // What codegen translates: the module, or one module per pipeline stage
  // (each a copy holding that stage's function alone).
  SmallVector<OwningOpRef<ModuleOp>> stageModules;
  SmallVector<ModuleOp> lowered = {*module};
  int64_t stageAxis = -1;
  if (staged) {
    // The programs: the pipeline's stages, or the workers' and servers'.
    SmallVector<std::string> programs;
    if (psWorkers > 0) {
      programs.push_back(runs);
      for (int64_t k = 0; k < psServers; ++k)
        programs.push_back(dist::TrainingStepOptions::serverFunction(k));
    } else {
      auto info = (*module)->getAttrOfType<DictionaryAttr>(
          dist::DistDialect::kPipelineAttrName);
      auto functions =
          info ? info.getAs<ArrayAttr>("functions") : ArrayAttr();
      auto axis = info ? info.getAs<IntegerAttr>("axis") : IntegerAttr();
      if (!functions || !axis || functions.empty())
        return fail(inputFilename + ": 'dist.pipeline' must name the "
                                    "stages' functions and their mesh axis");
      stageAxis = axis.getInt();
      for (Attribute f : functions)
        programs.push_back(cast<FlatSymbolRefAttr>(f).getValue().str());
    }
    lowered.clear();
    for (StringRef name : programs) {
      OwningOpRef<ModuleOp> copy = module->clone();
      for (auto fn : llvm::to_vector((*copy).getOps<func::FuncOp>()))
        if (!fn.isDeclaration() && fn.getSymName() != name)
          fn.erase();
      PassManager stagePm(&context, ModuleOp::getOperationName());
      if (failed(lowerStage(stagePm, name)) || failed(stagePm.run(*copy)))
        return 1;
      lowered.push_back(*copy);
      stageModules.push_back(std::move(copy));
    }
    timer.done("lower");
  }

  dist::ParameterServerLink psLink;
  psLink.workers = psWorkers;
  psLink.allReduce = asyncDp;
  psLink.gradCompression = gradCompression.getValue();
  dist::CodegenOptions codegen;
  codegen.cpu = cpu;
  if (optLevel > 3)
    return fail("-O" + Twine(optLevel) + ": the level is 0, 1, 2 or 3");
  codegen.optLevel = optLevel;
  // A CUDA program's host code only launches kernels and calls the runtime:
  // LLVM's -O2 on its one large function took 142 s of gpt2-small's (8 x
  // 1024) 175 s compile, -O0 18 s; the kernels are optimized on their
  // own (nvvm-attach-target O=3). -O still overrides.
  if (target == Target::Cuda && !optLevel.getNumOccurrences())
    codegen.optLevel = 0;
  if (emit == Stage::LLVMIR || emit == Stage::Object) {
    int rc = writeOutput(
        [&](llvm::raw_pwrite_stream &os) {
          return dist::emitLLVM(lowered, stageAxis, codegen,
                                emit == Stage::LLVMIR, os, psLink);
        },
        "-");
    timer.done("codegen");
    return rc;
  }

  // Executable: object in a temporary file, then link.
  SmallString<128> objectPath;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "dist-compile", "o", fd, objectPath))
    return fail("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (failed(dist::emitLLVM(lowered, stageAxis, codegen, /*asIR=*/false,
                              os, psLink)))
      return 1;
  }
  timer.done("codegen");
  if (llvm::Error e = dist::linkExecutable(objectPath, outputFilename, argv[0],
                                           target == Target::Cuda))
    return fail(llvm::toString(std::move(e)));
  timer.done("link");
  if (failed(dist::writeWeightsFile(*parameters,
                                    outputFilename + ".safetensors"))) {
    llvm::sys::fs::remove(outputFilename);
    return 1;
  }
  timer.done("weights");
  if (verifyPlanFlag) {
    dist_compile::VerifyPlanRequest request;
    request.self = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&fail));
    std::vector<std::string> distributionFlags;
    dist_compile::splitFlags(argc, argv, inputFilename, request.common,
                             distributionFlags);
    std::string mesh, kinds;
    int64_t ranks = 1;
    for (auto [i, n] : llvm::enumerate(distribute.mesh)) {
      mesh += (i ? "x" : "") + std::to_string(n);
      kinds += (i ? "," : "") + distribute.parallel[i];
      ranks *= n;
    }
    request.plan = {"--mesh=" + mesh, "--parallel=" + kinds};
    if (distribute.zero)
      request.plan.push_back("--zero=" + std::to_string(distribute.zero));
    if (pipelineStages > 0) {
      request.plan.push_back("--microbatches=" +
                             std::to_string(distribute.microbatches));
      request.plan.push_back("--schedule=" + distribute.schedule.getValue());
      if (distribute.virtualStages > 1)
        request.plan.push_back("--virtual-stages=" +
                               std::to_string(distribute.virtualStages));
    }
    if (autoPlan && !remat.getNumOccurrences() && distribute.remat != "none")
      request.plan.push_back("--remat=" + distribute.remat.getValue());
    request.plan.insert(request.plan.end(), distributionFlags.begin(),
                        distributionFlags.end());
    request.planText = "--mesh=" + mesh + " --parallel=" + kinds;
    for (size_t i = 2; i < request.plan.size(); ++i)
      request.planText += " " + request.plan[i];
    request.entry = entry.getValue();
    request.ranks = ranks;
    request.stages = pipelineStages;
    request.steps = verifySteps;
    SmallVector<StringRef> words;
    StringRef(verifyLauncher).split(words, ' ', -1, false);
    for (StringRef w : words)
      request.launcher.push_back(w.str());
    if (request.launcher.empty())
      return fail("--verify-launcher is empty");
    request.tolerance = verifyTolerance > 0 ? verifyTolerance.getValue()
                        : step.precision == "fp32" ? 1e-5
                                                   : 2e-2;
    // The planner's compute type, for both compiles.
    for (std::string &flag : request.common)
      if (flag == "--precision=auto" || flag == "-precision=auto")
        flag = "--precision=" + step.precision.getValue();
    if (failed(dist_compile::verifyPlan(*imported, request, llvm::outs()))) {
      llvm::outs().flush();
      llvm::sys::fs::remove(outputFilename);
      llvm::sys::fs::remove(outputFilename + ".safetensors");
      return 1;
    }
    timer.done("verify-plan");
  }
  return 0;
}
