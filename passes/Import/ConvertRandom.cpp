//===- ConvertRandom.cpp - ONNX random sampling to dist -------------------===//
//
// RandomUniform(Like), RandomNormal(Like) and Bernoulli: PyTorch's
// torch.rand/randn(_like) and the stochastic depth (drop path) built on them
// in Hugging Face models (`floor(keep + rand(batch, 1, ...))`). Each draws
// fresh values at every training step, keyed by the run's seed and the step
// like dropout's masks (dist.random_uniform / dist.random_normal).
//
//===----------------------------------------------------------------------===//

#include "passes/Import/Decompose.h"

#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

/// The op's identity: a hash of its output's name (unique in the graph)
/// mixed with the node's `seed` attribute, as dropout's.
static uint64_t identityOf(NodeImporter &n) {
  float seed = n.floatAttr("seed", 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &seed, sizeof bits);
  return llvm::xxh3_64bits(n.node.output(0)) ^ bits;
}

/// The sampled tensor's type: `shape` of the node's `dtype` (or `fallback`'s
/// element type when the node has none); null after an error.
static RankedTensorType sampleType(NodeImporter &n, ArrayRef<int64_t> shape,
                                   Type fallback) {
  Type elementType = fallback;
  if (n.attribute("dtype")) {
    int64_t dtype = n.intAttr("dtype", 1);
    elementType = convertElementType(n.getContext(), dtype);
    if (!elementType) {
      (void)n.unsupported("dtype " + std::to_string(dtype) +
                          " is not an element type dist has");
      return {};
    }
  }
  if (!elementType)
    elementType = Float32Type::get(n.getContext());
  if (!isa<FloatType>(elementType)) {
    (void)n.unsupported("only floating-point samples are supported");
    return {};
  }
  return RankedTensorType::get(shape, elementType);
}

/// The shape of a RandomX node (its `shape` attribute) or of a RandomXLike
/// node (its input's), and the input's element type for the latter.
static FailureOr<std::pair<SmallVector<int64_t>, Type>>
shapeOf(NodeImporter &n, bool like) {
  if (like) {
    RankedTensorType input = n.inputType(0);
    return std::pair{llvm::to_vector(input.getShape()),
                     input.getElementType()};
  }
  std::optional<SmallVector<int64_t>> shape = n.intsAttr("shape");
  if (!shape)
    return n.emitError() << "the 'shape' attribute is required", failure();
  if (failed(n.checkShape(*shape, "the 'shape' attribute")))
    return failure();
  return std::pair{*shape, Type()};
}

/// RandomUniform(Like) (`OpTy` RandomUniformOp; attributes low, high) and
/// RandomNormal(Like) (RandomNormalOp; mean, scale).
template <typename OpTy, bool Like>
static LogicalResult convertRandom(NodeImporter &n) {
  auto shape = shapeOf(n, Like);
  if (failed(shape))
    return failure();
  RankedTensorType type = sampleType(n, shape->first, shape->second);
  if (!type)
    return failure();
  constexpr bool uniform = std::is_same_v<OpTy, RandomUniformOp>;
  double a = n.floatAttr(uniform ? "low" : "mean", 0.0f);
  double b = n.floatAttr(uniform ? "high" : "scale", 1.0f);
  bool finite = std::isfinite(a) && std::isfinite(b);
  if (uniform && !(finite && a <= b))
    return n.emitError() << "needs finite low <= high, got [" << a << ", "
                         << b << ")",
           failure();
  if (!uniform && !(finite && b >= 0.0))
    return n.emitError() << "needs a finite mean and a finite scale >= 0, got "
                         << a << " and " << b,
           failure();
  n.setOutput(0, n.create<OpTy>(type, ValueRange(), APFloat(a), APFloat(b),
                                identityOf(n)));
  return success();
}

/// Bernoulli(p): 1 where a uniform sample in [0, 1) is below p, in the
/// node's dtype (the input's by default).
static LogicalResult convertBernoulli(NodeImporter &n) {
  Value p = n.input(0);
  if (!p)
    return failure();
  auto type = cast<RankedTensorType>(p.getType());
  if (!isa<FloatType>(type.getElementType()))
    return n.unsupported("the probabilities must be floating point");
  Type resultElement = type.getElementType();
  if (n.attribute("dtype")) {
    int64_t dtype = n.intAttr("dtype", 1);
    resultElement = convertElementType(n.getContext(), dtype);
    if (!resultElement)
      return n.unsupported("dtype " + std::to_string(dtype) +
                           " is not an element type dist has");
  }
  // The sample in f32 (24 bits), compared with p widened to f32 (f64 stays
  // f64): a sample rounded to f16 or bf16 would be biased.
  Type compare = type.getElementType().isF64()
                     ? Type(type.getElementType())
                     : Type(Float32Type::get(n.getContext()));
  Value u = n.create<RandomUniformOp>(type.clone(compare), ValueRange(),
                                      APFloat(0.0), APFloat(1.0),
                                      identityOf(n));
  Value wide = compare == type.getElementType()
                   ? p
                   : n.create<CastOp>(type.clone(compare), p).getResult();
  Decomposer d(n, p);
  Value drawn = d.cmp(ComparePredicate::lt, u, wide);
  if (!drawn)
    return failure();
  n.setOutput(0, n.create<CastOp>(type.clone(resultElement), drawn));
  return success();
}

void mlir::dist::onnx_import::addRandomConverters(ConverterTable &table) {
  table["RandomUniform"] = convertRandom<RandomUniformOp, false>;
  table["RandomUniformLike"] = convertRandom<RandomUniformOp, true>;
  table["RandomNormal"] = convertRandom<RandomNormalOp, false>;
  table["RandomNormalLike"] = convertRandom<RandomNormalOp, true>;
  table["Bernoulli"] = convertBernoulli;
}
