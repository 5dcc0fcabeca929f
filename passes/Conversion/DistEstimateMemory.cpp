//===- DistEstimateMemory.cpp - Predicted peak of host tensor memory ------===//
//
// On the bufferized entry (after dist-free-buffers-early), replays the
// step's allocations in program order: the runtime's buffers (the
// interface's arguments and outputs) are held throughout, each
// memref.alloc adds its block and each memref.dealloc removes it, and a
// gemm with 16-bit inputs holds their float32 copies while it runs. The
// most held at once is the peak the trainer measures ("tensor_peak_mib":
// distrt_host_memory counts the same blocks, by the allocator's sizes,
// which this pass models). At the peak, the held bytes are split into
// parameters, optimizer state, inputs and outputs (the runtime's), and the
// step's own buffers: activations (allocated before the forward's loss is
// written), gradients (later buffers the optimizer's update reads: an op
// reading them also reads or writes a parameter or its state) and
// workspace (the rest).
//
// With device=cuda the same replay predicts a CUDA step's device memory:
// the caching allocator's size classes, shards only, no float32 copies for
// products, and the cuBLASLt workspace and the constants' device copies
// held to the end.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistDialect.h"
#include "dialects/Dist/Runtime/BufferPointer.h"
#include "dialects/Dist/Runtime/RuntimeTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTESTIMATEMEMORY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

