//===- HostMemoryToGpu.cpp - Copies and constants on device buffers -------===//

#include "passes/Cuda/Passes.h"

#include "dialects/Dist/Runtime/BufferPointer.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "dist-host-memory-to-gpu"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTHOSTMEMORYTOGPU
#include "passes/Cuda/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// The runtime's copy on the compute stream (runtime/src/cuda): any
/// direction, unified addressing; a null stream is the compute stream.
constexpr llvm::StringLiteral kMemcpyName = "mgpuMemcpy";

static func::FuncOp getOrCreateMemcpyDecl(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(kMemcpyName))
    return f;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto f = func::FuncOp::create(
      b, module.getLoc(), kMemcpyName,
      b.getFunctionType({ptr, ptr, b.getI64Type(), ptr}, {}));
  f.setPrivate();
  return f;
}

/// Copies all of `src` onto `dst` (both contiguous, same shape).
static void emitCopy(OpBuilder &b, Location loc, func::FuncOp memcpy,
                     Value src, Value dst) {
  auto type = cast<MemRefType>(src.getType());
  // (An i1 takes a byte: 64x64 booleans are 4096 bytes, not 512.)
  int64_t bytes =
      type.getNumElements() * dist::elementStorageBytes(type.getElementType());
  Value to = dist::bufferPointer(b, loc, dst).first;
  Value from = dist::bufferPointer(b, loc, src).first;
  Value size = arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes);
  Value stream =
      LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()));
  func::CallOp::create(b, loc, memcpy, ValueRange{to, from, size, stream});
}

/// Whether `op`, on the host, reads or writes the memory of a buffer.
static bool accessesBufferMemory(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
           e.getValue() && isa<MemRefType>(e.getValue().getType());
  });
}

struct DistHostMemoryToGpuPass
    : dist::impl::DistHostMemoryToGpuBase<DistHostMemoryToGpuPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && failed(convert(module, func)))
        return signalPassFailure();
  }

  LogicalResult convert(ModuleOp module, func::FuncOp func) {
    SmallVector<memref::GetGlobalOp> globals;
    SmallVector<memref::CopyOp> copies;
    WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip(); // device code
      if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        globals.push_back(global);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        copies.push_back(copy);
      } else if (auto call = dyn_cast<func::CallOp>(op);
                 call && call.getCallee() == "distrt_sparsify_top_k") {
        op->emitError() << "top-k selection (dist.sparsify_top_k, "
                           "--grad-compression=topk:F) runs on the host, "
                           "which cannot read device buffers: it has no GPU "
                           "kernel yet (compile for the CPU, or use "
                           "--target=cuda-emulate)";
        return WalkResult::interrupt();
      } else if (isa<memref::AllocaOp>(op)) {
        op->emitError() << "a stack buffer on the host cannot be read by "
                           "GPU kernels (dist-host-memory-to-gpu)";
        return WalkResult::interrupt();
      } else if (accessesBufferMemory(op)) {
        op->emitError()
            << "'" << op->getName()
            << "' reads or writes a device buffer on the host; in a CUDA "
               "program only kernels and runtime calls may (run "
               "dist-linalg-to-gpu first)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (globals.empty() && copies.empty())
      return success();
    func::FuncOp memcpy = getOrCreateMemcpyDecl(module);

    // Constants: a device copy for the whole call, freed before each return.
    SmallVector<Value> uploaded;
    for (memref::GetGlobalOp global : globals) {
      OpBuilder b(global);
      auto type = cast<MemRefType>(global.getType());
      if (!type.getLayout().isIdentity() || !type.hasStaticShape())
        return global.emitError()
               << "a constant with a non-contiguous or dynamic layout cannot "
                  "be copied to the GPU";
      Value device = memref::AllocOp::create(b, global.getLoc(), type,
                                             b.getI64IntegerAttr(64));
      auto host = memref::GetGlobalOp::create(b, global.getLoc(), type,
                                              global.getNameAttr());
      emitCopy(b, global.getLoc(), memcpy, host, device);
      global.getResult().replaceAllUsesExcept(device, host);
      global.erase();
      uploaded.push_back(device);
    }
    if (!uploaded.empty())
      func.walk([&](func::ReturnOp ret) {
        OpBuilder b(ret);
        for (Value device : uploaded)
          memref::DeallocOp::create(b, ret.getLoc(), device);
      });

    for (memref::CopyOp copy : copies) {
      auto src = cast<MemRefType>(copy.getSource().getType());
      auto dst = cast<MemRefType>(copy.getTarget().getType());
      if (!src.hasStaticShape() || !dst.hasStaticShape() ||
          !memref::isStaticShapeAndContiguousRowMajor(src) ||
          !memref::isStaticShapeAndContiguousRowMajor(dst))
        return copy.emitError()
               << "a copy between non-contiguous buffers reached "
                  "dist-host-memory-to-gpu (run dist-lower-strided-copies "
                  "and dist-linalg-to-gpu first)";
      OpBuilder b(copy);
      emitCopy(b, copy.getLoc(), memcpy, copy.getSource(), copy.getTarget());
      copy.erase();
    }
    return success();
  }
};

} // namespace
