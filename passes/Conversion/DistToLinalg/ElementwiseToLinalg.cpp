//===- ElementwiseToLinalg.cpp - Elementwise dist ops to linalg.generic ---===//
//
// Every unary, binary, compare, select, cast, GELU and dropout op becomes one
// parallel linalg.generic whose inputs broadcast through their indexing maps
// (no broadcast is materialized). Chains of them fuse later into one loop
// nest. f16 and bf16 transcendental math is computed in f32.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/DistToLinalg/DistToLinalg.h"
#include "passes/Conversion/DistToLinalg/LinalgBuilders.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// What a scalar body needs to know about the dist op's element type.
struct Element {
  Type type; // signless element type of the operands
  bool isFloat;
  bool isUnsigned; // unsigned integers and i1
};

static Element elementOf(Value distValue) {
  Type t = cast<RankedTensorType>(distValue.getType()).getElementType();
  return {toSignless(t), isa<FloatType>(t), isUnsignedElement(t)};
}

/// Applies a math op, in f32 for f16 and bf16.
template <typename MathOp>
static Value math1(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  if (!computesInF32(type))
    return MathOp::create(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  Value r = MathOp::create(b, loc, wide);
  return arith::TruncFOp::create(b, loc, type, r);
}

static Value fconst(OpBuilder &b, Location loc, Value like, double v) {
  return scalarConstant(b, loc, like.getType(), v);
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

using UnaryFn = Value (*)(OpBuilder &, Location, Value, const Element &);

template <typename OpTy> struct UnaryPattern : OpConversionPattern<OpTy> {
  UnaryPattern(const TypeConverter &tc, MLIRContext *ctx, UnaryFn fn)
      : OpConversionPattern<OpTy>(tc, ctx), fn(fn) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Element e = elementOf(op.getInput());
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value r =
        buildElementwise(rewriter, op.getLoc(), type, adaptor.getInput(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return fn(b, loc, args[0], e);
                         });
    rewriter.replaceOp(op, r);
    return success();
  }
  UnaryFn fn;
};

static Value negFn(OpBuilder &b, Location loc, Value x, const Element &e) {
  if (e.isFloat)
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, fconst(b, loc, x, 0), x);
}
static Value absFn(OpBuilder &b, Location loc, Value x, const Element &e) {
  if (e.isFloat)
    return math::AbsFOp::create(b, loc, x);
  if (e.isUnsigned)
    return x;
  return math::AbsIOp::create(b, loc, x);
}
static Value rsqrtFn(OpBuilder &b, Location loc, Value x, const Element &) {
  return math1<math::RsqrtOp>(b, loc, x);
}
static Value reciprocalFn(OpBuilder &b, Location loc, Value x,
                          const Element &) {
  return arith::DivFOp::create(b, loc, fconst(b, loc, x, 1.0), x);
}
static Value sigmoidFn(OpBuilder &b, Location loc, Value x, const Element &) {
  Value negX = arith::NegFOp::create(b, loc, x);
  Value ex = math1<math::ExpOp>(b, loc, negX);
  Value one = fconst(b, loc, x, 1.0);
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, ex));
}
static Value reluFn(OpBuilder &b, Location loc, Value x, const Element &) {
  return arith::MaximumFOp::create(b, loc, x, fconst(b, loc, x, 0.0));
}
static Value notFn(OpBuilder &b, Location loc, Value x, const Element &) {
  return arith::XOrIOp::create(b, loc, x, fconst(b, loc, x, 1));
}
template <typename MathOp>
static Value mathFn(OpBuilder &b, Location loc, Value x, const Element &) {
  return math1<MathOp>(b, loc, x);
}

