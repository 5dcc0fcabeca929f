//===- DistMatmulToRuntime.cpp - Bufferized matmuls to distrt_gemm --------===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/Runtime/BufferPointer.h"
#include "dialects/Dist/Runtime/RuntimeTypes.h"
#include "passes/Conversion/ScalarBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "dist-matmul-to-runtime"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMATMULTORUNTIME
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// A matmul operand the runtime can read: static row-major strides with a
/// unit inner stride.
static bool isBlasCompatible(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1 && !llvm::any_of(strides, ShapedType::isDynamic);
}

/// Whether the (batch-stripped) results of `map` are (first, second).
static bool isPair(AffineMap map, unsigned offset, unsigned first,
                   unsigned second) {
  if (map.getNumResults() != offset + 2)
    return false;
  if (offset && !map.getResult(0).isFunctionOfDim(0))
    return false;
  auto dimIs = [&](unsigned i, unsigned d) {
    auto e = dyn_cast<AffineDimExpr>(map.getResult(offset + i));
    return e && e.getPosition() == d;
  };
  return dimIs(0, first) && dimIs(1, second);
}

static func::FuncOp getOrCreateGemmDecl(ModuleOp module, StringRef name,
                                        bool epilogues) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f64 = b.getF64Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  // dtype, trans_a, trans_b, batch, m, n, k, alpha, a, lda, stride_a,
  // b, ldb, stride_b, beta, c, ldc, stride_c[, epilogue, bias, aux, ldaux,
  // c_dtype, op].
  SmallVector<Type> inputs = {i32, i32, i32, i64, i64, i64, i64, f64, ptr,
                              i64, i64, ptr, i64, i64, f64, ptr, i64, i64};
  if (epilogues)
    inputs.append({i32, ptr, ptr, i64, i32, ptr});
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                b.getFunctionType(inputs, {}));
  f.setPrivate();
  return f;
}

/// Pointer to the first element, row stride and batch stride of a buffer.
static std::tuple<Value, Value, Value> bufferOperand(OpBuilder &b, Location loc,
                                                     Value v, bool batched) {
  auto type = cast<MemRefType>(v.getType());
  Type i64 = b.getI64Type();
  auto [ptr, meta] = dist::bufferPointer(b, loc, v);
  auto strides = meta.getStrides();
  int64_t rank = type.getRank();
  Value ld = arith::IndexCastOp::create(b, loc, i64, strides[rank - 2]);
  Value batchStride =
      batched ? Value(arith::IndexCastOp::create(b, loc, i64, strides[0]))
              : Value(arith::ConstantIntOp::create(b, loc, i64, 0));
  return {ptr, ld, batchStride};
}

/// "/h.0/mlp/c_fc/MatMul (model.onnx)": the ONNX node and file of `loc`,
/// else the location as MLIR prints it.
static std::string describeLocation(Location loc) {
  std::string node, file;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner); named && node.empty())
      node = named.getName().str();
    if (auto at = dyn_cast<FileLineColLoc>(inner); at && file.empty())
      file = at.getFilename().str();
    return WalkResult::advance();
  });
  if (!node.empty())
    return file.empty() ? node : node + " (" + file + ")";
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// The buffer a view (subview, expand/collapse_shape, cast) is a view of.
static Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

static bool isZeroConstant(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
  return f && f.getValue().isZero();
}

