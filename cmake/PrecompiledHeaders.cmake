# One precompiled header of the MLIR and LLVM headers most of the compiler's
# sources include, built once and reused by every compiler library and tool.
# A heavy pass source spends two thirds of its compile time parsing these
# (DistFuseElementwise.cpp: 27 s, 8 s with the header precompiled).
#
# Reuse needs the same compile flags in every target, which add_mlir_library
# and add_llvm_executable give; a target whose flags differ would only lose
# the speed-up (-Winvalid-pch says so), never correctness, since the header
# then is parsed as text.
option(DIST_PRECOMPILED_HEADERS "Precompile the common MLIR headers" ON)

function(dist_precompile_headers)
  if(NOT DIST_PRECOMPILED_HEADERS)
    return()
  endif()
  add_library(DistPrecompiledHeaders OBJECT
              ${PROJECT_SOURCE_DIR}/cmake/PrecompiledHeaders.cpp)
  set_target_properties(DistPrecompiledHeaders PROPERTIES
                        POSITION_INDEPENDENT_CODE ON)
  # The per-target flags add_mlir_library gives (-fno-exceptions ...).
  llvm_update_compile_flags(DistPrecompiledHeaders)
  target_precompile_headers(DistPrecompiledHeaders PRIVATE
    <mlir/Dialect/Arith/IR/Arith.h>
    <mlir/Dialect/Bufferization/IR/Bufferization.h>
    <mlir/Dialect/ControlFlow/IR/ControlFlowOps.h>
    <mlir/Dialect/Func/IR/FuncOps.h>
    <mlir/Dialect/LLVMIR/LLVMDialect.h>
    <mlir/Dialect/Linalg/IR/Linalg.h>
    <mlir/Dialect/Math/IR/Math.h>
    <mlir/Dialect/MemRef/IR/MemRef.h>
    <mlir/Dialect/SCF/IR/SCF.h>
    <mlir/Dialect/Tensor/IR/Tensor.h>
    <mlir/IR/BuiltinOps.h>
    <mlir/IR/IRMapping.h>
    <mlir/IR/Matchers.h>
    <mlir/IR/PatternMatch.h>
    <mlir/Pass/Pass.h>
    <mlir/Transforms/DialectConversion.h>
    <mlir/Transforms/GreedyPatternRewriteDriver.h>
    <llvm/ADT/TypeSwitch.h>
    <llvm/Support/FormatVariadic.h>)
  foreach(target ${ARGN})
    target_precompile_headers(${target} REUSE_FROM DistPrecompiledHeaders)
  endforeach()
endfunction()