/// GELU, exact or with the tanh approximation; computed in f32 for halves.
struct GeluPattern : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool approx = op.getApproximateTanh();
    auto type = cast<RankedTensorType>(op.getType());
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0];
          Type orig = x.getType();
          if (computesInF32(orig))
            x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
          Value half = fconst(b, loc, x, 0.5), one = fconst(b, loc, x, 1.0);
          Value inner;
          if (approx) {
            Value x3 = arith::MulFOp::create(
                b, loc, x, arith::MulFOp::create(b, loc, x, x));
            Value t = arith::AddFOp::create(
                b, loc, x,
                arith::MulFOp::create(b, loc, fconst(b, loc, x, 0.044715), x3));
            t = arith::MulFOp::create(
                b, loc, fconst(b, loc, x, std::sqrt(2.0 / M_PI)), t);
            inner = math::TanhOp::create(b, loc, t);
          } else {
            Value t = arith::MulFOp::create(
                b, loc, x, fconst(b, loc, x, 1.0 / std::sqrt(2.0)));
            inner = math::ErfOp::create(b, loc, t);
          }
          Value r = arith::MulFOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, half),
              arith::AddFOp::create(b, loc, one, inner));
          if (computesInF32(orig))
            r = arith::TruncFOp::create(b, loc, orig, r);
          return r;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct CastPattern : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Element src = elementOf(op.getInput());
    Element dst = elementOf(op.getResult());
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value r =
        buildElementwise(rewriter, op.getLoc(), type, adaptor.getInput(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return convertScalar(b, loc, args[0], dst.type,
                                                src.isUnsigned, dst.isUnsigned);
                         });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

using BinaryFn = Value (*)(OpBuilder &, Location, Value, Value,
                           const Element &);

template <typename OpTy> struct BinaryPattern : OpConversionPattern<OpTy> {
  BinaryPattern(const TypeConverter &tc, MLIRContext *ctx, BinaryFn fn)
      : OpConversionPattern<OpTy>(tc, ctx), fn(fn) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Element e = elementOf(op.getLhs());
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value r =
        buildElementwise(rewriter, op.getLoc(), type,
                         ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return fn(b, loc, args[0], args[1], e);
                         });
    rewriter.replaceOp(op, r);
    return success();
  }
  BinaryFn fn;
};

/// An integer divisor that cannot trap: 1 where `y` is 0. Integer division by
/// zero is undefined in ONNX; the compiled program must not die of SIGFPE.
static Value safeDivisor(OpBuilder &b, Location loc, Value y) {
  Value zero = fconst(b, loc, y, 0), one = fconst(b, loc, y, 1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  return arith::SelectOp::create(b, loc, isZero, one, y);
}

static Value addFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat)
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}
static Value subFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat)
    return arith::SubFOp::create(b, loc, x, y);
  return arith::SubIOp::create(b, loc, x, y);
}
static Value mulFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat)
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}
static Value divFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat)
    return arith::DivFOp::create(b, loc, x, y);
  y = safeDivisor(b, loc, y);
  if (e.isUnsigned)
    return arith::DivUIOp::create(b, loc, x, y);
  return arith::DivSIOp::create(b, loc, x, y);
}
static Value remFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat) {
    if (!computesInF32(x.getType()))
      return arith::RemFOp::create(b, loc, x, y);
    Type f32 = b.getF32Type();
    Value r =
        arith::RemFOp::create(b, loc, arith::ExtFOp::create(b, loc, f32, x),
                              arith::ExtFOp::create(b, loc, f32, y));
    return arith::TruncFOp::create(b, loc, x.getType(), r);
  }
  y = safeDivisor(b, loc, y);
  if (e.isUnsigned)
    return arith::RemUIOp::create(b, loc, x, y);
  return arith::RemSIOp::create(b, loc, x, y);
}
static Value powFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &) {
  Type type = x.getType();
  if (!computesInF32(type))
    return math::PowFOp::create(b, loc, x, y);
  Type f32 = b.getF32Type();
  Value r = math::PowFOp::create(b, loc, arith::ExtFOp::create(b, loc, f32, x),
                                 arith::ExtFOp::create(b, loc, f32, y));
  return arith::TruncFOp::create(b, loc, type, r);
}
static Value maxFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat)
    return arith::MaximumFOp::create(b, loc, x, y);
  if (e.isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}
static Value minFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &e) {
  if (e.isFloat)
    return arith::MinimumFOp::create(b, loc, x, y);
  if (e.isUnsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}
static Value andFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &) {
  return arith::AndIOp::create(b, loc, x, y);
}
static Value orFn(OpBuilder &b, Location loc, Value x, Value y,
                  const Element &) {
  return arith::OrIOp::create(b, loc, x, y);
}
static Value xorFn(OpBuilder &b, Location loc, Value x, Value y,
                   const Element &) {
  return arith::XOrIOp::create(b, loc, x, y);
}