/// A static, row-major, contiguous buffer (identity layout).
static bool isContiguous(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

/// The zero fill of `buffer` that is the only write to it before `before`
/// (in `before`'s block; other users before it only copy from it), or
/// nullptr.
static linalg::FillOp zeroFillBefore(Value buffer, Operation *before) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return {};
  linalg::FillOp zeroFill;
  for (Operation *use : buffer.getUsers()) {
    if (use == before)
      continue;
    // A use inside an op of the block (a gather's load in a generic's
    // body) is that op's.
    Operation *user = before->getBlock()->findAncestorOpInBlock(*use);
    if (!user)
      return {};
    if (!user->isBeforeInBlock(before))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(user);
    if (fill && !zeroFill && fill.getOutputs()[0] == buffer &&
        isZeroConstant(fill.getInputs()[0])) {
      zeroFill = fill;
      continue;
    }
    auto copy = dyn_cast<memref::CopyOp>(user);
    if (!copy || copy.getSource() != buffer || copy.getTarget() == buffer)
      return {};
  }
  if (!zeroFill)
    return {};
  // The copies read it after the fill.
  for (Operation *user : buffer.getUsers())
    if (isa<memref::CopyOp>(user) && user->getBlock() == before->getBlock() &&
        user->isBeforeInBlock(before) && user->isBeforeInBlock(zeroFill))
      return {};
  return zeroFill;
}

/// How the product's output `c` is initialized when it holds only zeros
/// (a zero fill of it, or a copy from a buffer of zeros): the product
/// then overwrites it (beta = 0), and `erasable` is the zeroing op when
/// nothing else reads what it wrote.
struct ZeroInit {
  bool zero = false;
  Operation *erasable = nullptr;
};

static ZeroInit zeroInitialization(Operation *matmul, Value c) {
  if (!c.getDefiningOp<memref::AllocOp>())
    return {};
  SmallVector<Operation *> before;
  for (Operation *use : c.getUsers()) {
    if (use == matmul)
      continue;
    Operation *user = matmul->getBlock()->findAncestorOpInBlock(*use);
    if (!user)
      return {};
    if (user->isBeforeInBlock(matmul))
      before.push_back(user);
  }
  if (linalg::FillOp fill = zeroFillBefore(c, matmul))
    return {true, before.size() == 1 ? fill.getOperation() : nullptr};
  if (before.size() != 1)
    return {};
  auto copy = dyn_cast<memref::CopyOp>(before.front());
  if (copy && copy.getTarget() == c && zeroFillBefore(copy.getSource(), copy))
    return {true, copy};
  return {};
}

/// Whether a product may move from `from` to `to` (later in the same
/// block): nothing between writes or frees memory.
static bool canMoveDown(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
      return false;
  return true;
}

/// The one op that reads `value` (directly, or through one expand_shape
/// whose only user it is) after `after`, and that view; nullptr when there
/// are other users. The reader is elementwise, with at most `maxOutputs`
/// contiguous outputs written in order (identity maps).
static std::pair<linalg::GenericOp, Operation *>
onlyElementwiseReader(Value value, Operation *after,
                      ArrayRef<Operation *> ignore, unsigned maxOutputs = 1) {
  Operation *reader = nullptr;
  for (Operation *user : value.getUsers()) {
    if (llvm::is_contained(ignore, user))
      continue;
    if (reader)
      return {};
    reader = user;
  }
  Operation *view = nullptr;
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(reader)) {
    if (!expand->hasOneUse())
      return {};
    view = expand;
    reader = *expand->getUsers().begin();
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(reader);
  if (!generic || generic->getBlock() != after->getBlock() ||
      !after->isBeforeInBlock(generic) || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInits() < 1 || generic.getNumDpsInits() > maxOutputs ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return {};
  for (OpOperand &init : generic.getDpsInitsMutable())
    if (!isContiguous(init.get()) ||
        !generic.getMatchingIndexingMap(&init).isIdentity())
      return {};
  return {generic, view};
}

/// The input of `generic` read at `value` through the identity map, or -1.
static int identityInput(linalg::GenericOp generic, Value value) {
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == value &&
        generic.getMatchingIndexingMap(input).isIdentity())
      return input->getOperandNumber();
  return -1;
}

