//===- Combiners.cpp - Reductions a GPU block can fold --------------------===//

#include "passes/Cuda/Combiners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

/// The block-wide reduction that matches a combiner op, if any.
static std::optional<gpu::AllReduceOperation> allReduceKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<SmallVector<dist::Combiner>>
dist::matchCombiners(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  SmallVector<Combiner> combiners;
  for (auto [index, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    BlockArgument out = op.getMatchingBlockArgument(&init);
    Value yielded = yield.getOperand(index);
    Operation *combine = yielded.getDefiningOp();
    if (!combine || combine->getBlock() != &body || !yielded.hasOneUse() ||
        combine->getNumOperands() != 2 || !out.hasOneUse() ||
        *out.getUsers().begin() != combine)
      return std::nullopt;
    std::optional<gpu::AllReduceOperation> kind = allReduceKind(combine);
    std::optional<TypedAttr> identity = arith::getNeutralElement(combine);
    if (!kind || !identity)
      return std::nullopt;
    combiners.push_back(
        {static_cast<unsigned>(index), combine, *kind, *identity});
  }
  return combiners;
}

Value dist::combine(OpBuilder &b, linalg::GenericOp op, const Combiner &c,
                    Value acc, Value x) {
  IRMapping map;
  BlockArgument out =
      op.getMatchingBlockArgument(&op.getDpsInitsMutable()[c.output]);
  map.map(out, acc);
  for (Value operand : c.combine->getOperands())
    if (operand != out)
      map.map(operand, x);
  return b.clone(*c.combine, map)->getResult(0);
}
