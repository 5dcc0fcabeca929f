//===- DistFuseElementwise.cpp - Fuse elementwise linalg.generic chains ---===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "dist-fuse-elementwise"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTFUSEELEMENTWISE
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

constexpr size_t kMaxFusedOps = 256;

/// The most bytes of memref descriptors a fused op may take: on CUDA each
/// operand becomes a kernel parameter of (3 + 2 * rank) * 8 bytes, and a
/// kernel's parameters are at most 4352 bytes (PTX ISA before 8.1);
/// gpt2-xl's gradient norm summed 255 scalars in one fused op (6120 bytes:
/// ptxas refused it). The rest is left for the launch's other values.
constexpr int64_t kMaxOperandBytes = 4000;

int64_t descriptorBytes(Value value) {
  auto shaped = dyn_cast<ShapedType>(value.getType());
  return 8 * (3 + 2 * (shaped && shaped.hasRank() ? shaped.getRank() : 0));
}

/// The uses of `producer`'s results, transparent optimization barriers
/// (dist-remat's reads for a recomputation) not counted: the forward fuses
/// as it did without them.
int countUses(Operation *producer) {
  int uses = 0;
  for (Operation *user : producer->getUsers()) {
    auto barrier = dyn_cast<dist::OptimizationBarrierOp>(user);
    uses += !(barrier && barrier.getTransparent());
  }
  return uses;
}

/// Whether fusing the producer of `operand` into its owner stays within
/// kMaxFusedOps body ops and kMaxOperandBytes of operands. Each fusion
/// copies the producer's body into the consumer's, so an unbounded chain of
/// n ops would cost n^2 (a 1000-op backward chain took 40 s), and a loop
/// body that large gains nothing.
bool withinLimits(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  auto bodySize = [](Operation *op) {
    size_t count = 0;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        count += block.getOperations().size();
    return count;
  };
  if (bodySize(producer) + bodySize(operand->getOwner()) > kMaxFusedOps)
    return false;
  // The fused op's operands: the consumer's but the fused one, and the
  // producer's (an upper bound: repeated values are merged).
  int64_t bytes = -descriptorBytes(operand->get());
  for (Value v : operand->getOwner()->getOperands())
    bytes += descriptorBytes(v);
  for (Value v : producer->getOperands())
    bytes += descriptorBytes(v);
  return bytes <= kMaxOperandBytes;
}

/// Whether `producer` only widens its one input (a bf16 value extended to
/// float32: the logits a bf16 product wrote, read by cross-entropy's
/// reductions and its gradient). Each elementwise reader recomputes such a
/// cast for free and reads the narrow values instead of the wide ones; the
/// cast's own pass over memory goes when every reader did.
bool isWideningCast(Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  Operation &cast = body.front();
  if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp>(cast) ||
      cast.getOperand(0) != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != cast.getResult(0))
    return false;
  return generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
      .isPermutation();
}

/// The bytes of one element of type `type` (an index: 8).
int64_t elementBytes(Type type) {
  return type.isIntOrFloat() ? (type.getIntOrFloatBitWidth() + 7) / 8 : 8;
}

/// The bytes an elementwise generic reads per point of its iteration space
/// from operands it reads each point of once (a broadcast operand, a bias
/// say, is read from cache).
int64_t bytesReadPerPoint(linalg::GenericOp op) {
  int64_t bytes = 0;
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isPermutation())
      bytes += elementBytes(getElementTypeOrSelf(input->get().getType()));
  return bytes;
}

/// The linalg contraction (a product) whose result `value` is, through
/// expand_shape and collapse_shape, if any.
linalg::LinalgOp productBehind(Value value) {
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  return op && linalg::isaContractionOpInterface(op) ? op : linalg::LinalgOp();
}

/// Whether `generic` computes one result from its inputs alone, point by
/// point (no reduction loop, its result's old values not read), and reads
/// no product's result of its own type: such an op (a bias, then GELU) is
/// the product's epilogue (dist-matmul-to-runtime), written with the
/// product at no pass of its own, and is not recomputed elsewhere.
bool isRecomputable(linalg::GenericOp generic) {
  if (generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      llvm::any_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
        return generic.payloadUsesValueFromOperand(&init);
      }))
    return false;
  Type result = getElementTypeOrSelf(generic->getResult(0).getType());
  return llvm::none_of(generic.getDpsInputs(), [&](Value input) {
    return productBehind(input) &&
           getElementTypeOrSelf(input.getType()) == result;
  });
}

