//===- DistOps.cpp - Generated op definitions of the dist dialect ---------===//
//
// Only the generated code lives here; each op family's hand-written methods
// (type inference, verifiers, folders) are in <Family>Ops.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistTypeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::dist;

#include "dialects/Dist/IR/DistEnums.cpp.inc"

/// A mesh's shape, `2x4`.
static ParseResult parseMeshShape(OpAsmParser &parser,
                                  DenseI64ArrayAttr &shape) {
  SmallVector<int64_t> sizes;
  if (parser.parseDimensionList(sizes, /*allowDynamic=*/false,
                                /*withTrailingX=*/false))
    return failure();
  shape = DenseI64ArrayAttr::get(parser.getContext(), sizes);
  return success();
}

static void printMeshShape(OpAsmPrinter &printer, Operation *,
                           DenseI64ArrayAttr shape) {
  llvm::interleave(shape.asArrayRef(), printer, "x");
}

#define GET_OP_CLASSES
#include "dialects/Dist/IR/DistOps.cpp.inc"
