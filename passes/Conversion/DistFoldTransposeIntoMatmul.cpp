//===- DistFoldTransposeIntoMatmul.cpp - Transposed operands as maps ------===//
//
// A product that reads a transposed matrix (`nn.Linear` is x @ W^T; the
// backward multiplies by transposes of both operands) reads it through its
// indexing map instead: the BLAS call then takes the transpose flag and the
// transposed copy (for GPT-2's tied output projection 154 MB per step) is
// never written.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#define DEBUG_TYPE "dist-fold-transpose-into-matmul"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFOLDTRANSPOSEINTOMATMUL
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// Whether `perm` swaps the last two dimensions and keeps the others.
static bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

/// `map` reading its operand's last two dimensions the other way round.
static AffineMap swapLastTwoResults(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults());
  std::swap(results[results.size() - 2], results.back());
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// Whether `op` with `maps` and `inputs` verifies; if not, `op` is left as
/// it was. linalg.matmul / linalg.batch_matmul's verifier decides which
/// transposed operand maps they take.
static bool trySetMapsAndInputs(linalg::LinalgOp op, ArrayRef<AffineMap> maps,
                                ValueRange inputs) {
  SmallVector<Attribute> attrs;
  for (AffineMap map : maps)
    attrs.push_back(AffineMapAttr::get(map));
  Attribute old = op->getAttr("indexing_maps");
  SmallVector<Value> oldInputs(op.getDpsInputs());
  op->setOperands(0, inputs.size(), inputs);
  op->setAttr("indexing_maps", ArrayAttr::get(op->getContext(), attrs));
  LogicalResult valid = success();
  {
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    valid = mlir::verify(op, /*verifyRecursively=*/false);
  }
  if (succeeded(valid))
    return true;
  if (old)
    op->setAttr("indexing_maps", old);
  else
    op->removeAttr("indexing_maps");
  op->setOperands(0, oldInputs.size(), oldInputs);
  return false;
}

/// Reads each input of `op` that is a transpose of its last two dimensions
/// from the transpose's source, through a transposed indexing map.
static void foldTransposedInputs(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs(op.getDpsInputs());
  bool changed = false;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto transpose = input.getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !swapsLastTwo(transpose.getPermutation()))
      continue;
    maps[i] = swapLastTwoResults(maps[i]);
    inputs[i] = transpose.getInput();
    changed = true;
  }
  if (!changed)
    return;
  trySetMapsAndInputs(op, maps, inputs);
}

/// A transpose of a product's last two dimensions, when the product is
/// read by nothing else and starts from a fill: the product computes the
/// transposed result itself, (A B)^T = B^T A^T, its operands exchanged and
/// read through transposed maps (a weight gradient dW = (x^T dy)^T).
static void foldTransposedResult(linalg::TransposeOp transpose) {
  if (!swapsLastTwo(transpose.getPermutation()))
    return;
  auto op = transpose.getInput().getDefiningOp<linalg::LinalgOp>();
  if (!op || !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
      !op.hasPureTensorSemantics() || !op->getResult(0).hasOneUse())
    return;
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return;
  // Loop dims [b,] m, n, k: the new product's m is the old n.
  unsigned o = isa<linalg::BatchMatmulOp>(op.getOperation()) ? 1 : 0;
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned d = 0; d < o + 3; ++d)
    dims.push_back(getAffineDimExpr(d, ctx));
  std::swap(dims[o], dims[o + 1]);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto exchange = [&](AffineMap map) {
    return map.replaceDimsAndSymbols(dims, {}, map.getNumDims(),
                                     map.getNumSymbols());
  };
  SmallVector<AffineMap> newMaps = {exchange(maps[1]), exchange(maps[0]),
                                    maps[2]};
  if (exchange(maps[2]) != swapLastTwoResults(maps[2]))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(transpose.getResult()[0].getType());
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  Value init = linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
                   .getResult(0);
  Value oldInit = op.getDpsInits()[0];
  op->getResult(0).setType(type);
  op.getDpsInitsMutable()[0].set(init);
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
  if (!trySetMapsAndInputs(op, newMaps, {bm, a})) {
    op->getResult(0).setType(cast<RankedTensorType>(oldInit.getType()));
    op.getDpsInitsMutable()[0].set(oldInit);
    init.getDefiningOp()->erase();
    empty.getDefiningOp()->erase();
    return;
  }
  transpose.getResult()[0].replaceAllUsesWith(op->getResult(0));
  transpose->erase();
}

struct DistFoldTransposeIntoMatmulPass
    : dist::impl::DistFoldTransposeIntoMatmulBase<
          DistFoldTransposeIntoMatmulPass> {
  using DistFoldTransposeIntoMatmulBase::DistFoldTransposeIntoMatmulBase;

  void runOnOperation() override {
    llvm::SetVector<Operation *> transposes;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        return;
      for (Value input : op.getDpsInputs())
        if (auto t = input.getDefiningOp<linalg::TransposeOp>())
          transposes.insert(t);
      foldTransposedInputs(op);
    });
    SmallVector<linalg::TransposeOp> results;
    getOperation().walk([&](linalg::TransposeOp t) { results.push_back(t); });
    for (linalg::TransposeOp t : results)
      if (!transposes.contains(t))
        foldTransposedResult(t);
    // Transposes nothing reads any more.
    for (Operation *t : transposes)
      if (t->use_empty())
        t->erase();
  }
};

} // namespace
