//===- ObjectEmission.h - LLVM dialect to LLVM IR / object file -*- C++ -*-===//

#ifndef TOOLS_DIST_COMPILE_OBJECTEMISSION_H
#define TOOLS_DIST_COMPILE_OBJECTEMISSION_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::dist {

struct CodegenOptions {
  /// Target CPU: "native" (this machine, with its features) or an LLVM CPU
  /// name such as "generic" or "x86-64-v3".
  std::string cpu = "native";
  unsigned optLevel = 3;
};

/// Translates a module on the LLVM dialect to LLVM IR, optimizes it for the
/// host triple, and writes either the LLVM IR text (`asIR`) or an object
/// file to `os`. Errors go to the module's diagnostic handler. With
/// `stageAxis` >= 0 the modules are the programs of pipeline stages, linked
/// into one whose entry point runs the stage of the rank's coordinate on
/// that mesh axis. With `ps.workers` > 0 they are parameter-server mode's
/// programs instead: the workers' (dist_model_forward and
/// dist_model_interface), then each server's, linked with the table the
/// runtime finds them by (distrt/model.h, "Parameter-server mode").
struct ParameterServerLink {
  int64_t workers = 0;
  /// --grad-compression: how the workers' pushes are sent.
  std::string gradCompression = "none";
  /// --parallel=dp --sync=async: no servers; every rank all-reduces the
  /// gradients and runs server 0's update (the whole model's) itself.
  bool allReduce = false;
};
LogicalResult emitLLVM(ArrayRef<ModuleOp> modules, int64_t stageAxis,
                       const CodegenOptions &options, bool asIR,
                       llvm::raw_pwrite_stream &os,
                       const ParameterServerLink &ps = {});

} // namespace mlir::dist

#endif // TOOLS_DIST_COMPILE_OBJECTEMISSION_H
