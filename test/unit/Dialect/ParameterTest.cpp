//===- ParameterTest.cpp - Finding a function's parameters ----------------===//

#include "dialects/Dist/IR/DistParameters.h"
#include "passes/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dist;

namespace {

constexpr const char *kModel = R"mlir(
  dist.parameter @"fc.weight" : tensor<4x8xf32>
  dist.parameter frozen @"bn.running_mean" : tensor<4xf32>
  dist.parameter @"fc.bias" : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  func.func @forward(%x: tensor<2x8xf32>,
                     %w: tensor<4x8xf32> {dist.parameter = @"fc.weight"},
                     %m: tensor<4xf32> {dist.parameter = @"bn.running_mean"},
                     %b: tensor<4xf32> {dist.parameter = @"fc.bias"})
      -> tensor<2x4xf32> {
    %y = dist.gemm %x, %w, %b {transpose_b}
        : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
)mlir";

class ParameterTest : public ::testing::Test {
protected:
  ParameterTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
  SymbolTableCollection symbols;
};

TEST_F(ParameterTest, FindsParameterArgumentsInOrder) {
  OwningOpRef<ModuleOp> module = parse(kModel);
  ASSERT_TRUE(module);
  auto fn = cast<FunctionOpInterface>(module->lookupSymbol("forward"));

  EXPECT_FALSE(getParameterRef(fn, 0));
  SmallVector<ParameterArgument> all = getParameterArguments(fn, symbols);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].argIndex, 1u);
  EXPECT_EQ(all[0].parameter.getSymName(), "fc.weight");
  EXPECT_EQ(all[1].parameter.getSymName(), "bn.running_mean");
  EXPECT_EQ(all[2].argIndex, 3u);
  EXPECT_TRUE(all[2].parameter.getInitialValue().has_value());

  SmallVector<ParameterArgument> trainable =
      getParameterArguments(fn, symbols, /*trainableOnly=*/true);
  ASSERT_EQ(trainable.size(), 2u);
  EXPECT_EQ(trainable[0].parameter.getSymName(), "fc.weight");
  EXPECT_EQ(trainable[1].parameter.getSymName(), "fc.bias");
}

TEST_F(ParameterTest, BindingAnArgumentIsVerified) {
  OwningOpRef<ModuleOp> module = parse(kModel);
  ASSERT_TRUE(module);
  auto fn = cast<FunctionOpInterface>(module->lookupSymbol("forward"));
  auto bias = module->lookupSymbol<ParameterOp>("fc.bias");
  auto weight = module->lookupSymbol<ParameterOp>("fc.weight");

  // Rebinding %m to fc.bias (same type) is valid ...
  bindParameter(fn, 2, bias);
  EXPECT_EQ(lookupParameter(fn, 2, symbols), bias);
  EXPECT_TRUE(succeeded(verify(*module)));

  // ... binding it to fc.weight (another type) is rejected by the verifier.
  bindParameter(fn, 2, weight);
  std::string message;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    EXPECT_TRUE(failed(verify(*module)));
  }
  EXPECT_NE(message.find("argument #2 has type"), std::string::npos) << message;
}

} // namespace
