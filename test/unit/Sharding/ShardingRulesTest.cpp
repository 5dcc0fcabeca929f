//===- ShardingRulesTest.cpp - The sharding rule of each op family --------===//
//
// Each op family's ShardingOpInterface model against what the op computes:
// which index ranges are independent (Parallel), summed over (Reduction),
// must stay whole (Fixed) or need collectives (Collective), and how each
// operand and result dimension is made of them.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistMesh.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/Sharding/ShardingRule.h"
#include "passes/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dist;

namespace {

using K = FactorKind;
using DimFactors = std::vector<std::vector<int64_t>>;

class ShardingRulesTest : public ::testing::Test {
protected:
  ShardingRulesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The first op of `body` (the body of a function taking `args`).
  Operation *parseOp(StringRef args, StringRef body) {
    std::string source =
        ("func.func @f(" + args + ") {\n" + body + "\n  return\n}\n").str();
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    auto fn = cast<func::FuncOp>(module->lookupSymbol("f"));
    return &fn.getBody().front().front();
  }

  std::optional<ShardingRule> ruleOf(Operation *op) {
    why.clear();
    return getShardingRule(op, why);
  }

  static DimFactors dims(const SmallVector<SmallVector<int64_t, 2>> &d) {
    DimFactors out;
    for (const auto &factors : d)
      out.emplace_back(factors.begin(), factors.end());
    return out;
  }
  static std::vector<K> kinds(const ShardingRule &rule) {
    return {rule.factorKinds.begin(), rule.factorKinds.end()};
  }
  static PartialSums partialSums(Operation *op) {
    return cast<ShardingOpInterface>(op).getPartialSums();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string why;
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, BroadcastingBinaryOpSharesFactorsRightAligned) {
  Operation *op =
      parseOp("%a: tensor<4x8xf32>, %b: tensor<8xf32>",
              "%0 = dist.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> "
              "tensor<4x8xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Parallel}));
  EXPECT_EQ(dims(rule->operands[0]), (DimFactors{{0}, {1}}));
  EXPECT_EQ(dims(rule->operands[1]), (DimFactors{{1}}));
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{0}, {1}}));
  EXPECT_EQ(partialSums(op), PartialSums::sum);
}

TEST_F(ShardingRulesTest, SizeOneBroadcastDimensionHasNoFactor) {
  Operation *op =
      parseOp("%a: tensor<4x8xf32>, %b: tensor<4x1xf32>",
              "%0 = dist.mul %a, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> "
              "tensor<4x8xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(dims(rule->operands[1]), (DimFactors{{0}, {}}));
  EXPECT_EQ(partialSums(op), PartialSums::oneFactor);
}

TEST_F(ShardingRulesTest, UnaryOpsAndTheirLinearity) {
  Operation *exp =
      parseOp("%a: tensor<2x3xf32>", "%0 = dist.exp %a : tensor<2x3xf32>");
  ASSERT_TRUE(exp);
  std::optional<ShardingRule> rule = ruleOf(exp);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Parallel}));
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{0}, {1}}));
  EXPECT_EQ(partialSums(exp), PartialSums::none);
  Operation *neg =
      parseOp("%a: tensor<2x3xf32>", "%0 = dist.neg %a : tensor<2x3xf32>");
  ASSERT_TRUE(neg);
  EXPECT_EQ(partialSums(neg), PartialSums::linear);
  Operation *div =
      parseOp("%a: tensor<3xf32>, %b: tensor<3xf32>",
              "%0 = dist.div %a, %b : (tensor<3xf32>, tensor<3xf32>) -> "
              "tensor<3xf32>");
  ASSERT_TRUE(div);
  EXPECT_EQ(partialSums(div), PartialSums::numerator);
}

