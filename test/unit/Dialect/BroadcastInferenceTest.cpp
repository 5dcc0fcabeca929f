//===- BroadcastInferenceTest.cpp - Result types built through the C++ API ===//
//
// Shapes are checked against values published independently of this code:
// the numpy broadcasting documentation's examples, and the output sizes of
// well-known layers (the ResNet-50 stem, PyTorch's ceil-mode pooling).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/IR/DistTypeInference.h"
#include "passes/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dist;

namespace {

class DistBuilderTest : public ::testing::Test {
protected:
  DistBuilderTest() : builder(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<DistDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A placeholder value of the given shape (a constant of zeros).
  Value tensor(ArrayRef<int64_t> shape, Type elementType = {}) {
    auto type = RankedTensorType::get(
        shape, elementType ? elementType : builder.getF32Type());
    Attribute zero =
        isa<FloatType>(type.getElementType())
            ? Attribute(builder.getFloatAttr(type.getElementType(), 0))
            : Attribute(builder.getIntegerAttr(type.getElementType(), 0));
    return ConstantOp::create(builder, loc(),
                              DenseElementsAttr::get(type, zero));
  }

  Location loc() { return builder.getUnknownLoc(); }

  /// The result shape of `lhs + rhs`, or nullopt when they do not broadcast.
  std::optional<SmallVector<int64_t>> addShape(ArrayRef<int64_t> lhs,
                                               ArrayRef<int64_t> rhs) {
    SmallVector<Type> types;
    Value a = tensor(lhs), b = tensor(rhs);
    if (failed(AddOp::inferReturnTypes(
            &context, std::nullopt, AddOp::Adaptor(ValueRange{a, b}), types)))
      return std::nullopt;
    return SmallVector<int64_t>(cast<RankedTensorType>(types[0]).getShape());
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

using Shape = SmallVector<int64_t>;

TEST_F(DistBuilderTest, BroadcastingFollowsNumpyDocumentation) {
  // https://numpy.org/doc/stable/user/basics.broadcasting.html
  EXPECT_EQ(addShape({256, 256, 3}, {3}), Shape({256, 256, 3}));
  EXPECT_EQ(addShape({8, 1, 6, 1}, {7, 1, 5}), Shape({8, 7, 6, 5}));
  EXPECT_EQ(addShape({5, 4}, {1}), Shape({5, 4}));
  EXPECT_EQ(addShape({5, 4}, {4}), Shape({5, 4}));
  EXPECT_EQ(addShape({15, 3, 5}, {15, 1, 5}), Shape({15, 3, 5}));
  EXPECT_EQ(addShape({15, 3, 5}, {3, 5}), Shape({15, 3, 5}));
  EXPECT_EQ(addShape({15, 3, 5}, {3, 1}), Shape({15, 3, 5}));
  EXPECT_EQ(addShape({}, {2, 3}), Shape({2, 3}));
  // The documentation's incompatible pairs.
  EXPECT_EQ(addShape({3}, {4}), std::nullopt);
  EXPECT_EQ(addShape({2, 1}, {8, 4, 3}), std::nullopt);
}

TEST_F(DistBuilderTest, BuildersInferResultTypes) {
  // An attention score: batched, transposed rhs, broadcast batch dims.
  auto scores = MatmulOp::create(
      builder, loc(), tensor({2, 4, 64, 32}), tensor({1, 4, 64, 32}),
      /*transpose_lhs=*/false, /*transpose_rhs=*/true);
  EXPECT_EQ(scores.getType().getShape(), ArrayRef<int64_t>({2, 4, 64, 64}));

  auto mask = CompareOp::create(builder, loc(), ComparePredicate::lt,
                                tensor({64, 1}), tensor({64}));
  EXPECT_EQ(mask.getType(),
            RankedTensorType::get({64, 64}, builder.getI1Type()));

  auto dropped = DropoutOp::create(builder, loc(), tensor({4, 8}), ValueRange(),
                                   ValueRange(), builder.getF64FloatAttr(0.1),
                                   builder.getI64IntegerAttr(7),
                                   DenseI64ArrayAttr());
  EXPECT_EQ(dropped.getMask().getType().getElementType(), builder.getI1Type());

  auto embedded =
      GatherOp::create(builder, loc(), tensor({512, 128}),
                       tensor({2, 64}, builder.getI64Type()), /*axis=*/0);
  EXPECT_EQ(embedded.getType().getShape(), ArrayRef<int64_t>({2, 64, 128}));

  auto loss = CrossEntropyOp::create(builder, loc(), LossReduction::mean,
                                     tensor({8, 512}),
                                     tensor({8}, builder.getI64Type()),
                                     /*weight=*/Value(),
                                     /*ignore_index=*/nullptr);
  EXPECT_EQ(loss.getType().getRank(), 0);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(DistBuilderTest, WindowSizesMatchKnownLayers) {
  // ResNet-50 stem: 7x7 conv, stride 2, pad 3 on 224x224 gives 112x112 ...
  auto stem = Conv2DOp::create(
      builder, loc(), tensor({1, 3, 224, 224}), tensor({64, 3, 7, 7}),
      /*bias=*/Value(), builder.getDenseI64ArrayAttr({2, 2}),
      builder.getDenseI64ArrayAttr({3, 3, 3, 3}),
      builder.getDenseI64ArrayAttr({1, 1}), builder.getI64IntegerAttr(1));
  EXPECT_EQ(stem.getType().getShape(), ArrayRef<int64_t>({1, 64, 112, 112}));
  // ... and its 3x3 max pool, stride 2, pad 1 gives 56x56.
  auto pool = MaxPool2DOp::create(builder, loc(), stem,
                                  builder.getDenseI64ArrayAttr({3, 3}),
                                  builder.getDenseI64ArrayAttr({2, 2}),
                                  builder.getDenseI64ArrayAttr({1, 1, 1, 1}),
                                  /*ceil_mode=*/false);
  EXPECT_EQ(pool.getType().getShape(), ArrayRef<int64_t>({1, 64, 56, 56}));
  // torch.nn.MaxPool2d(2, 2, ceil_mode=True) on 5x5 gives 3x3 (2x2 without).
  for (bool ceil : {false, true}) {
    auto p =
        MaxPool2DOp::create(builder, loc(), tensor({1, 1, 5, 5}),
                            builder.getDenseI64ArrayAttr({2, 2}),
                            builder.getDenseI64ArrayAttr({2, 2}),
                            builder.getDenseI64ArrayAttr({0, 0, 0, 0}), ceil);
    int64_t expected = ceil ? 3 : 2;
    EXPECT_EQ(p.getType().getShape(),
              ArrayRef<int64_t>({1, 1, expected, expected}));
  }
  EXPECT_TRUE(succeeded(verify(*module)));
}

// Builders from C++ (the importer) can hand inference any type; inference
// must fail with a message, never crash.
TEST_F(DistBuilderTest, InferenceRejectsNonTensors) {
  context.loadDialect<arith::ArithDialect>();
  Value scalar =
      arith::ConstantOp::create(builder, loc(), builder.getI32IntegerAttr(1));
  Value t = tensor({4, 8});
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages += diag.str() + "\n";
    return success();
  });
  std::optional<Location> at = loc();
  SmallVector<Type> types;
  auto fails = [&](LogicalResult result) {
    bool failedAsExpected = failed(result);
    types.clear();
    return failedAsExpected;
  };
  EXPECT_TRUE(fails(AddOp::inferReturnTypes(
      &context, at, AddOp::Adaptor(ValueRange{t, scalar}), types)));
  EXPECT_TRUE(fails(MatmulOp::inferReturnTypes(
      &context, at, MatmulOp::Adaptor(ValueRange{scalar, t}), types)));
  EXPECT_TRUE(fails(GemmOp::inferReturnTypes(
      &context, at, GemmOp::Adaptor(ValueRange{t, scalar}), types)));
  EXPECT_TRUE(fails(GatherOp::inferReturnTypes(
      &context, at, GatherOp::Adaptor(ValueRange{scalar, scalar}), types)));
  EXPECT_TRUE(fails(ConcatOp::inferReturnTypes(
      &context, at, ConcatOp::Adaptor(ValueRange{scalar}), types)));
  EXPECT_TRUE(fails(TransposeOp::inferReturnTypes(
      &context, at, TransposeOp::Adaptor(ValueRange{scalar}), types)));
  DropoutOp::Properties dropout;
  dropout.operandSegmentSizes = {1, 0, 0};
  EXPECT_TRUE(fails(DropoutOp::inferReturnTypes(
      &context, at, DropoutOp::Adaptor(ValueRange{scalar}, {}, dropout),
      types)));
  EXPECT_TRUE(fails(GlobalAvgPoolOp::inferReturnTypes(
      &context, at, GlobalAvgPoolOp::Adaptor(ValueRange{scalar}), types)));
  EXPECT_TRUE(fails(inferReductionResultType(
      at, "dist.reduce_sum", scalar.getType(), {0}, false, types)));
  EXPECT_TRUE(fails(inferLossResultType(at, "dist.cross_entropy",
                                        scalar.getType(), t.getType(), Type(),
                                        LossReduction::mean, types)));
  EXPECT_TRUE(fails(inferArgReductionResultType(
      at, "dist.argmax", scalar.getType(), 0, false, types)));
  EXPECT_TRUE(
      fails(inferPool2DResultType(at, "dist.max_pool2d", scalar.getType(),
                                  {2, 2}, {1, 1}, {0, 0, 0, 0}, false, types)));
  EXPECT_NE(messages.find("'dist.matmul' op operands must be ranked tensors"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find(
                "'dist.add' op operand #1 must be a ranked tensor, got 'i32'"),
            std::string::npos)
      << messages;
}

} // namespace