/// Whether `producer`, an elementwise generic read by several generics,
/// is better copied into each of them (recompute-narrow): every reader
/// reads it through one operand, each point once, within the fusion
/// limits, and the readers recomputing it read fewer bytes (R per point,
/// each) than writing it (W) and reading it back: R * n < W * (1 + n).
bool isNarrowProducer(Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic || !isRecomputable(generic))
    return false;
  int64_t n = 0;
  for (OpOperand &use : generic->getResult(0).getUses()) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    // A transparent barrier (dist-remat keeping the value for a
    // recomputation) is not counted, as countUses does not: fusion decides
    // the same with and without remat, so remat changes no bit.
    if (auto barrier = dyn_cast<dist::OptimizationBarrierOp>(use.getOwner());
        barrier && barrier.getTransparent())
      continue;
    // A reduction over rows (its last loop): dist-row-kernels makes the
    // ops over those rows one kernel that keeps the producer's values in
    // registers, and a copy would be recomputed by every member.
    if (!reader || reader.getNumLoops() != generic.getNumLoops() ||
        (reader.getNumLoops() > 0 &&
         linalg::isReductionIterator(
             reader.getIteratorTypesArray()[reader.getNumLoops() - 1])) ||
        !reader.isDpsInput(&use) ||
        !reader.getMatchingIndexingMap(&use).isPermutation() ||
        !linalg::areElementwiseOpsFusable(&use) || !withinLimits(&use) ||
        llvm::count_if(reader->getOperands(), [&](Value v) {
          return v == generic->getResult(0);
        }) != 1)
      return false;
    ++n;
  }
  Type result = getElementTypeOrSelf(generic->getResult(0).getType());
  return n > 1 &&
         bytesReadPerPoint(generic) * n < elementBytes(result) * (1 + n);
}

/// Whether fusing the producer of `operand`, a scalar, would compute a math
/// function (a power, an exponential, a cosine) or float64 arithmetic at
/// every point of a consumer with loops: AdamW's bias corrections, powers
/// of the betas by the step, would be recomputed by every element of each
/// update (on the GPU, two float64 powers per thread, where the CPU hoists
/// them out of the loop). Kept as ops of their own, the identical ones of
/// all parameters are one op after CSE, run once per step. (Not per-row
/// statistics: a layer norm's rows are one kernel with their readers,
/// dist-row-kernels.)
bool recomputesMathPerPoint(OpOperand *operand) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer || producer.getNumLoops() != 0 ||
      consumer.getNumLoops() == 0)
    return false;
  WalkResult costly = producer.getRegion().walk([](Operation *op) {
    bool expensive = isa<math::MathDialect>(op->getDialect()) ||
                     llvm::any_of(op->getResultTypes(),
                                  [](Type t) { return t.isF64(); });
    return expensive ? WalkResult::interrupt() : WalkResult::advance();
  });
  return costly.wasInterrupted();
}

/// Whether `op` only rounds a product's float32 result to bf16 (through
/// reshapes): dist-matmul-to-runtime makes the product write the bf16
/// values itself (decision 53) when that rounding is an op of its own, so
/// its readers then read 2 bytes a value instead of the product's 4.
bool isProductRounding(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  auto truncf = dyn_cast<arith::TruncFOp>(&body.front());
  if (!truncf || truncf->getNextNode() != body.getTerminator() ||
      truncf.getIn() != body.getArgument(0) || !truncf.getType().isBF16())
    return false;
  return static_cast<bool>(productBehind(generic.getDpsInputs()[0]));
}

/// Whether `producer`, an elementwise generic read only by slices of it
/// (attention's query, key and value cut from one projection), is better
/// computed slice by slice in its readers (recompute-narrow): the slices
/// read R bytes a point of its inputs instead of it writing W and the
/// slices reading W back, R * sliced < W * (points + sliced).
bool isSlicedNarrowProducer(linalg::GenericOp producer) {
  if (!isRecomputable(producer) ||
      !producer.getIndexingMapMatchingResult(producer->getResult(0))
           .isIdentity())
    return false;
  auto type = dyn_cast<RankedTensorType>(producer->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
    return false;
  int64_t sliced = 0;
  for (Operation *user : producer->getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !slice.hasUnitStride() ||
        slice.getType().getRank() != type.getRank() ||
        !slice.getType().hasStaticShape())
      return false;
    sliced += slice.getType().getNumElements();
  }
  return sliced > 0 &&
         bytesReadPerPoint(producer) * sliced <
             elementBytes(type.getElementType()) *
                 (type.getNumElements() + sliced);
}

