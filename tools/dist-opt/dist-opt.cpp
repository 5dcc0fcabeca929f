//===- dist-opt.cpp - The dist-opt driver ---------------------------------===//
//
// Parses MLIR or imports an ONNX model, runs the passes and pipelines named on
// the command line, and prints the result. Every dialect and pass comes from
// passes/InitAll.h.
//
// The driver reads the input itself (classifyModelFile and
// readModelInputFlags, shared with dist-compile): an ONNX model (by
// extension or content) goes through the importer; MLIR bytecode is refused
// (docs/decisions.md); MLIR text goes to MlirOptMain.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/OnnxDiagnostics.h"
#include "passes/Import/OnnxImporter.h"
#include "passes/InitAll.h"

#include "mlir/Bytecode/BytecodeReader.h"
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

/// Imports the ONNX model in `input`, runs the command line's passes on it and
/// writes the result: MlirOptMain's flow, for a module built by the importer.
static int runOnnxInput(std::unique_ptr<llvm::MemoryBuffer> input,
                        StringRef inputFilename, StringRef outputFilename,
                        const dist::OnnxImportOptions &options,
                        DialectRegistry &registry,
                        const MlirOptMainConfig &config) {
  MLIRContext context(registry);
  dist::OnnxDiagnosticHandler diagnostics(&context);
  OwningOpRef<ModuleOp> module =
      dist::importOnnxModel(std::move(input), inputFilename, &context, options);
  if (!module)
    return 1;
  PassManager pm(&context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  pm.enableVerifier(config.shouldVerifyPasses());
  if (failed(applyPassManagerCLOptions(pm)) ||
      failed(config.setupPassPipeline(pm)) || failed(pm.run(*module)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutput(outputFilename);
  if (!output)
    return 1;
  if (config.shouldEmitBytecode()) {
    if (failed(writeBytecodeToFile(*module, output->os())))
      return 1;
  } else {
    module->print(output->os());
    output->os() << "\n";
  }
  output->keep();
  return 0;
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
  if (kind == dist::ModelFileKind::Onnx)
    return runOnnxInput(std::move(input), inputFilename, outputFilename,
                        options, registry, config);
  std::unique_ptr<llvm::ToolOutputFile> output = openOutput(outputFilename);
  if (!output)
    return 1;
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