struct ComparePattern : OpConversionPattern<CompareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Element e = elementOf(op.getLhs());
    ComparePredicate p = op.getPredicate();
    auto type = cast<RankedTensorType>(op.getType());
    Value r = buildElementwise(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (e.isFloat) {
            // Ordered comparisons (false with a NaN) except `ne`, as in C.
            arith::CmpFPredicate fp = arith::CmpFPredicate::OEQ;
            switch (p) {
            case ComparePredicate::eq:
              fp = arith::CmpFPredicate::OEQ;
              break;
            case ComparePredicate::ne:
              fp = arith::CmpFPredicate::UNE;
              break;
            case ComparePredicate::lt:
              fp = arith::CmpFPredicate::OLT;
              break;
            case ComparePredicate::le:
              fp = arith::CmpFPredicate::OLE;
              break;
            case ComparePredicate::gt:
              fp = arith::CmpFPredicate::OGT;
              break;
            case ComparePredicate::ge:
              fp = arith::CmpFPredicate::OGE;
              break;
            }
            return arith::CmpFOp::create(b, loc, fp, args[0], args[1]);
          }
          bool u = e.isUnsigned;
          arith::CmpIPredicate ip = arith::CmpIPredicate::eq;
          switch (p) {
          case ComparePredicate::eq:
            ip = arith::CmpIPredicate::eq;
            break;
          case ComparePredicate::ne:
            ip = arith::CmpIPredicate::ne;
            break;
          case ComparePredicate::lt:
            ip = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
            break;
          case ComparePredicate::le:
            ip = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
            break;
          case ComparePredicate::gt:
            ip = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
            break;
          case ComparePredicate::ge:
            ip = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
            break;
          }
          return arith::CmpIOp::create(b, loc, ip, args[0], args[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SelectPattern : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = toSignless(cast<RankedTensorType>(op.getType()));
    Value r = buildElementwise(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getCondition(), adaptor.getTrueValue(),
                   adaptor.getFalseValue()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// splitmix64's output for the state `z`: advance by the golden gamma, then
/// the finalizer.
static Value splitmix64(OpBuilder &b, Location l, Value z) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(
        b, l, b.getIntegerAttr(i64, static_cast<int64_t>(v)));
  };
  z = arith::AddIOp::create(b, l, z, c(0x9E3779B97F4A7C15ULL));
  auto mix = [&](Value v, unsigned shift, uint64_t mul) {
    Value s = arith::ShRUIOp::create(b, l, v, c(shift));
    Value x = arith::XOrIOp::create(b, l, v, s);
    return mul ? Value(arith::MulIOp::create(b, l, x, c(mul))) : x;
  };
  z = mix(z, 30, 0xBF58476D1CE4E5B9ULL);
  z = mix(z, 27, 0x94D049BB133111EBULL);
  return mix(z, 31, 0);
}

/// The stream key of a seeded op (dropout, the random ops): splitmix64 of
/// the seed, then of it xor each run-time key. Built inside the op's
/// linalg.generic from the keys' scalars (its 0-d inputs), so that a GPU
/// kernel reads them from device memory itself; on the CPU, LLVM hoists the
/// loop-invariant chain out of the loops.
static Value streamKey(OpBuilder &b, Location l, int64_t seed,
                       ValueRange keys) {
  Value key = splitmix64(
      b, l, arith::ConstantOp::create(b, l, b.getIntegerAttr(b.getI64Type(), seed)));
  for (Value k : keys)
    key = splitmix64(b, l, arith::XOrIOp::create(b, l, key, k));
  return key;
}

/// Inside a linalg.generic: splitmix64(key + i * gamma) of the element's
/// row-major index i in the drawn tensor of shape `whole`: its position plus
/// `offsets` (the block's start in it, one scalar per dimension; none for an
/// op that draws the whole tensor).
static Value elementHash(OpBuilder &b, Location l, Value key,
                         ArrayRef<int64_t> whole, ValueRange offsets) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(
        b, l, b.getIntegerAttr(i64, static_cast<int64_t>(v)));
  };
  Value linear = c(0);
  for (int64_t d = 0; d < static_cast<int64_t>(whole.size()); ++d) {
    Value idx = arith::IndexCastOp::create(b, l, i64,
                                           linalg::IndexOp::create(b, l, d));
    if (!offsets.empty())
      idx = arith::AddIOp::create(b, l, idx, offsets[d]);
    linear = arith::AddIOp::create(
        b, l, arith::MulIOp::create(b, l, linear, c(whole[d])), idx);
  }
  Value z = arith::AddIOp::create(
      b, l, key, arith::MulIOp::create(b, l, linear, c(0x9E3779B97F4A7C15ULL)));
  return splitmix64(b, l, z);
}

