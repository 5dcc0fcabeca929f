//===- OnnxImportFuzzer.cpp - libFuzzer target for the ONNX importer ------===//
//
// Feeds arbitrary bytes to the ONNX importer as a model file. The importer
// must reject what is not a valid model with a diagnostic: any crash, abort,
// hang, leak or memory error AddressSanitizer sees is a bug. Built with
// clang and -fsanitize=address,fuzzer by the `onnx-import-fuzzer` target;
// see fuzz/README.md.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/OnnxImporter.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdint>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<dist::DistDialect, func::FuncDialect>();
  // Diagnostics are the expected outcome; keep the fuzzer's output quiet.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  // A folder that does not exist: external data never resolves to a file.
  dist::importOnnxModel(std::move(buffer), "/nonexistent-fuzz-dir/model.onnx",
                        &context, dist::OnnxImportOptions());
  return 0;
}
