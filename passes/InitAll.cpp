//===- InitAll.cpp - The one registration point of dist-opt ---------------===//

#include "passes/InitAll.h"

#include "dialects/Dist/IR/DistDialect.h"
#include "passes/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"

void mlir::dist::registerAllDialects(DialectRegistry &registry) {
  registry.insert<dist::DistDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, tensor::TensorDialect,
                  linalg::LinalgDialect, scf::SCFDialect, memref::MemRefDialect,
                  bufferization::BufferizationDialect, shard::ShardDialect,
                  mpi::MPIDialect, gpu::GPUDialect, NVVM::NVVMDialect,
                  LLVM::LLVMDialect>();
}

void mlir::dist::registerAllPasses() {
  // Upstream passes, then the project's own, area by area.
  mlir::registerAllPasses();
  registerDistTransformsPasses();
}