/// A slice of a producer that isSlicedNarrowProducer takes is the producer
/// computed on that slice of its inputs (upstream's tiling of the generic);
/// once every slice is, the producer is dead.
struct SliceNarrowProducer : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<linalg::GenericOp>();
    if (!producer || !isSlicedNarrowProducer(producer))
      return failure();
    FailureOr<TilingResult> tiled = tensor::replaceExtractSliceWithTiledProducer(
        rewriter, slice, cast<OpResult>(slice.getSource()));
    if (failed(tiled) || tiled->tiledValues.size() != 1 ||
        tiled->tiledValues[0].getType() != slice.getType())
      return failure();
    rewriter.replaceOp(slice, tiled->tiledValues[0]);
    return success();
  }
};

/// Whether `op` is an elementwise generic of one input and one output
/// whose old values it does not read, both through identity maps, without
/// linalg.index: it computes the same on any reshape of its operands.
bool isReshapable(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  return !op.getRegion()
              .walk([](linalg::IndexOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

/// `op`'s computation on `input` (another shape of its input).
Value reshaped(PatternRewriter &rewriter, linalg::GenericOp op, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                       element);
  SmallVector<AffineMap> maps(
      2, rewriter.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(rewriter, op.getLoc(), init.getType(),
                                        input, init, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), copy.getRegion(),
                             copy.getRegion().begin());
  return copy.getResult(0);
}

/// `reshape` (an expand_shape or collapse_shape) applied to `source`.
Value reshapeLike(PatternRewriter &rewriter, Operation *reshape, Value source,
                  Type elementType) {
  auto type = cast<RankedTensorType>(reshape->getResult(0).getType())
                  .clone(elementType);
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape))
    return tensor::ExpandShapeOp::create(rewriter, reshape->getLoc(), type,
                                         source,
                                         expand.getReassociationIndices());
  auto collapse = cast<tensor::CollapseShapeOp>(reshape);
  return tensor::CollapseShapeOp::create(rewriter, reshape->getLoc(), type,
                                         source,
                                         collapse.getReassociationIndices());
}

/// The loop dimension an operand of `op` counts along, when the operand is
/// an integer constant holding 0, 1, ..., n-1 along one dimension (the
/// others of size 1) that the operand's indexing map reads with a loop
/// index: cross-entropy gradient's class numbers, position ids.
std::optional<unsigned> iotaLoopDim(linalg::GenericOp op, OpOperand &operand) {
  DenseIntElementsAttr values;
  if (!matchPattern(operand.get(), m_Constant(&values)) || values.isSplat())
    return std::nullopt;
  ArrayRef<int64_t> shape = values.getType().getShape();
  std::optional<unsigned> dim;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size == 1)
      continue;
    if (dim)
      return std::nullopt;
    dim = d;
  }
  if (!dim)
    return std::nullopt;
  int64_t i = 0;
  for (const APInt &v : values.getValues<APInt>())
    if (v.getSExtValue() != i++)
      return std::nullopt;
  auto loop = dyn_cast<AffineDimExpr>(
      op.getMatchingIndexingMap(&operand).getResult(*dim));
  if (!loop)
    return std::nullopt;
  return loop.getPosition();
}

/// An operand that is a constant 0..n-1 along a loop (iotaLoopDim) is that
/// loop's index instead: nothing to read (on a GPU, 8 bytes a point of a
/// 400 KB constant copied to the device each step, for the vocabulary's
/// one-hot in cross-entropy's gradient).
struct IotaOperandToIndex : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getRegion().front();
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (arg.use_empty())
        continue;
      std::optional<unsigned> loop = iotaLoopDim(op, *input);
      if (!loop)
        continue;
      rewriter.setInsertionPointToStart(&body);
      Value index = linalg::IndexOp::create(rewriter, op.getLoc(), *loop);
      if (!arg.getType().isIndex())
        index = arith::IndexCastOp::create(rewriter, op.getLoc(),
                                           arg.getType(), index);
      rewriter.replaceAllUsesWith(arg, index);
      return success();
    }
    return failure();
  }
};

