//===- DistTraceKernels.cpp - Kernel calls as spans of a --trace ----------===//
//
// Wraps each call of an outlined kernel in distrt_trace_kernel_begin /
// _end, which record a span on the trace's compute track while the
// trainer's --trace records (and cost an atomic load otherwise). The span
// is named after the source op of the kernel: the ONNX node or MLIR
// location the user knows, not the kernel's symbol.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistDiagnostics.h"
#include "dialects/Dist/Runtime/BufferPointer.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#define DEBUG_TYPE "dist-trace-kernels"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTTRACEKERNELS
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {


struct DistTraceKernelsPass
    : dist::impl::DistTraceKernelsBase<DistTraceKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getNoInline() && call.getCallee().contains("_kernel_"))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Location loc = module.getLoc();
    Type i64 = b.getI64Type();
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto declare = [&](StringRef name, ArrayRef<Type> args,
                       ArrayRef<Type> results) {
      if (!module.lookupSymbol(name))
        func::FuncOp::create(b, loc, name, b.getFunctionType(args, results))
            .setPrivate();
    };
    declare("distrt_trace_kernel_begin", {}, {i64});
    declare("distrt_trace_kernel_end", {i64, ptr}, {});
    // One constant string per span name.
    llvm::StringMap<memref::GlobalOp> names;
    auto global = [&](const std::string &text) {
      auto [it, inserted] = names.try_emplace(text);
      if (!inserted)
        return it->second;
      SmallVector<int8_t> bytes(text.begin(), text.end());
      bytes.push_back(0);
      auto type = MemRefType::get({static_cast<int64_t>(bytes.size())},
                                  b.getI8Type());
      auto value = DenseElementsAttr::get(
          RankedTensorType::get(type.getShape(), b.getI8Type()),
          ArrayRef<int8_t>(bytes));
      it->second = memref::GlobalOp::create(
          b, loc, ("__dist_span_" + Twine(names.size() - 1)).str(),
          b.getStringAttr("private"), type, value, /*constant=*/true,
          /*alignment=*/nullptr);
      return it->second;
    };
    for (func::CallOp call : calls) {
      std::string source = dist::nodeName(call.getLoc());
      std::string text = call.getCallee().str();
      if (!source.empty())
        text = source + " (" + text + ")";
      memref::GlobalOp name = global(text);
      OpBuilder at(call);
      Value start =
          func::CallOp::create(at, call.getLoc(), "distrt_trace_kernel_begin",
                               TypeRange{i64}, ValueRange{})
              .getResult(0);
      at.setInsertionPointAfter(call);
      Value buffer = memref::GetGlobalOp::create(at, call.getLoc(),
                                                 name.getType(), name.getName());
      Value pointer = dist::bufferPointer(at, call.getLoc(), buffer).first;
      func::CallOp::create(at, call.getLoc(), "distrt_trace_kernel_end",
                           TypeRange{}, ValueRange{start, pointer});
    }
  }
};

} // namespace