/// A fold of the product's output into cuBLASLt's epilogue: the bias
/// addition (and GELU) that follow it, done in the product instead.
struct EpilogueFold {
  distrt_gemm_epilogue kind = DISTRT_GEMM_PLAIN;
  Value bias;                     // n elements
  Value out;                      // where the result goes
  Value aux;                      // the values before GELU, or null
  Operation *at = nullptr;        // where the call goes
  SmallVector<Operation *> erase; // in this order
  bool rounded = false;           // out holds the product rounded to bf16
};

/// A fold whose call takes the place of `reader` (the op reading the
/// product, through `view` or not), writing `out`; both are erased.
static EpilogueFold replacing(linalg::GenericOp reader, Operation *view,
                              Value out) {
  EpilogueFold fold;
  fold.out = out;
  fold.at = reader;
  fold.erase.push_back(reader);
  if (view)
    fold.erase.push_back(view);
  return fold;
}

/// A bias addition reading the product `c` (m x n, maybe expanded):
/// out = c + bias[j] (or, fused, GELU(c + bias[j]); or both, in two
/// outputs of one op, as multi-output fusion writes a GELU whose input the
/// backward pass reads: GELU's into out, the sum's as aux).
static std::optional<EpilogueFold> matchBias(Operation *matmul, Value c,
                                             Operation *init, int64_t n) {
  auto [add, view] =
      onlyElementwiseReader(c, matmul, {matmul, init}, /*maxOutputs=*/2);
  if (!add || add.getNumDpsInputs() != 2)
    return std::nullopt;
  Value product = view ? view->getResult(0) : c;
  int p = identityInput(add, product);
  if (p < 0)
    return std::nullopt;
  OpOperand &biasOperand = add->getOpOperand(1 - p);
  Value bias = biasOperand.get();
  auto biasType = dyn_cast<MemRefType>(bias.getType());
  AffineMap biasMap = add.getMatchingIndexingMap(&biasOperand);
  unsigned rank = add.getNumLoops();
  if (!isContiguous(bias) || biasType.getRank() != 1 ||
      biasType.getDimSize(0) != n || biasMap.getNumResults() != 1 ||
      biasMap.getResult(0) != getAffineDimExpr(rank - 1, add.getContext()))
    return std::nullopt;
  Value out = add.getDpsInits()[0];
  if (!canMoveDown(matmul, add))
    return std::nullopt;
  auto inputs = [p](ArrayRef<double> v) {
    return std::make_pair(v[p], v[1 - p]);
  };
  auto sum = [&](ArrayRef<double> v) {
    auto [x, b] = inputs(v);
    return x + b;
  };
  auto gelu = [&](ArrayRef<double> v) {
    auto [x, b] = inputs(v);
    return dist::geluTanh(x + b);
  };
  EpilogueFold fold = replacing(add, view, out);
  if (add.getNumDpsInits() == 2) {
    // The sum in one output, its GELU in the other; aux rows of n elements
    // (a multiple of 8, cuBLASLt's rule).
    unsigned r = dist::computes(add, sum, 0) ? 0 : 1;
    if (n % 8 != 0 || !dist::computes(add, sum, r) ||
        !dist::computes(add, gelu, 1 - r))
      return std::nullopt;
    fold.kind = DISTRT_GEMM_BIAS_GELU;
    fold.aux = add.getDpsInits()[r];
    fold.out = add.getDpsInits()[1 - r];
  } else if (dist::computes(add, sum)) {
    fold.kind = DISTRT_GEMM_BIAS;
  } else if (dist::computes(add, gelu)) {
    fold.kind = DISTRT_GEMM_BIAS_GELU;
  } else {
    return std::nullopt;
  }
  fold.bias = bias;
  return fold;
}