/// A tensor.extract of a widening cast's result (cross-entropy reading the
/// logit at each label from the bf16 logits widened to float32) reads the
/// narrow value and widens it: the cast then has only elementwise readers,
/// which copy it, and is never written to memory.
struct ExtractBeforeWidening : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto cast = op.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!cast || !isWideningCast(cast) ||
        !cast.getMatchingIndexingMap(cast.getDpsInputOperand(0))
             .isIdentity() ||
        !cast.getIndexingMapMatchingResult(cast->getResult(0)).isIdentity())
      return failure();
    Operation &widen = cast.getRegion().front().front();
    Value narrow = tensor::ExtractOp::create(
        rewriter, op.getLoc(), cast.getDpsInputOperand(0)->get(),
        op.getIndices());
    IRMapping mapping;
    mapping.map(widen.getOperand(0), narrow);
    rewriter.replaceOp(op, rewriter.clone(widen, mapping)->getResults());
    return success();
  }
};

/// An elementwise op reading a reshape of an elementwise op's result (a
/// 2-d gradient of the logits expanded to the 3-d shape the next rounding
/// reads) computes on the producer's shape instead, and the reshape moves
/// after it: the two ops can then fuse.
struct ComputeBeforeReshape : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    // Widening casts go the other way (CastAfterReshape).
    if (!isReshapable(op) || isWideningCast(op))
      return failure();
    Operation *reshape = op.getDpsInputOperand(0)->get().getDefiningOp();
    if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
            reshape) ||
        !reshape->hasOneUse())
      return failure();
    Value source = reshape->getOperand(0);
    auto producer = source.getDefiningOp<linalg::GenericOp>();
    if (!producer || countUses(producer) != 1 ||
        !cast<RankedTensorType>(source.getType()).hasStaticShape())
      return failure();
    rewriter.setInsertionPoint(op);
    Value computed = reshaped(rewriter, op, source);
    rewriter.replaceOp(op, reshapeLike(rewriter, reshape, computed,
                                       getElementTypeOrSelf(
                                           op->getResult(0).getType())));
    return success();
  }
};

/// A widening cast whose only reader is a reshape is done after it: the
/// cast then reaches the reshape's readers, which copy it (the logits'
/// bf16 to float32, between the 3-d product and 2-d cross-entropy).
struct CastAfterReshape : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isWideningCast(op) || !isReshapable(op) || !op->hasOneUse())
      return failure();
    Operation *reshape = *op->getUsers().begin();
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(reshape) ||
        !cast<RankedTensorType>(reshape->getResult(0).getType())
             .hasStaticShape())
      return failure();
    Value input = op.getDpsInputOperand(0)->get();
    rewriter.setInsertionPoint(reshape);
    Value moved = reshapeLike(rewriter, reshape, input,
                              getElementTypeOrSelf(input.getType()));
    rewriter.replaceOp(reshape, reshaped(rewriter, op, moved));
    rewriter.eraseOp(op);
    return success();
  }
};

