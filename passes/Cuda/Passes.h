//===- Passes.h - Lowering of bufferized steps to CUDA ----------*- C++ -*-===//

#ifndef PASSES_CUDA_PASSES_H
#define PASSES_CUDA_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dist {

#define GEN_PASS_DECL
#include "passes/Cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Cuda/Passes.h.inc"

} // namespace mlir::dist

#endif // PASSES_CUDA_PASSES_H
