//===- dist-opt.cpp - The dist-opt driver ---------------------------------===//
//
// Parses MLIR or imports an ONNX model, runs the passes and pipelines named on
// the command line, and prints the result. Every dialect and pass comes from
// passes/InitAll.h.
//
// The driver reads the input itself (classifyModelFile and
// readModelInputFlags, shared with dist-compile): MLIR bytecode is refused
// (docs/decisions.md); an ONNX model (by extension or content) is imported
// and handed to MlirOptMain as bytecode; MLIR text goes to MlirOptMain as is.
// Either way MlirOptMain runs the passes and writes the output.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/OnnxDiagnostics.h"
#include "passes/Import/OnnxImporter.h"
#include "passes/InitAll.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// A driver option (not a pass option): how the ONNX input's dynamic axes are
// sized is part of reading the file, before any pass runs.
static llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Static shape of an ONNX input exported with dynamic axes, "
                   "NAME=D0xD1x... (repeatable)"));

static llvm::cl::list<std::string> boundInputs(
    "bind-input",
    llvm::cl::desc("Fix an ONNX input to the value in a serialized ONNX "
                   "TensorProto, NAME=FILE.pb (repeatable); shape operands "
                   "passed as inputs then fold away"));

/// Opens the output file (kept only when the run succeeds), or reports why
/// it cannot.
static std::unique_ptr<llvm::ToolOutputFile> openOutput(StringRef filename) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(filename, &error);
  if (!output)
    llvm::errs() << "dist-opt: " << error << "\n";
  return output;
}

/// Counts what is written to it, for sizing a buffer exactly.
class CountingStream : public llvm::raw_ostream {
public:
  CountingStream() { SetUnbuffered(); }
  uint64_t current_pos() const override { return count; }

private:
  void write_impl(const char *, size_t size) override { count += size; }
  uint64_t count = 0;
};

/// Imports the ONNX model in `input` into `bytecode`, the input MlirOptMain
/// then reads like any other: every MlirOptMain flag (--mlir-timing,
/// --verify-roundtrip, --dump-pass-pipeline, ...) applies to ONNX models too.
/// The bytecode is written twice, first only to size the string exactly (the
/// writer references the weights' blobs, so this costs time, not memory), and
/// the importer's context is gone before MlirOptMain parses (which references
/// the weights in the buffer): the weights are alive twice at most.
static LogicalResult importToBytecode(std::unique_ptr<llvm::MemoryBuffer> input,
                                      StringRef inputFilename,
                                      const dist::OnnxImportOptions &options,
                                      DialectRegistry &registry,
                                      std::string &bytecode) {
  MLIRContext context(registry);
  dist::OnnxDiagnosticHandler diagnostics(&context);
  OwningOpRef<ModuleOp> module =
      dist::importOnnxModel(std::move(input), inputFilename, &context, options);
  if (!module)
    return failure();
  CountingStream counter;
  if (failed(writeBytecodeToFile(*module, counter)))
    return failure();
  bytecode.reserve(counter.tell());
  llvm::raw_string_ostream os(bytecode);
  return writeBytecodeToFile(*module, os);
}

/// `config`, printing diagnostics as `model.onnx:node_name: error: ...`
/// (OnnxDiagnostics.h) instead of the source manager's `model.onnx:0:0`, which
/// loses the node. The handler is installed when MlirOptMain sets up the pass
/// manager, the first point where its context exists; --verify-diagnostics
/// keeps MlirOptMain's own handler (an ONNX file has no expected-* lines, so
/// there every diagnostic is unexpected, as it should be).
static MlirOptMainConfig withOnnxDiagnostics(MlirOptMainConfig config) {
  if (config.shouldVerifyDiagnostics())
    return config;
  MlirOptMainConfig inner = config;
  config.setPassPipelineSetupFn([inner](PassManager &pm) {
    pm.getContext()->getDiagEngine().registerHandler(
        dist::printOnnxDiagnostic);
    return inner.setupPassPipeline(pm);
  });
  return config;
}

/// Hides from --help the options LLVM's libraries register when they load
/// (backend flags such as --aarch64-neon-syntax, over a thousand), keeping
/// this tool's own and those MlirOptMain registers afterwards; all of them
/// still work and --help-hidden lists them.
static void hideLibraryOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    StringRef name = entry.first;
    if (name == inputShapes.ArgStr || name == boundInputs.ArgStr ||
        name == "help" || name == "help-list" || name == "version")
      continue;
    entry.second->setHiddenFlag(llvm::cl::Hidden);
  }
}

int main(int argc, char **argv) {
  hideLibraryOptions();
  DialectRegistry registry;
  dist::registerAllDialects(registry);
  dist::registerAllPasses();
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "dist-opt: distributes a model's training step\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // These print registries and read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "dist-opt: " << error << "\n";
    return 1;
  }
  dist::ModelFileKind kind = dist::classifyModelFile(*input, inputFilename);
  dist::OnnxImportOptions options;
  if (std::optional<std::string> error = dist::readModelInputFlags(
          kind, inputFilename, inputShapes, boundInputs, options)) {
    llvm::errs() << "dist-opt: error: " << *error << "\n";
    return 1;
  }
  std::string onnxBytecode; // referenced by `input` when the model is ONNX
  if (kind == dist::ModelFileKind::Onnx) {
    if (failed(importToBytecode(std::move(input), inputFilename, options,
                                registry, onnxBytecode)))
      return 1;
    input = llvm::MemoryBuffer::getMemBuffer(
        onnxBytecode, inputFilename, /*RequiresNullTerminator=*/false);
    config = withOnnxDiagnostics(std::move(config));
  }
  std::unique_ptr<llvm::ToolOutputFile> output = openOutput(outputFilename);
  if (!output)
    return 1;
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