/// An elementwise producer that other ops read too, fused into its first
/// elementwise consumer as one op with both results (multi-output
/// fusion): its values are computed once, written for the later readers,
/// and the consumer no longer reads them back. Upstream's pattern would
/// copy the producer into the consumer and keep it for the others, doing
/// its work twice. Only when every other reader comes after the consumer
/// in its block (the fused op is where the consumer was) and the consumer
/// reads the producer through this one operand, each point once (not a
/// broadcast); a consumer with reduction loops would write the producer's
/// values from inside them, so it is left alone. The typical case: under
/// --precision=bf16, an activation that the backward pass keeps in
/// float32 and the next product reads rounded to bfloat16 is written in
/// both types by one kernel.
struct FuseSharedProducer : OpRewritePattern<linalg::GenericOp> {
  FuseSharedProducer(MLIRContext *ctx, bool recomputeNarrow)
      : OpRewritePattern(ctx), recomputeNarrow(recomputeNarrow) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (consumer.getNumParallelLoops() != consumer.getNumLoops())
      return failure();
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      // The consumer reads each of the producer's points once (a
      // permutation, not a broadcast): a broadcast producer (a scalar such
      // as the gradient norm's clip factor) would be recomputed at every
      // point of the consumer and its result written from each of them.
      if (!producer || countUses(producer) < 2 || isWideningCast(producer) ||
          (recomputeNarrow && (isNarrowProducer(producer) ||
                               isProductRounding(producer))) ||
          producer.getNumLoops() != consumer.getNumLoops() ||
          !consumer.getMatchingIndexingMap(&operand).isPermutation() ||
          !linalg::areElementwiseOpsFusable(&operand) ||
          !withinLimits(&operand))
        continue;
      bool fusable = llvm::all_of(producer->getUsers(), [&](Operation *user) {
        return user == consumer.getOperation() ||
               (user->getBlock() == consumer->getBlock() &&
                consumer->isBeforeInBlock(user));
      });
      fusable &= llvm::none_of(consumer->getOpOperands(), [&](OpOperand &o) {
        return &o != &operand && o.get().getDefiningOp() == producer;
      });
      if (!fusable)
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        return failure();
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }

private:
  bool recomputeNarrow;
};

struct DistFuseElementwisePass
    : dist::impl::DistFuseElementwiseBase<DistFuseElementwisePass> {
  using DistFuseElementwiseBase::DistFuseElementwiseBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Transposes left after dist-fold-transpose-into-matmul (head splits
    // and merges, a product's transposed result) become generics, so that
    // they fuse with the elementwise ops around them: a float32 transpose
    // between a bfloat16 product and the rounding before the next one
    // becomes one bfloat16 copy (truncf(extf(x)) folds to x).
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp t) {
      if (t.hasPureTensorSemantics())
        transposes.push_back(t);
    });
    IRRewriter rewriter(ctx);
    for (linalg::TransposeOp t : transposes) {
      rewriter.setInsertionPoint(t);
      if (failed(linalg::generalizeNamedOp(rewriter, t)))
        return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    // Upstream's pattern fuses single-use producers (with several uses it
    // would recompute the producer in each consumer); FuseSharedProducer
    // the others, keeping their results, but for widening casts, which
    // each reader recomputes.
    // A widening cast is copied into each reader that reads each of its
    // points once.
    bool narrow = recomputeNarrow;
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [narrow](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          if (!producer || !withinLimits(operand))
            return false;
          // recompute-narrow: a product's rounding stays for the product,
          // and a scalar's math is not recomputed at every point.
          if (narrow &&
              (isProductRounding(producer) || recomputesMathPerPoint(operand)))
            return false;
          auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
          // A widening cast that several ops read is copied into them and
          // reads the narrow values (a rounding before it stays one op).
          if (consumer && isWideningCast(consumer) && countUses(consumer) > 1)
            return false;
          if (countUses(producer) == 1)
            return true;
          // recompute-narrow: copied into each reader (every one qualifies).
          if (narrow && isNarrowProducer(producer))
            return true;
          return consumer && isWideningCast(producer) &&
                 consumer.getMatchingIndexingMap(operand).isPermutation();
        });
    patterns.add<ComputeBeforeReshape, CastAfterReshape, IotaOperandToIndex,
                 ExtractBeforeWidening>(ctx);
    patterns.add<FuseSharedProducer>(ctx, recomputeNarrow);
    if (recomputeNarrow) {
      patterns.add<SliceNarrowProducer>(ctx);
      // A generic whose one reader is an expand_shape computes on the
      // expanded shape (its inputs expanded), so that the elementwise op
      // reading the expanded values fuses with it: a sliced projection
      // and the head split that transposes and rounds it. Only there: a
      // reshape next to a product must stay one (the runtime's gemm).
      linalg::populateFoldReshapeOpsByExpansionPatterns(
          patterns, [](OpOperand *operand) {
            auto reshape = dyn_cast<tensor::ExpandShapeOp>(operand->getOwner());
            auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
            return reshape && producer && producer->hasOneUse() &&
                   producer.getNumParallelLoops() == producer.getNumLoops() &&
                   reshape->hasOneUse() &&
                   isa<linalg::GenericOp>(*reshape->getUsers().begin());
          });
    }
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