/// 24 bits of `z` from bit `shift` up, as a fraction in [0, 1) of type
/// `type` (exact in f32 and f64).
static Value fraction24(OpBuilder &b, Location l, Value z, unsigned shift,
                        FloatType type) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(
        b, l, b.getIntegerAttr(i64, static_cast<int64_t>(v)));
  };
  Value bits = arith::AndIOp::create(
      b, l, arith::ShRUIOp::create(b, l, z, c(shift)), c(0xFFFFFF));
  Value asFloat = arith::UIToFPOp::create(b, l, type, bits);
  return arith::MulFOp::create(
      b, l, asFloat,
      arith::ConstantOp::create(b, l, b.getFloatAttr(type, 0x1p-24)));
}

/// Dropout's keep-mask is a pure function of (seed, keys, linear element
/// index), as the op's description defines: element i keeps when the top 24
/// bits of its hash as a fraction in [0, 1) are >= ratio.
struct DropoutPattern : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    int64_t rank = type.getRank();
    double ratio = op.getRatio().convertToDouble();
    Type i64 = rewriter.getI64Type();
    unsigned numKeys = adaptor.getKeys().size();
    unsigned numOffsets = adaptor.getOffsets().size();
    // Maps: the input, the keys and offsets (scalars), the two results.
    SmallVector<AffineMap> maps(1, rewriter.getMultiDimIdentityMap(rank));
    maps.append(numKeys + numOffsets,
                AffineMap::get(rank, 0, rewriter.getContext()));
    maps.append(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    SmallVector<Value> ins{adaptor.getInput()};
    llvm::append_range(ins, adaptor.getKeys());
    llvm::append_range(ins, adaptor.getOffsets());
    SmallVector<int64_t> whole(op.getDrawnShape());
    Value outs[] = {
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType()),
        emptyTensor(rewriter, loc, type.getShape(), rewriter.getI1Type())};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, maskType}, ins, outs, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value key =
              streamKey(b, l, op.getSeed(), args.slice(1, numKeys));
          Value z = elementHash(b, l, key, whole,
                                args.slice(1 + numKeys, numOffsets));
          Value top = arith::ShRUIOp::create(
              b, l, z, arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, 40)));
          Value threshold = arith::ConstantOp::create(
              b, l,
              b.getIntegerAttr(i64, static_cast<int64_t>(std::ceil(
                                        ratio * static_cast<double>(1 << 24)))));
          Value keep = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge,
                                             top, threshold);
          Value x = args[0];
          Value scale =
              fconst(b, l, x, ratio < 1.0 ? 1.0 / (1.0 - ratio) : 0.0);
          Value scaled = arith::MulFOp::create(b, l, x, scale);
          Value y =
              arith::SelectOp::create(b, l, keep, scaled, fconst(b, l, x, 0.0));
          linalg::YieldOp::create(b, l, ValueRange{y, keep});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// dist.random_uniform and dist.random_normal: one linalg.generic without