/// The product's output `c` filled with `bias[j]` (a broadcast of the
/// bias, as dist.gemm's lowering writes it) and nothing else before the
/// product: the epilogue adds the bias instead.
static std::optional<EpilogueFold> matchBiasInit(Operation *matmul, Value c,
                                                 int64_t n) {
  // A fresh buffer or an out-parameter: every access to it is a use of c.
  if (!c.getDefiningOp<memref::AllocOp>() && !isa<BlockArgument>(c))
    return std::nullopt;
  Operation *init = nullptr;
  for (Operation *user : c.getUsers()) {
    if (user == matmul || (user->getBlock() == matmul->getBlock() &&
                           matmul->isBeforeInBlock(user)))
      continue;
    if (init || user->getBlock() != matmul->getBlock())
      return std::nullopt;
    init = user;
  }
  auto broadcast = dyn_cast_or_null<linalg::GenericOp>(init);
  if (!broadcast || !broadcast.hasPureBufferSemantics() ||
      broadcast.getNumDpsInputs() != 1 || broadcast.getNumDpsInits() != 1 ||
      broadcast.getDpsInits()[0] != c ||
      !broadcast.getIndexingMapsArray().back().isIdentity())
    return std::nullopt;
  Value bias = broadcast.getDpsInputs()[0];
  auto biasType = dyn_cast<MemRefType>(bias.getType());
  AffineMap biasMap = broadcast.getIndexingMapsArray().front();
  if (!isContiguous(bias) || biasType.getRank() != 1 ||
      biasType.getDimSize(0) != n || biasMap.getNumResults() != 1 ||
      biasMap.getResult(0) !=
          getAffineDimExpr(broadcast.getNumLoops() - 1, c.getContext()) ||
      !dist::computes(broadcast, [](ArrayRef<double> v) { return v[0]; }) ||
      !canMoveDown(broadcast, matmul))
    return std::nullopt;
  EpilogueFold fold;
  fold.kind = DISTRT_GEMM_BIAS;
  fold.bias = bias;
  fold.out = c;
  fold.at = matmul;
  fold.erase.push_back(broadcast);
  return fold;
}

/// A product of bfloat16 inputs whose float32 result `c` (zeroed before,
/// so overwritten) is only read by a rounding of all of it to bfloat16, as
/// dist-mixed-precision's products are lowered: the product writes the
/// rounded values itself (cuBLASLt's bf16 D, the same rounding to nearest
/// even), and neither the float32 buffer nor the rounding kernel remain.
static std::optional<EpilogueFold> matchRounding(Operation *matmul, Value c,
                                                 Operation *init) {
  if (!c.getDefiningOp<memref::AllocOp>() || !isContiguous(c))
    return std::nullopt;
  auto [round, view] = onlyElementwiseReader(c, matmul, {matmul, init},
                                             /*maxOutputs=*/1);
  if (!round || round.getNumDpsInputs() != 1)
    return std::nullopt;
  Value product = view ? view->getResult(0) : c;
  if (identityInput(round, product) < 0)
    return std::nullopt;
  // The body: yield(truncf(in) : f32 to bf16), rounding to nearest even.
  Block &body = round.getRegion().front();
  auto truncf = dyn_cast<arith::TruncFOp>(&body.front());
  if (!truncf || truncf->getNextNode() != body.getTerminator() ||
      truncf.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != truncf.getResult() ||
      !truncf.getType().isBF16() ||
      (truncf.getRoundingmode() &&
       *truncf.getRoundingmode() != arith::RoundingMode::to_nearest_even) ||
      !canMoveDown(matmul, round))
    return std::nullopt;
  EpilogueFold fold = replacing(round, view, round.getDpsInits()[0]);
  fold.rounded = true;
  return fold;
}