TEST_F(ShardingRulesTest, DropoutSplitsEveryDimensionAndKeepsItsKeysWhole) {
  Operation *op = parseOp(
      "%a: tensor<4x6xf32>, %s: tensor<i64>",
      "%0, %1 = dist.dropout %a keys(%s : tensor<i64>) {ratio = 0.5 : f64, "
      "seed = 7 : i64} : tensor<4x6xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule) << why;
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Parallel}));
  EXPECT_EQ(dims(rule->operands[0]), (DimFactors{{0}, {1}}));
  EXPECT_TRUE(rule->operands[1].empty());
  EXPECT_EQ(dims(rule->results[1]), (DimFactors{{0}, {1}}));
  Operation *normal = parseOp(
      "", "%0 = dist.random_normal {mean = 0.0 : f64, scale = 1.0 : f64, "
          "seed = 1 : i64} : tensor<2x3xf32>");
  ASSERT_TRUE(normal);
  // No operand: nothing to split from (its users' split slices it).
  EXPECT_FALSE(ruleOf(normal));
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, ReductionsSplitTheirReducedAxisIntoPartials) {
  Operation *op =
      parseOp("%a: tensor<4x8xf32>", "%0 = dist.reduce_mean %a axes = [1] : "
                                     "(tensor<4x8xf32>) -> tensor<4xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Reduction}));
  EXPECT_EQ(rule->reduction, CollectiveKind::mean);
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{0}}));
  // A product is not a sum of per-rank products.
  Operation *prod =
      parseOp("%a: tensor<4x8xf32>", "%0 = dist.reduce_prod %a axes = [1] : "
                                     "(tensor<4x8xf32>) -> tensor<4xf32>");
  ASSERT_TRUE(prod);
  rule = ruleOf(prod);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Fixed}));
}

TEST_F(ShardingRulesTest, SoftmaxAxisNeedsCollectivesLayerNormStaysWhole) {
  Operation *softmax =
      parseOp("%a: tensor<4x8xf32>", "%0 = dist.softmax %a axis = 1 : "
                                     "tensor<4x8xf32>");
  ASSERT_TRUE(softmax);
  std::optional<ShardingRule> rule = ruleOf(softmax);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Collective}));
  Operation *norm =
      parseOp("%a: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>",
              "%0 = dist.layer_norm %a, %g, %b axis = 2 : "
              "(tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> "
              "tensor<2x4x8xf32>");
  ASSERT_TRUE(norm);
  rule = ruleOf(norm);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Parallel, K::Fixed}));
  EXPECT_EQ(dims(rule->operands[1]), (DimFactors{{2}}));
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, MatmulHasMNParallelAndKReduction) {
  Operation *op =
      parseOp("%a: tensor<4x8xf32>, %b: tensor<6x8xf32>",
              "%0 = dist.matmul %a, %b {transpose_rhs} : "
              "(tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  // M, N, then K.
  EXPECT_EQ(kinds(*rule),
            (std::vector<K>{K::Parallel, K::Parallel, K::Reduction}));
  EXPECT_EQ(rule->factorSizes, (SmallVector<int64_t>{4, 6, 8}));
  EXPECT_EQ(dims(rule->operands[0]), (DimFactors{{0}, {2}}));
  EXPECT_EQ(dims(rule->operands[1]), (DimFactors{{1}, {2}}));
  EXPECT_EQ(partialSums(op), PartialSums::oneFactor);
}

TEST_F(ShardingRulesTest, GemmBiasKeepsKWhole) {
  Operation *op =
      parseOp("%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6xf32>",
              "%0 = dist.gemm %a, %b, %c : (tensor<4x8xf32>, tensor<8x6xf32>, "
              "tensor<6xf32>) -> tensor<4x6xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Parallel, K::Fixed}));
  EXPECT_EQ(dims(rule->operands[2]), (DimFactors{{1}}));
  // Affine, not linear: partial sums are combined first.
  EXPECT_EQ(partialSums(op), PartialSums::none);
}

//===----------------------------------------------------------------------===//
// Shapes, gathers and scatters
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, ReshapeSplitsAndMergesFactors) {
  Operation *op = parseOp("%a: tensor<4x6xf32>",
                          "%0 = dist.reshape %a : (tensor<4x6xf32>) -> "
                          "tensor<2x2x6xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->factorSizes, (SmallVector<int64_t>{2, 2, 6}));
  EXPECT_EQ(dims(rule->operands[0]), (DimFactors{{0, 1}, {2}}));
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{0}, {1}, {2}}));
  EXPECT_EQ(partialSums(op), PartialSums::linear);
}

TEST_F(ShardingRulesTest, ReshapeKeepsAnInterleavedBlockWhole) {
  // 31 x 16 to 16 x 31 (neither divides the other): one Fixed factor per
  // dimension of the block; the batch before it and the 2 x 3 after it
  // still map.
  Operation *op = parseOp("%a: tensor<8x31x16x6xf32>",
                          "%0 = dist.reshape %a : (tensor<8x31x16x6xf32>) -> "
                          "tensor<8x16x31x2x3xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule) << why;
  EXPECT_EQ(rule->factorSizes, (SmallVector<int64_t>{8, 31, 16, 31, 16, 2, 3}));
  EXPECT_EQ(kinds(*rule),
            (std::vector<K>{K::Parallel, K::Fixed, K::Fixed, K::Fixed,
                            K::Fixed, K::Parallel, K::Parallel}));
  EXPECT_EQ(dims(rule->operands[0]), (DimFactors{{0}, {1}, {4}, {5, 6}}));
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{0}, {2}, {3}, {5}, {6}}));
}

