//===- dist-opt.cpp - The dist-opt driver ---------------------------------===//
//
// Parses MLIR, runs the passes and pipelines named on the command line, and
// prints the result. Every dialect and pass comes from passes/InitAll.h.
//
//===----------------------------------------------------------------------===//

#include "passes/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dist::registerAllDialects(registry);
  mlir::dist::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dist-opt: distributes a model's training step\n", registry));
}
