//===- DistCountHostAllocations.cpp - Heap calls to the runtime's ---------===//
//
// After finalize-memref-to-llvm, compiled code allocates its buffers with
// the C library's malloc / aligned_alloc / free. This pass points those
// calls at distrt_host_malloc / _aligned_alloc / _free, which count the
// bytes held, so the trainer can report the peak of tensor memory.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTCOUNTHOSTALLOCATIONS
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

struct CountHostAllocationsPass
    : dist::impl::DistCountHostAllocationsBase<CountHostAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    constexpr std::pair<StringLiteral, StringLiteral> kRenames[] = {
        {"malloc", "distrt_host_malloc"},
        {"aligned_alloc", "distrt_host_aligned_alloc"},
        {"free", "distrt_host_free"}};
    for (auto [from, to] : kRenames) {
      auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(from);
      if (!fn || !fn.isExternal())
        continue;
      if (module.lookupSymbol(to)) {
        fn.emitError("cannot rename @")
            << from << ": the module already defines @" << to;
        return signalPassFailure();
      }
      StringAttr name = StringAttr::get(&getContext(), to);
      if (failed(SymbolTable::replaceAllSymbolUses(fn, name, module)))
        return signalPassFailure();
      SymbolTable::setSymbolName(fn, name);
    }
  }
};

} // namespace