TEST_F(ShardingRulesTest, ScatterIntoZerosPassesPartialUpdatesOnly) {
  // Into zeros, a scatter is linear in its updates (operand 2), never in
  // its indices; into anything else it is affine.
  Operation *zeros = parseOp(
      "%i: tensor<3xi64>, %u: tensor<3x4xf32>, %d: tensor<8x4xf32>",
      "%z = dist.constant dense<0.0> : tensor<8x4xf32>\n"
      "%0 = dist.scatter_add %z[%i] = %u axis = 0 : (tensor<8x4xf32>, "
      "tensor<3xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>\n"
      "%1 = dist.scatter_add %d[%i] = %u axis = 0 : (tensor<8x4xf32>, "
      "tensor<3xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>");
  ASSERT_TRUE(zeros);
  Operation *intoZeros = zeros->getNextNode();
  EXPECT_EQ(partialSums(intoZeros), PartialSums::scatterUpdates);
  EXPECT_EQ(partialSums(intoZeros->getNextNode()), PartialSums::none);
}

TEST_F(ShardingRulesTest, TransposePermutesFactors) {
  Operation *op = parseOp("%a: tensor<2x3x4xf32>",
                          "%0 = dist.transpose %a permutation = [2, 0, 1] : "
                          "(tensor<2x3x4xf32>) -> tensor<4x2x3xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{2}, {0}, {1}}));
}

TEST_F(ShardingRulesTest, ConcatOfEqualPiecesSplitsByBlocksOfEachPiece) {
  Operation *op =
      parseOp("%a: tensor<4x3xf32>, %b: tensor<4x3xf32>",
              "%0 = dist.concat %a, %b axis = 0 : (tensor<4x3xf32>, "
              "tensor<4x3xf32>) -> tensor<8x3xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  // The concatenated axis is [pieces, piece size]: a split of the pieces'
  // rows is a strided split of the result in 2 groups.
  SmallVector<DimSharding> rows = {DimSharding::split(0),
                                   DimSharding::replicated()};
  SmallVector<DimSharding> factors =
      mergeFactorAxes(*rule, {&rows, &rows}, {nullptr}, {2});
  EXPECT_EQ(shardingText(shardingFromFactors(*rule, rule->results[0], factors)),
            "[0/2, -]");
}

TEST_F(ShardingRulesTest, GatherTableRowsNeedCollectives) {
  Operation *op =
      parseOp("%t: tensor<10x4xf32>, %i: tensor<2x3xi64>",
              "%0 = dist.gather %t[%i] axis = 0 : (tensor<10x4xf32>, "
              "tensor<2x3xi64>) -> tensor<2x3x4xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->factorKinds[0], K::Collective);
  EXPECT_EQ(dims(rule->results[0]), (DimFactors{{2}, {3}, {1}}));
}

TEST_F(ShardingRulesTest, SliceKeepsSlicedDimensionWhole) {
  Operation *op = parseOp("%a: tensor<4x8xf32>",
                          "%0 = dist.slice %a starts = [0, 2] strides = [1, 1] "
                          ": (tensor<4x8xf32>) -> tensor<4x4xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Fixed, K::Fixed}));
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, CrossEntropyReducesPositionsAndSplitsClasses) {
  Operation *op = parseOp("%x: tensor<4x10xf32>, %l: tensor<4xi64>",
                          "%0 = dist.cross_entropy mean, %x, %l : "
                          "(tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Reduction, K::Collective}));
  EXPECT_EQ(rule->reduction, CollectiveKind::mean);
  EXPECT_EQ(dims(rule->operands[1]), (DimFactors{{0}}));
  EXPECT_TRUE(rule->results[0].empty());
}

TEST_F(ShardingRulesTest, ClassWeightsKeepClassesAndMeanPositionsWhole) {
  Operation *op = parseOp(
      "%x: tensor<4x10xf32>, %l: tensor<4xi64>, %w: tensor<10xf32>",
      "%0 = dist.nll_loss mean, %x, %l weight %w : "
      "(tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> tensor<f32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Fixed, K::Fixed}));
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, ConvolutionReducesItsInputChannels) {
  Operation *op = parseOp(
      "%x: tensor<8x3x6x6xf32>, %w: tensor<4x3x3x3xf32>",
      "%0 = dist.conv2d %x, %w : (tensor<8x3x6x6xf32>, tensor<4x3x3x3xf32>) "
      "-> tensor<8x4x4x4xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  // Batch, input channels, output channels, then the image and kernel.
  EXPECT_EQ(rule->factorKinds[0], K::Parallel);
  EXPECT_EQ(rule->factorKinds[1], K::Reduction);
  EXPECT_EQ(rule->factorKinds[2], K::Parallel);
  for (int64_t f = 3; f < rule->numFactors(); ++f)
    EXPECT_EQ(rule->factorKinds[f], K::Fixed) << "factor " << f;
  EXPECT_EQ(dims(rule->operands[0])[1], (std::vector<int64_t>{1}));
  EXPECT_EQ(dims(rule->operands[1])[0], (std::vector<int64_t>{2}));
  EXPECT_EQ(dims(rule->operands[1])[1], (std::vector<int64_t>{1}));
  EXPECT_EQ(dims(rule->results[0])[0], (std::vector<int64_t>{0}));
  EXPECT_EQ(dims(rule->results[0])[1], (std::vector<int64_t>{2}));
}

TEST_F(ShardingRulesTest, GroupedConvolutionSplitsGroupsMajor) {
  Operation *op = parseOp(
      "%x: tensor<2x6x5x5xf32>, %w: tensor<4x3x1x1xf32>",
      "%0 = dist.conv2d %x, %w {groups = 2 : i64} : (tensor<2x6x5x5xf32>, "
      "tensor<4x3x1x1xf32>) -> tensor<2x4x5x5xf32>");
  ASSERT_TRUE(op);
  std::optional<ShardingRule> rule = ruleOf(op);
  ASSERT_TRUE(rule);
  // Batch 0, groups 1, input channels per group 2, outputs per group 3.
  EXPECT_EQ(rule->factorSizes[1], 2);
  EXPECT_EQ(rule->factorKinds[2], K::Reduction);
  EXPECT_EQ(dims(rule->operands[0])[1], (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dims(rule->operands[1])[0], (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(dims(rule->results[0])[1], (std::vector<int64_t>{1, 3}));
}

TEST_F(ShardingRulesTest, TrainingBatchNormSumsItsStatisticsAcrossRanks) {
  const char *args = "%x: tensor<4x3x2x2xf32>, %c: tensor<3xf32>";
  Operation *training = parseOp(
      args, "%0 = dist.batch_norm %x, %c, %c, %c, %c {training} : "
            "(tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, "
            "tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x2x2xf32>");
  ASSERT_TRUE(training);
  std::optional<ShardingRule> rule = ruleOf(training);
  ASSERT_TRUE(rule) << why;
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Collective, K::Parallel,
                                          K::Collective, K::Collective}));
  EXPECT_EQ(dims(rule->operands[3]), (DimFactors{{1}}));
  Operation *eval = parseOp(
      args, "%0 = dist.batch_norm %x, %c, %c, %c, %c : "
            "(tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, "
            "tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x2x2xf32>");
  ASSERT_TRUE(eval);
  rule = ruleOf(eval);
  ASSERT_TRUE(rule) << why;
  EXPECT_EQ(kinds(*rule), (std::vector<K>{K::Parallel, K::Parallel,
                                          K::Parallel, K::Parallel}));
}

//===----------------------------------------------------------------------===//
// Coverage
//===----------------------------------------------------------------------===//

TEST_F(ShardingRulesTest, EveryComputeOpHasAShardingModel) {
  // Collectives are what partitioning inserts (sends and receives, what
  // pipeline scheduling inserts); constants, parameters and the mesh have
  // no operands to split.
  llvm::StringSet<> exempt = {
      "dist.all_reduce",  "dist.all_gather",       "dist.reduce_scatter",
      "dist.shard_slice", "dist.all_reduce_start", "dist.wait",
      "dist.constant",    "dist.parameter",        "dist.mesh",
      "dist.send",        "dist.recv"};
  int models = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "dist" ||
        exempt.contains(name.getStringRef()))
      continue;
    EXPECT_TRUE(name.hasInterface<ShardingOpInterface>())
        << name.getStringRef().str() << " has no ShardingOpInterface model";
    ++models;
  }
  EXPECT_GT(models, 60);
}

} // namespace
