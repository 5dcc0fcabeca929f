//===- Launches.cpp - Building the kernels of the CUDA passes -------------===//

#include "passes/Cuda/Launches.h"

#include "dialects/Dist/IR/DistDiagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cctype>

using namespace mlir;

void mlir::dist::nameKernel(gpu::LaunchOp launch, Operation *source,
                            unsigned index, llvm::StringRef suffix,
                            char kind) {
  std::string name;
  if (auto func = source->getParentOfType<func::FuncOp>())
    name = func.getSymName().str();
  name += std::string("_") + kind + std::to_string(index);
  std::string node = nodeName(source->getLoc());
  if (!node.empty())
    name += "_";
  for (char c : node)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.size() > 120)
    name.resize(120);
  name += suffix;
  launch.setFunctionAttr(FlatSymbolRefAttr::get(launch.getContext(), name));
}

int64_t mlir::dist::threadsPerBlock(int64_t points, int64_t blockSize) {
  return std::min<int64_t>(blockSize, (points + 31) / 32 * 32);
}

LogicalResult mlir::dist::checkBlockSize(Operation *func, llvm::StringRef pass,
                                         int64_t blockSize) {
  if (blockSize >= 32 && blockSize <= 1024 &&
      (blockSize & (blockSize - 1)) == 0)
    return success();
  return func->emitError() << pass << ": block-size " << blockSize
                           << " is not a power of 2 from 32 to 1024";
}

int64_t mlir::dist::reductionThreads(int64_t length, int64_t blockSize) {
  int64_t threads = 32;
  while (threads < blockSize && threads < length)
    threads *= 2;
  return threads;
}

gpu::LaunchOp mlir::dist::createLaunch(OpBuilder &b, Location loc,
                                       int64_t blocks, int64_t threads,
                                       TypeRange workgroup) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, blocks), one, one,
      arith::ConstantIndexOp::create(b, loc, threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroup);
  OpBuilder tb = OpBuilder::atBlockEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(tb, loc);
  return launch;
}

mlir::dist::PointLaunch mlir::dist::createPointLaunch(OpBuilder &b,
                                                      Location loc,
                                                      int64_t points,
                                                      int64_t threads) {
  gpu::LaunchOp launch =
      createLaunch(b, loc, (points + threads - 1) / threads, threads);
  OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value base = arith::MulIOp::create(
      kb, loc, launch.getBlockIds().x,
      arith::ConstantIndexOp::create(kb, loc, threads));
  Value id = arith::AddIOp::create(kb, loc, base, launch.getThreadIds().x);
  Value inRange =
      arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, id,
                            arith::ConstantIndexOp::create(kb, loc, points));
  auto guard = scf::IfOp::create(kb, loc, inRange, /*withElse=*/false);
  kb.setInsertionPointToStart(&guard.getThenRegion().front());
  return {launch, kb, id};
}

SmallVector<Value> mlir::dist::delinearize(OpBuilder &b, Location loc,
                                           Value linear,
                                           ArrayRef<int64_t> sizes) {
  SmallVector<Value> coords(sizes.size());
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      coords[i] = linear;
      break;
    }
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[i]);
    coords[i] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return coords;
}