/// inputs whose body hashes the element's index (the ops' description).
template <typename OpTy>
struct RandomPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto elementType = cast<FloatType>(type.getElementType());
    FloatType compute =
        elementType.isF64() ? rewriter.getF64Type() : rewriter.getF32Type();
    int64_t rank = type.getRank();
    unsigned numKeys = adaptor.getKeys().size();
    unsigned numOffsets = adaptor.getOffsets().size();
    // Maps: the keys and offsets (scalars), the result.
    SmallVector<AffineMap> maps(numKeys + numOffsets,
                                AffineMap::get(rank, 0, rewriter.getContext()));
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value out = emptyTensor(rewriter, loc, type.getShape(), elementType);
    SmallVector<Value> ins(adaptor.getKeys());
    llvm::append_range(ins, adaptor.getOffsets());
    SmallVector<int64_t> whole(op.getDrawnShape());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ins, ValueRange{out},
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          auto f = [&](double v) {
            return arith::ConstantOp::create(b, l, b.getFloatAttr(compute, v));
          };
          Value key = streamKey(b, l, op.getSeed(), args.take_front(numKeys));
          Value z = elementHash(b, l, key, whole,
                                args.slice(numKeys, numOffsets));
          Value u = fraction24(b, l, z, 40, compute);
          Value sample;
          if constexpr (std::is_same_v<OpTy, RandomUniformOp>) {
            double low = op.getLow().convertToDouble();
            double width = op.getHigh().convertToDouble() - low;
            sample = arith::AddFOp::create(
                b, l, f(low), arith::MulFOp::create(b, l, f(width), u));
          } else {
            // Box-Muller: 1 - u in (0, 1], v an independent fraction.
            Value v = fraction24(b, l, z, 16, compute);
            Value radius = math::SqrtOp::create(
                b, l,
                arith::MulFOp::create(
                    b, l, f(-2.0),
                    math::LogOp::create(b, l,
                                        arith::SubFOp::create(b, l, f(1.0), u))));
            Value angle = arith::MulFOp::create(b, l, f(2.0 * M_PI), v);
            Value normal = arith::MulFOp::create(
                b, l, radius, math::CosOp::create(b, l, angle));
            sample = arith::AddFOp::create(
                b, l, f(op.getMean().convertToDouble()),
                arith::MulFOp::create(b, l, f(op.getScale().convertToDouble()),
                                      normal));
          }
          if (elementType != compute)
            sample = arith::TruncFOp::create(b, l, elementType, sample);
          // Rounding (to f16 or bf16 above 1 - 2^-12 or 1 - 2^-9, or of
          // low + width * u) can reach `high`: such samples take the
          // largest value below it, so the interval stays half-open.
          if constexpr (std::is_same_v<OpTy, RandomUniformOp>) {
            APFloat high = op.getHigh();
            bool lost;
            high.convert(elementType.getFloatSemantics(),
                         APFloat::rmNearestTiesToEven, &lost);
            APFloat below = high;
            below.next(/*nextDown=*/true);
            if (op.getLow().convertToDouble() < op.getHigh().convertToDouble())
              sample = arith::MinimumFOp::create(
                  b, l, sample,
                  arith::ConstantOp::create(
                      b, l, b.getFloatAttr(elementType, below)));
          }
          linalg::YieldOp::create(b, l, sample);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mlir::dist::populateElementwiseToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto unary = [&](auto tag, UnaryFn fn) {
    using OpTy = decltype(tag);
    patterns.add<UnaryPattern<OpTy>>(converter, ctx, fn);
  };
  unary(NegOp(), negFn);
  unary(AbsOp(), absFn);
  unary(ExpOp(), mathFn<math::ExpOp>);
  unary(LogOp(), mathFn<math::LogOp>);
  unary(SqrtOp(), mathFn<math::SqrtOp>);
  unary(RsqrtOp(), rsqrtFn);
  unary(ReciprocalOp(), reciprocalFn);
  unary(TanhOp(), mathFn<math::TanhOp>);
  unary(ErfOp(), mathFn<math::ErfOp>);
  unary(SigmoidOp(), sigmoidFn);
  unary(ReluOp(), reluFn);
  unary(SinOp(), mathFn<math::SinOp>);
  unary(CosOp(), mathFn<math::CosOp>);
  unary(FloorOp(), mathFn<math::FloorOp>);
  unary(CeilOp(), mathFn<math::CeilOp>);
  unary(RoundOp(), mathFn<math::RoundEvenOp>);
  unary(TanOp(), mathFn<math::TanOp>);
  unary(AsinOp(), mathFn<math::AsinOp>);
  unary(AcosOp(), mathFn<math::AcosOp>);
  unary(AtanOp(), mathFn<math::AtanOp>);
  unary(SinhOp(), mathFn<math::SinhOp>);
  unary(CoshOp(), mathFn<math::CoshOp>);
  unary(AsinhOp(), mathFn<math::AsinhOp>);
  unary(AcoshOp(), mathFn<math::AcoshOp>);
  unary(AtanhOp(), mathFn<math::AtanhOp>);
  unary(NotOp(), notFn);

  auto binary = [&](auto tag, BinaryFn fn) {
    using OpTy = decltype(tag);
    patterns.add<BinaryPattern<OpTy>>(converter, ctx, fn);
  };
  binary(AddOp(), addFn);
  binary(SubOp(), subFn);
  binary(MulOp(), mulFn);
  binary(DivOp(), divFn);
  binary(PowOp(), powFn);
  binary(MaxOp(), maxFn);
  binary(MinOp(), minFn);
  binary(RemOp(), remFn);
  binary(AndOp(), andFn);
  binary(OrOp(), orFn);
  binary(XorOp(), xorFn);

  patterns.add<GeluPattern, CastPattern, ComparePattern, SelectPattern,
               DropoutPattern, RandomPattern<RandomUniformOp>,
               RandomPattern<RandomNormalOp>>(converter, ctx);
}
