//===- KernelSignature.cpp - Text that identifies what a kernel does ------===//

#include "passes/Conversion/KernelSignature.h"

#include "mlir/IR/OperationSupport.h"

#include "llvm/Support/raw_ostream.h"

std::string mlir::dist::kernelSignature(FunctionOpInterface kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringAttr name = kernel.getNameAttr();
  kernel.setName("kernel");
  kernel->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  kernel.setName(name);
  return text;
}
