//===- dist-opt.cpp - The dist-opt driver ---------------------------------===//
//
// Parses MLIR, runs the passes and pipelines named on the command line, and
// prints the result. Every dialect and pass comes from passes/InitAll.h.
//
// The driver reads the input itself before handing it to MlirOptMain so that
// it can refuse inputs it cannot process safely (see docs/decisions.md:
// MLIR bytecode input).
//
//===----------------------------------------------------------------------===//

#include "passes/InitAll.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
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
  if (isBytecode(*input)) {
    llvm::errs() << inputFilename
                 << ": error: MLIR bytecode input is not accepted: the MLIR "
                    "bytecode reader can crash on a damaged file. Convert it "
                    "to text with `mlir-opt-22 FILE -o FILE.mlir` and pass "
                    "the text instead.\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "dist-opt: " << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
