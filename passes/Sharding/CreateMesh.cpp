//===- CreateMesh.cpp - Give the module its device mesh ------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistMesh.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTCREATEMESH
#include "passes/Sharding/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

struct DistCreateMeshPass : dist::impl::DistCreateMeshBase<DistCreateMeshPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (shape.empty() || llvm::any_of(shape, [](int64_t n) { return n < 1; })) {
      module.emitError("dist-create-mesh: the mesh shape is one device count "
                       ">= 1 per axis, e.g. shape=2,2");
      return signalPassFailure();
    }
    SmallVector<int64_t> sizes(shape.begin(), shape.end());
    if (MeshOp existing = getMesh(module)) {
      if (existing.getShape() == ArrayRef<int64_t>(sizes))
        return;
      InFlightDiagnostic diag =
          module.emitError("dist-create-mesh: the module already has another "
                           "device mesh");
      diag.attachNote(existing.getLoc()) << "the mesh is defined here";
      return signalPassFailure();
    }
    OpBuilder b(module.getContext());
    auto mesh = MeshOp::create(b, module.getLoc(), "mesh", sizes);
    // At the top, named @mesh unless a parameter has that name.
    SymbolTable(module).insert(mesh, module.getBody()->begin());
  }
};

} // namespace