/// After a bias fold: the GELU that reads its result alone, when there is
/// one (the values before GELU stay, as aux, when something else reads
/// them: the backward pass).
static void matchGelu(EpilogueFold &fold, int64_t n) {
  if (fold.kind != DISTRT_GEMM_BIAS || n % 8 != 0 ||
      !fold.out.getDefiningOp<memref::AllocOp>())
    return;
  linalg::GenericOp gelu;
  for (Operation *user : fold.out.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic == fold.at ||
        llvm::is_contained(fold.erase, user) ||
        generic.getNumDpsInputs() != 1 || identityInput(generic, fold.out) < 0)
      continue;
    if (generic->getBlock() == fold.at->getBlock() &&
        fold.at->isBeforeInBlock(generic) && generic.hasPureBufferSemantics() &&
        generic.getNumDpsInits() == 1 &&
        generic.getNumParallelLoops() == generic.getNumLoops() &&
        isContiguous(generic.getDpsInits()[0]) &&
        generic.getIndexingMapsArray().back().isIdentity() &&
        canMoveDown(fold.at, generic) &&
        dist::computes(
            generic, [](ArrayRef<double> v) { return dist::geluTanh(v[0]); })) {
      gelu = generic;
      break;
    }
  }
  if (!gelu)
    return;
  fold.kind = DISTRT_GEMM_BIAS_GELU;
  fold.at = gelu;
  fold.erase.insert(fold.erase.begin(), gelu);
  Value geluOut = gelu.getDpsInits()[0];
  // In place: the values before GELU are overwritten, nobody reads them.
  if (geluOut == fold.out)
    return;
  bool readElsewhere = llvm::any_of(fold.out.getUsers(), [&](Operation *u) {
    return u != fold.at && u != gelu.getOperation() &&
           !llvm::is_contained(fold.erase, u);
  });
  fold.aux = readElsewhere ? fold.out : Value();
  fold.out = geluOut;
}

