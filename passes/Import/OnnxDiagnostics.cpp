//===- OnnxDiagnostics.cpp - Diagnostics that point into ONNX models ------===//

#include "passes/Import/OnnxDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string mlir::dist::formatLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (auto file = dyn_cast<FileLineColLoc>(name.getChildLoc()))
      return (file.getFilename().getValue() + ":" + name.getName().getValue())
          .str();
    return formatLocation(name.getChildLoc());
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    if (file.getLine() == 0)
      return file.getFilename().str();
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  }
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    return formatLocation(fused.getLocations().front());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

static StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Remark:
    return "remark";
  case DiagnosticSeverity::Note:
    return "note";
  }
  return "error";
}

static void print(Diagnostic &diag) {
  llvm::errs() << mlir::dist::formatLocation(diag.getLocation()) << ": "
               << severityName(diag.getSeverity()) << ": " << diag.str()
               << "\n";
}

LogicalResult mlir::dist::printOnnxDiagnostic(Diagnostic &diag) {
  print(diag);
  for (Diagnostic &note : diag.getNotes())
    print(note);
  llvm::errs().flush();
  return success();
}

mlir::dist::OnnxDiagnosticHandler::OnnxDiagnosticHandler(MLIRContext *context)
    : ScopedDiagnosticHandler(context, printOnnxDiagnostic) {}
