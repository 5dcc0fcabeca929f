//===- DistOutlineKernels.cpp - One function per linalg op on buffers -----===//

#include "passes/Conversion/KernelSignature.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "dist-outline-kernels"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTOUTLINEKERNELS
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct DistOutlineKernelsPass
    : dist::impl::DistOutlineKernelsBase<DistOutlineKernelsPass> {
  /// The kernels outlined so far, by dist::kernelSignature().
  llvm::StringMap<func::FuncOp> kernels;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    kernels.clear();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      SmallVector<linalg::LinalgOp> ops;
      func.walk([&](linalg::LinalgOp op) {
        if (op.hasPureBufferSemantics() && op->getParentOp() == func)
          ops.push_back(op);
      });
      for (auto [i, op] : llvm::enumerate(ops))
        outline(symbols, func, op, i);
    }
  }

  void outline(SymbolTable &symbols, func::FuncOp func, linalg::LinalgOp op,
               size_t index) {
    llvm::SetVector<Value> args(op->getOperands().begin(),
                                op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), args);
    // A 16-bit float scalar (a pad or fill value) travels as its bits: a
    // bf16 argument would make the x86 backend call __truncsfbf2, which
    // libgcc 12 lacks.
    auto asBits = [](Type t) -> Type {
      if (isa<BFloat16Type, Float16Type>(t))
        return IntegerType::get(t.getContext(), 16);
      return {};
    };
    SmallVector<Type> types;
    for (Value v : args)
      types.push_back(asBits(v.getType()) ? asBits(v.getType()) : v.getType());
    OpBuilder b(func);
    b.setInsertionPointAfter(func);
    Location loc = op.getLoc();
    auto kernel = func::FuncOp::create(
        b, loc, (func.getName() + "_kernel_" + Twine(index)).str(),
        b.getFunctionType(types, {}));
    kernel.setPrivate();
    symbols.insert(kernel);
    Block *body = kernel.addEntryBlock();
    IRMapping mapping;
    b.setInsertionPointToStart(body);
    for (auto [v, arg] : llvm::zip(args, body->getArguments()))
      mapping.map(
          v, arg.getType() == v.getType()
                 ? Value(arg)
                 : Value(arith::BitcastOp::create(b, loc, v.getType(), arg)));
    b.clone(*op, mapping);
    func::ReturnOp::create(b, loc);
    // Reuse an identical kernel outlined before: LLVM then compiles each
    // distinct kernel once (gpt2-small's 12 layers share theirs).
    auto [it, inserted] =
        kernels.try_emplace(dist::kernelSignature(kernel), kernel);
    if (!inserted) {
      symbols.erase(kernel);
      kernel = it->second;
    }
    b.setInsertionPoint(op);
    SmallVector<Value> operands;
    for (auto [v, t] : llvm::zip(args, types))
      operands.push_back(
          v.getType() == t ? v : Value(arith::BitcastOp::create(b, loc, t, v)));
    auto call = func::CallOp::create(b, loc, kernel, operands);
    call.setNoInline(true);
    op->erase();
  }
};

} // namespace