struct DistMatmulToRuntimePass
    : dist::impl::DistMatmulToRuntimeBase<DistMatmulToRuntimePass> {
  using DistMatmulToRuntimeBase::DistMatmulToRuntimeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    names.clear();
    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      rewrite(module, op);
    // Buffers of zeros that no product copies from any more.
    SmallVector<linalg::FillOp> fills;
    module.walk([&](linalg::FillOp fill) { fills.push_back(fill); });
    for (linalg::FillOp fill : fills) {
      Value target =
          fill.hasPureBufferSemantics() ? fill.getOutputs()[0] : Value();
      if (target && target.getDefiningOp<memref::AllocOp>() &&
          target.hasOneUse()) {
        Operation *alloc = target.getDefiningOp();
        fill->erase();
        alloc->erase();
      }
    }
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics())
      return;
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    // f32 or f64 throughout, or bf16 / f16 inputs accumulating into f32
    // (mixed precision): the runtime's dtype is the inputs'.
    Type et = cast<MemRefType>(c.getType()).getElementType();
    Type inputType = cast<MemRefType>(a.getType()).getElementType();
    if (cast<MemRefType>(bm.getType()).getElementType() != inputType)
      return;
    bool mixed = et.isF32() && (inputType.isBF16() || inputType.isF16());
    if (!mixed && (!(et.isF32() || et.isF64()) || inputType != et))
      return;
    if (!isBlasCompatible(a) || !isBlasCompatible(bm) || !isBlasCompatible(c))
      return;
    // Dims: [b,] m, n, k.
    unsigned o = batched ? 1 : 0, m = o, n = o + 1, k = o + 2;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool transA, transB;
    if (isPair(maps[0], o, m, k))
      transA = false;
    else if (isPair(maps[0], o, k, m))
      transA = true;
    else
      return;
    if (isPair(maps[1], o, k, n))
      transB = false;
    else if (isPair(maps[1], o, n, k))
      transB = true;
    else
      return;
    if (!isPair(maps[2], o, m, n))
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();

    ZeroInit init = zeroInitialization(op, c);
    std::optional<EpilogueFold> fold;
    if (epilogues && et.isF32() && !mixed && !batched && ranges[k] > 0 &&
        isContiguous(c)) {
      if (init.erasable)
        fold = matchBias(op, c, init.erasable, ranges[n]);
      else if (!init.zero)
        fold = matchBiasInit(op, c, ranges[n]);
      if (fold)
        matchGelu(*fold, ranges[n]);
    } else if (epilogues && bf16Outputs && mixed && inputType.isBF16() &&
               init.zero) {
      fold = matchRounding(op, c, init.erasable);
    }
    // The product writes its results while it reads A, B and the bias.
    if (fold) {
      Value read[] = {rootBuffer(a), rootBuffer(bm),
                      fold->bias ? rootBuffer(fold->bias) : Value()};
      for (Value written : {fold->out, fold->aux})
        if (written && llvm::is_contained(read, rootBuffer(written))) {
          fold.reset();
          break;
        }
    }

    func::FuncOp decl = getOrCreateGemmDecl(module, function, epilogues);
    OpBuilder b(fold ? fold->at : op.getOperation());
    Location loc = op.getLoc();
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Type ptrType = LLVM::LLVMPointerType::get(b.getContext());
    auto ci32 = [&](int32_t v) {
      return arith::ConstantIntOp::create(b, loc, i32, v);
    };
    auto ci64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    auto cf64 = [&](double v) {
      return arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(v));
    };
    auto [pa, lda, sa] = bufferOperand(b, loc, a, batched);
    auto [pb, ldb, sb] = bufferOperand(b, loc, bm, batched);
    Value pc, ldc, sc;
    if (fold) {
      // Contiguous m x n results: row stride n (batch 1 for epilogues).
      pc = dist::bufferPointer(b, loc, fold->out).first;
      ldc = ci64(ranges[n]);
      sc = ci64(batched ? ranges[m] * ranges[n] : 0);
    } else {
      std::tie(pc, ldc, sc) = bufferOperand(b, loc, c, batched);
    }
    SmallVector<Value> args = {ci32(*dist::runtimeDtype(inputType)),
                               ci32(transA),
                               ci32(transB),
                               ci64(batched ? ranges[0] : 1),
                               ci64(ranges[m]),
                               ci64(ranges[n]),
                               ci64(ranges[k]),
                               cf64(1.0),
                               pa,
                               lda,
                               sa,
                               pb,
                               ldb,
                               sb,
                               cf64(init.zero || fold ? 0.0 : 1.0),
                               pc,
                               ldc,
                               sc};
    if (epilogues) {
      Value null = LLVM::ZeroOp::create(b, loc, ptrType);
      distrt_gemm_epilogue kind = fold ? fold->kind : DISTRT_GEMM_PLAIN;
      args.push_back(ci32(static_cast<int32_t>(kind)));
      args.push_back(fold && fold->bias
                         ? dist::bufferPointer(b, loc, fold->bias).first
                         : null);
      bool aux = fold && fold->aux;
      args.push_back(aux ? dist::bufferPointer(b, loc, fold->aux).first : null);
      args.push_back(ci64(aux ? ranges[n] : 0));
      Type cType = fold && fold->rounded ? inputType : et;
      args.push_back(ci32(*dist::runtimeDtype(cType)));
      args.push_back(opName(module, b, loc));
    }
    func::CallOp::create(b, loc, decl, args);
    if (fold)
      for (Operation *dead : fold->erase)
        dead->erase();
    op->erase();
    if (init.erasable)
      init.erasable->erase();
    if (fold && c.use_empty())
      c.getDefiningOp()->erase();
  }

  /// A pointer to a constant string naming the product's op (one global
  /// per distinct text).
  Value opName(ModuleOp module, OpBuilder &b, Location loc) {
    std::string text = describeLocation(loc);
    LLVM::GlobalOp &global = names[text];
    if (!global) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      std::string data = text;
      data.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(top.getI8Type(), data.size());
      std::string symbol = "dist_gemm_op_" + std::to_string(names.size() - 1);
      while (module.lookupSymbol(symbol))
        symbol += "_";
      global = LLVM::GlobalOp::create(top, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, symbol,
                                      top.getStringAttr(data));
    }
    return LLVM::AddressOfOp::create(b, loc, global);
  }

  llvm::StringMap<LLVM::GlobalOp> names;
};

} // namespace