int64_t roundUp(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

/// The bytes of a static memref, 0 otherwise.
int64_t bytesOf(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return 0;
  return memref.getNumElements() *
         dist::elementStorageBytes(memref.getElementType());
}

/// What glibc's malloc_usable_size reports for a compiled alloc (the
/// lowering asks malloc for the bytes plus the alignment) and for the
/// runtime's distrt_alloc (aligned_alloc(64, bytes rounded to 64)).
int64_t compiledBlock(int64_t bytes) {
  return roundUp(bytes + 64 + 8, 16) - 8; // the chunk less its header
}
int64_t runtimeBlock(int64_t bytes) {
  return roundUp(std::max<int64_t>(bytes, 1), 64) + 8;
}

/// The caching allocator's blocks on a CUDA device: a compiled alloc asks
/// for the bytes plus the alignment (memref.alloc's lowering aligns the
/// pointer itself), the runtime's distrt_alloc for the bytes.
int64_t deviceCompiledBlock(int64_t bytes) {
  return static_cast<int64_t>(distrt_cuda_block_bytes(bytes + 64));
}
int64_t deviceRuntimeBlock(int64_t bytes) {
  return static_cast<int64_t>(distrt_cuda_block_bytes(bytes));
}

enum Part { Parameters, State, InputsOutputs, Activations, Gradients, Workspace, NumParts };
constexpr const char *kPartNames[] = {"parameters",  "optimizer state",
                                      "inputs and outputs", "activations",
                                      "gradients",   "workspace"};

/// The buffer a view is a view of.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

struct EstimateMemoryPass
    : dist::impl::DistEstimateMemoryBase<EstimateMemoryPass> {
  using DistEstimateMemoryBase::DistEstimateMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (device != "host" && device != "cuda") {
      module.emitError("dist-estimate-memory: device=")
          << device << " is neither host nor cuda";
      return signalPassFailure();
    }
    const bool cuda = device == "cuda";
    auto allocBlock = cuda ? deviceCompiledBlock : compiledBlock;
    auto bufferBlock = cuda ? deviceRuntimeBlock : runtimeBlock;
    const int64_t workspaceBytes =
        gemmWorkspace >= 0
            ? static_cast<int64_t>(gemmWorkspace)
            : static_cast<int64_t>(DISTRT_CUDA_GEMM_WORKSPACE_BYTES);
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    auto interface = module->getAttrOfType<DictionaryAttr>(
        dist::DistDialect::kModelInterfaceAttrName);
    auto updates = module->getAttrOfType<DenseI64ArrayAttr>(
        dist::DistDialect::kModelUpdatesAttrName);
    if (!fn || fn.isExternal() || !interface || !updates) {
      module.emitError("dist-estimate-memory: no bufferized entry @")
          << entry << " with its interface (run after dist-describe-model "
          << "and bufferization)";
      return signalPassFailure();
    }
    auto arguments = interface.getAs<ArrayAttr>("arguments");
    size_t numArgs = arguments ? arguments.size() : 0;
    if (fn.getNumArguments() != numArgs + updates.size()) {
      fn.emitError("dist-estimate-memory: the entry takes ")
          << fn.getNumArguments() << " buffers, the interface describes "
          << numArgs << " arguments and " << updates.size() << " results";
      return signalPassFailure();
    }

    // The runtime's buffers, held throughout; an update result writes into
    // its argument's buffer.
    int64_t held[NumParts] = {};
    DenseSet<Value> optimizerBuffers; // parameters and their state
    // A pipeline stage holds only its own parameters and state ("place").
    std::optional<int64_t> stage;
    if (auto pipeline = module->getAttrOfType<DictionaryAttr>(
            dist::DistDialect::kPipelineAttrName))
      if (auto functions = pipeline.getAs<ArrayAttr>("functions"))
        for (auto [k, f] : llvm::enumerate(functions))
          if (cast<FlatSymbolRefAttr>(f).getValue() == entry.getValue())
            stage = k;
    auto elsewhere = [&](DictionaryAttr desc) {
      auto place = desc ? desc.getAs<DictionaryAttr>("place") : nullptr;
      auto stages = place ? place.getAs<DenseI64ArrayAttr>("stages") : nullptr;
      return stage && stages && !llvm::is_contained(stages.asArrayRef(), *stage);
    };
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      Part part = InputsOutputs;
      if (i < numArgs) {
        auto desc = dyn_cast<DictionaryAttr>(arguments[i]);
        if (elsewhere(desc))
          continue;
        auto role = desc ? desc.getAs<StringAttr>("role") : StringAttr();
        if (role && role.getValue() == "param")
          part = Parameters;
        else if (role && role.getValue() == "state")
          part = State;
      } else if (updates[i - numArgs] >= 0) {
        continue;
      }
      if (part != InputsOutputs)
        optimizerBuffers.insert(fn.getArgument(i));
      held[part] += bufferBlock(bytesOf(fn.getArgument(i).getType()));
      // The runtime also holds the whole batch of a split input, which
      // each step slices into its shard (on the host only).
      if (!cuda && i < numArgs && part == InputsOutputs)
        held[part] += wholeInputBytes(arguments[i], fn.getArgument(i));
    }
    // Out-params of updates alias their arguments.
    for (auto [k, u] : llvm::enumerate(updates.asArrayRef()))
      if (u >= 0)
        optimizerBuffers.insert(fn.getArgument(numArgs + k));

    // The loss (the first output) is written at the end of the forward.
    Value lossBuffer;
    if (auto outputs = interface.getAs<ArrayAttr>("outputs");
        outputs && !outputs.empty() && !updates.empty())
      lossBuffer = fn.getArgument(numArgs);

    // Replay.
    struct Block {
      int64_t bytes;
      bool forward;
    };
    DenseMap<Value, Block> live;
    bool inForward = true;
    int64_t now = 0, peak = -1;
    for (int64_t h : held)
      now += h;
    DenseMap<Value, Block> atPeak;
    int64_t transientAtPeak = 0;
    // Device memory held from its first use to the end: the gemm's
    // workspace and the constants' copies.
    int64_t kept = 0, keptAtPeak = 0;
    auto observe = [&](int64_t transient) {
      if (now + transient > peak) {
        peak = now + transient;
        atPeak = live;
        transientAtPeak = transient;
        keptAtPeak = kept;
      }
    };
    auto keep = [&](int64_t bytes) {
      kept += bytes;
      now += bytes;
      observe(0);
    };
    observe(0);
    // The gemm's workspace: allocated by the first step's first product and
    // held from then on, so from the start of every later step.
    if (cuda && fn.walk([](func::CallOp call) {
                    return isCudaGemm(call) ? WalkResult::interrupt()
                                            : WalkResult::advance();
                  }).wasInterrupted())
      keep(deviceRuntimeBlock(workspaceBytes));
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        int64_t block = allocBlock(bytesOf(alloc.getType()));
        live[alloc.getResult()] = {block, inForward};
        now += block;
        observe(0);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        auto it = live.find(rootOf(dealloc.getMemref()));
        if (it != live.end()) {
          now -= it->second.bytes;
          live.erase(it);
        }
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        if (cuda)
          keep(deviceCompiledBlock(bytesOf(global.getType())));
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        if (!cuda)
          observe(widenedInputs(call));
      }
      if (inForward && lossBuffer && writes(op, lossBuffer))
        inForward = false;
    });

    // The split at the peak.
    int64_t parts[NumParts];
    std::copy(std::begin(held), std::end(held), parts);
    parts[Workspace] += transientAtPeak + keptAtPeak;
    for (auto &[buffer, block] : atPeak) {
      if (block.forward)
        parts[Activations] += block.bytes;
      else if (readByUpdate(buffer, optimizerBuffers))
        parts[Gradients] += block.bytes;
      else
        parts[Workspace] += block.bytes;
    }
    if (!explain)
      return;
    auto mib = [](int64_t bytes) {
      return llvm::format("%.3f", static_cast<double>(bytes) / (1 << 20));
    };
    llvm::raw_ostream &os = llvm::outs();
    os << "memory of @" << entry << " per rank ("
       << (cuda ? "CUDA device memory" : "host tensors") << "): peak "
       << mib(peak) << " MiB =";
    for (int p = 0; p < NumParts; ++p)
      os << (p ? " +" : "") << " " << kPartNames[p] << " " << mib(parts[p]);
    os << "\n";
  }

  /// The runtime's block of the whole (logical) tensor of a split input,
  /// 0 for another argument.
  static int64_t wholeInputBytes(Attribute description, Value shard) {
    auto desc = dyn_cast<DictionaryAttr>(description);
    auto role = desc ? desc.getAs<StringAttr>("role") : StringAttr();
    auto shape = desc ? desc.getAs<DenseI64ArrayAttr>("shape")
                      : DenseI64ArrayAttr();
    auto type = dyn_cast<MemRefType>(shard.getType());
    if (!role || role.getValue() != "input" || !desc.get("split") || !shape ||
        !type)
      return 0;
    int64_t elements = 1;
    for (int64_t size : shape.asArrayRef())
      elements *= size;
    return runtimeBlock(elements *
                        dist::elementStorageBytes(type.getElementType()));
  }

  /// Whether `op` writes `buffer` or a view of it.
  static bool writes(Operation *op, Value buffer) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    return llvm::any_of(instances, [&](auto &e) {
      return isa<MemoryEffects::Write>(e.getEffect()) && e.getValue() &&
             rootOf(e.getValue()) == buffer;
    });
  }

  /// Whether an op that reads `buffer` (or a view of it) also reads or
  /// writes a parameter or optimizer state: the update reading a gradient.
  static bool readByUpdate(Value buffer, const DenseSet<Value> &optimizer) {
    SmallVector<Value> worklist = {buffer};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == v) {
          worklist.push_back(user->getResult(0));
          continue;
        }
        if (llvm::any_of(user->getOperands(), [&](Value o) {
              return optimizer.contains(rootOf(o));
            }))
          return true;
      }
    }
    return false;
  }

  /// Whether `call` is a CUDA target's product (which opens cuBLASLt and
  /// its workspace on the first call).
  static bool isCudaGemm(func::CallOp call) {
    StringRef callee = call.getCallee();
    return callee == "distrt_cuda_gemm" || callee == "distrt_emulate_cuda_gemm";
  }

  /// The float32 copies distrt_gemm makes of 16-bit inputs while it runs
  /// (as runtimeBlock sizes them), 0 for other calls.
  static int64_t widenedInputs(func::CallOp call) {
    if (call.getCallee() != "distrt_gemm" || call.getNumOperands() < 7)
      return 0;
    auto constant = [&](unsigned i) -> std::optional<int64_t> {
      if (auto c = call.getOperand(i).getDefiningOp<arith::ConstantIntOp>())
        return c.value();
      return std::nullopt;
    };
    std::optional<int64_t> dtype = constant(0), m = constant(4),
                           n = constant(5), k = constant(6);
    if (!dtype || !m || !n || !k ||
        (*dtype != DISTRT_BF16 && *dtype != DISTRT_F16))
      return 0;
    return runtimeBlock(*m * *k * 4) + runtimeBlock(*k * *n * 4);
  }
};

} // namespace
