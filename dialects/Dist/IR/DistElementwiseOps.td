//===- DistElementwiseOps.td - Elementwise ops of the dist dialect --------===//
//
// Unary ops keep their operand's type. Binary, compare and select ops
// broadcast their operands like numpy: shapes are aligned on the right, and
// each pair of sizes must be equal or one of them 1.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTELEMENTWISEOPS_TD
#define DIST_IR_DISTELEMENTWISEOPS_TD

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

class Dist_UnaryOp<string mnemonic, Type tensorType, string formula,
                   list<Trait> traits = []> :
    Dist_Op<mnemonic, !listconcat([Pure, Elementwise, SameOperandsAndResultType,
                                   InferTypeOpInterface], traits)> {
  let summary = "elementwise `" # formula # "`";
  let description = "Computes `" # formula # "` for every element of `input`."
    # "\n\n```mlir\n%y = dist." # mnemonic # " %x : tensor<4x8x"
    # !if(!eq(tensorType, Dist_BoolTensor), "i1", "f32") # ">\n```";
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Dist_NegOp : Dist_UnaryOp<"neg", Dist_SignedTensor, "-x", [Involution]>;
def Dist_AbsOp : Dist_UnaryOp<"abs", Dist_NumericTensor, "|x|", [Idempotent]>;
def Dist_ExpOp : Dist_UnaryOp<"exp", Dist_FloatTensor, "e^x">;
def Dist_LogOp : Dist_UnaryOp<"log", Dist_FloatTensor, "ln(x)">;
def Dist_SqrtOp : Dist_UnaryOp<"sqrt", Dist_FloatTensor, "sqrt(x)">;
def Dist_RsqrtOp : Dist_UnaryOp<"rsqrt", Dist_FloatTensor, "1 / sqrt(x)">;
def Dist_ReciprocalOp : Dist_UnaryOp<"reciprocal", Dist_FloatTensor, "1 / x">;
def Dist_TanhOp : Dist_UnaryOp<"tanh", Dist_FloatTensor, "tanh(x)">;
def Dist_ErfOp : Dist_UnaryOp<"erf", Dist_FloatTensor, "erf(x)">;
def Dist_SigmoidOp : Dist_UnaryOp<"sigmoid", Dist_FloatTensor, "1 / (1 + e^-x)">;
def Dist_ReluOp : Dist_UnaryOp<"relu", Dist_FloatTensor, "max(x, 0)", [Idempotent]>;
def Dist_SinOp : Dist_UnaryOp<"sin", Dist_FloatTensor, "sin(x)">;
def Dist_CosOp : Dist_UnaryOp<"cos", Dist_FloatTensor, "cos(x)">;
def Dist_FloorOp : Dist_UnaryOp<"floor", Dist_FloatTensor, "floor(x)", [Idempotent]>;
def Dist_CeilOp : Dist_UnaryOp<"ceil", Dist_FloatTensor, "ceil(x)", [Idempotent]>;
def Dist_RoundOp : Dist_UnaryOp<"round", Dist_FloatTensor,
    "x rounded to the nearest integer, halves to even", [Idempotent]>;
def Dist_TanOp : Dist_UnaryOp<"tan", Dist_FloatTensor, "tan(x)">;
def Dist_AsinOp : Dist_UnaryOp<"asin", Dist_FloatTensor, "asin(x)">;
def Dist_AcosOp : Dist_UnaryOp<"acos", Dist_FloatTensor, "acos(x)">;
def Dist_AtanOp : Dist_UnaryOp<"atan", Dist_FloatTensor, "atan(x)">;
def Dist_SinhOp : Dist_UnaryOp<"sinh", Dist_FloatTensor, "sinh(x)">;
def Dist_CoshOp : Dist_UnaryOp<"cosh", Dist_FloatTensor, "cosh(x)">;
def Dist_AsinhOp : Dist_UnaryOp<"asinh", Dist_FloatTensor, "asinh(x)">;
def Dist_AcoshOp : Dist_UnaryOp<"acosh", Dist_FloatTensor, "acosh(x)">;
def Dist_AtanhOp : Dist_UnaryOp<"atanh", Dist_FloatTensor, "atanh(x)">;
def Dist_NotOp : Dist_UnaryOp<"not", Dist_BoolTensor, "!x", [Involution]>;

def Dist_GeluOp : Dist_Op<"gelu", [Pure, Elementwise, SameOperandsAndResultType,
                                   InferTypeOpInterface]> {
  let summary = "elementwise GELU, exact or with the tanh approximation";
  let description = [{
    Computes `x * 0.5 * (1 + erf(x / sqrt(2)))`, or with `approximate_tanh`
    `x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`. The importer
    folds PyTorch's decomposed forms of both into this op.

    ```mlir
    %y = dist.gelu %x : tensor<4x8xf32>
    %z = dist.gelu %x {approximate_tanh} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$input, UnitAttr:$approximate_tanh);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Dist_CastOp : Dist_Op<"cast", [Pure, Elementwise]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to the result's element type: floats round to
    nearest even, float to integer truncates toward zero, any value to `i1`
    is `x != 0`, `i1` to a number is 0 or 1.

    ```mlir
    %h = dist.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Binary with broadcasting
//===----------------------------------------------------------------------===//

class Dist_BroadcastingOp<string mnemonic, list<Trait> traits = []> :
    Dist_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)>;

class Dist_BinaryOp<string mnemonic, Type tensorType, string formula,
                    list<Trait> traits = []> :
    Dist_BroadcastingOp<mnemonic, traits> {
  let summary = "elementwise `" # formula # "` with broadcasting";
  let description = "Computes `" # formula # "` elementwise after broadcasting "
    # "`lhs` and `rhs` to a common shape (numpy rules). Both operands have the "
    # "same element type.\n\n```mlir\n%z = dist." # mnemonic
    # " %x, %y : (tensor<4x8x"
    # !if(!eq(tensorType, Dist_BoolTensor), "i1", "f32") # ">, tensor<8x"
    # !if(!eq(tensorType, Dist_BoolTensor), "i1", "f32") # ">) -> tensor<4x8x"
    # !if(!eq(tensorType, Dist_BoolTensor), "i1", "f32") # ">\n```";
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::dist::inferBroadcastResultType(
          loc, getOperationName(), adaptor.getOperands(), types);
    }
  }];
}

def Dist_AddOp : Dist_BinaryOp<"add", Dist_NumericTensor, "x + y", [Commutative]>;
def Dist_SubOp : Dist_BinaryOp<"sub", Dist_NumericTensor, "x - y">;
def Dist_MulOp : Dist_BinaryOp<"mul", Dist_NumericTensor, "x * y", [Commutative]>;
def Dist_DivOp : Dist_BinaryOp<"div", Dist_NumericTensor, "x / y">;
def Dist_PowOp : Dist_BinaryOp<"pow", Dist_FloatTensor, "x ^ y">;
def Dist_MaxOp : Dist_BinaryOp<"max", Dist_NumericTensor, "max(x, y)", [Commutative]>;
def Dist_MinOp : Dist_BinaryOp<"min", Dist_NumericTensor, "min(x, y)", [Commutative]>;
def Dist_RemOp : Dist_BinaryOp<"rem", Dist_NumericTensor,
    "x - y * trunc(x / y), the remainder with the sign of x (C fmod)">;
def Dist_AndOp : Dist_BinaryOp<"and", Dist_BoolTensor, "x && y", [Commutative]>;
def Dist_OrOp : Dist_BinaryOp<"or", Dist_BoolTensor, "x || y", [Commutative]>;
def Dist_XorOp : Dist_BinaryOp<"xor", Dist_BoolTensor, "x != y", [Commutative]>;

def Dist_CompareOp : Dist_BroadcastingOp<"compare"> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares `lhs` and `rhs` elementwise after numpy broadcasting and returns
    an `i1` tensor. Predicates: `eq`, `ne`, `lt`, `le`, `gt`, `ge`.

    ```mlir
    %m = dist.compare lt, %x, %y
        : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Dist_ComparePredicateAttr:$predicate,
                       Dist_Tensor:$lhs, Dist_Tensor:$rhs);
  let results = (outs Dist_BoolTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` "
                       "functional-type(operands, results)";
}

def Dist_SelectOp : Dist_BroadcastingOp<"select"> {
  let summary = "elementwise choice between two tensors (ONNX Where)";
  let description = [{
    Returns `true_value` where `condition` holds and `false_value` elsewhere;
    all three operands broadcast together. With a `dist.trilu` condition this
    is the causal mask of attention.

    ```mlir
    %y = dist.select %mask, %scores, %neg_inf
        : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>)
          -> tensor<2x4x64x64xf32>
    ```
  }];
  let arguments = (ins Dist_BoolTensor:$condition, Dist_Tensor:$true_value,
                       Dist_Tensor:$false_value);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$condition `,` $true_value `,` $false_value attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

// What dropout and the random ops say of a draw split over ranks.
defvar Dist_ShardedDrawDoc = [{
    A split op draws its block of a larger tensor: `whole_shape` is that
    tensor's shape and `offsets` (one scalar per dimension) where the block
    starts in it, so `i` is the element's row-major index in `whole_shape`
    of its position plus the offsets. dist-partition splits these ops so;
    each rank then draws exactly the values of the whole op's block.
}];

defvar Dist_ShardedDrawDecl = [{
    /// The shape the element indices count in: `whole_shape`, or the op's
    /// own.
    ::llvm::ArrayRef<int64_t> getDrawnShape() {
      if (auto whole = getWholeShapeAttr())
        return whole.asArrayRef();
      return ::llvm::cast<::mlir::RankedTensorType>(
          getOperation()->getResult(0).getType()).getShape();
    }
}];

def Dist_DropoutOp : Dist_Op<"dropout", [Pure, InferTypeOpAdaptor,
                                         AttrSizedOperandSegments]> {
  let summary = "seeded dropout that also returns its keep-mask";
  let description = [{
    Zeroes each element with probability `ratio` and scales the kept ones by
    `1 / (1 - ratio)`; `mask` is true where an element is kept. Autodiff uses
    `mask` so that backward drops exactly what forward dropped.

    The mask is a pure function of the op's `seed` (its identity: the importer
    gives each dropout node its own), the run-time `keys` (scalar i64 tensors;
    a training step passes the run's seed and the step number, so masks
    differ from step to step and a resumed run draws them again) and each
    element's row-major index in the whole tensor (a counter-based
    generator, splitmix64), so the same op computes the same mask wherever
    and however often it runs:

    ```
    h = mix(seed); for k in keys: h = mix(h ^ k)
    keep[i] = (mix(h + i * 0x9E3779B97F4A7C15) >> 40) >= ceil(ratio * 2^24)
    ```

    where `mix(z)` is splitmix64's output function of the state `z`
    (`z += 0x9E3779B97F4A7C15`, then its finalizer).

    }] # Dist_ShardedDrawDoc # [{

    ```mlir
    %y, %keep = dist.dropout %x {ratio = 1.000000e-01 : f64, seed = 7 : i64}
        : tensor<4x8xf32>
    %y2, %keep2 = dist.dropout %x keys(%seed, %step : tensor<i64>, tensor<i64>)
        {ratio = 1.000000e-01 : f64, seed = 7 : i64} : tensor<4x8xf32>
    // One rank's rows 4-7 of a 8x8 tensor's mask.
    %y3, %keep3 = dist.dropout %x offsets(%four, %zero : tensor<i64>, tensor<i64>)
        {ratio = 1.000000e-01 : f64, seed = 7 : i64, whole_shape = array<i64: 8, 8>}
        : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$input,
                       Variadic<0DTensorOf<[I64]>>:$keys,
                       Variadic<0DTensorOf<[I64]>>:$offsets, F64Attr:$ratio,
                       I64Attr:$seed, OptionalAttr<DenseI64ArrayAttr>:$whole_shape);
  let results = (outs Dist_FloatTensor:$result, Dist_BoolTensor:$mask);
  let assemblyFormat = [{
    $input (`keys` `(` $keys^ `:` type($keys) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)? attr-dict `:` type($input)
  }];
  let builders = [
    OpBuilder<(ins "Value":$input, "ValueRange":$keys, "const APFloat &":$ratio,
                   "uint64_t":$seed), [{
      build($_builder, $_state, input, keys, ValueRange(), ratio, seed,
            DenseI64ArrayAttr());
    }]>,
    OpBuilder<(ins "Value":$input, "const APFloat &":$ratio,
                   "uint64_t":$seed), [{
      build($_builder, $_state, input, ValueRange(), ratio, seed);
    }]>
  ];
  let extraClassDeclaration = Dist_ShardedDrawDecl;
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Random sampling
//===----------------------------------------------------------------------===//

class Dist_RandomOp<string mnemonic, string what, string details> :
    Dist_Op<mnemonic, [Pure, AttrSizedOperandSegments]> {
  let description = [{
    Draws a fresh tensor of }] # what # [{ samples. Like `dist.dropout`'s
    mask, each element is a pure function of the op's `seed` (its identity),
    the run-time `keys` (a training step passes the run's seed and the step
    number, so each step draws anew and a resumed run draws the same values)
    and the element's row-major index in the whole tensor:

    ```
    h = mix(seed); for k in keys: h = mix(h ^ k)
    z[i] = mix(h + i * 0x9E3779B97F4A7C15)
    u[i] = (z[i] >> 40) * 2^-24                      in [0, 1), 24 bits
    v[i] = ((z[i] >> 16) & 0xFFFFFF) * 2^-24         in [0, 1), 24 bits
    ```

    (`mix` is splitmix64's output function, as in `dist.dropout`.) The same
    op computes the same values wherever and however often it runs: on every
    rank of a data-parallel step, and in a recomputed forward. No operand is
    differentiable: autodiff treats the values as constants of the step.
}] # Dist_ShardedDrawDoc # details;
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = [{
    (`keys` `(` $keys^ `:` type($keys) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)? attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "Type":$type, "ValueRange":$keys, "const APFloat &":$first,
                   "const APFloat &":$second, "uint64_t":$seed), [{
      build($_builder, $_state, type, keys, ValueRange(), first, second, seed,
            DenseI64ArrayAttr());
    }]>
  ];
  let extraClassDeclaration = Dist_ShardedDrawDecl;
  let hasVerifier = 1;
}

def Dist_RandomUniformOp : Dist_RandomOp<"random_uniform", "uniform", [{
    The sample is `low + (high - low) * u[i]`, computed in f32 (f64 for
    f64) and rounded to the element type; a sample the rounding takes to
    `high` becomes the largest value below it, so samples stay in
    [low, high) in every type (`low == high` gives `low`).
    PyTorch's `torch.rand`, and the stochastic depth (drop path) built on it:
    `floor(keep + u)` is 1 with probability `keep`.

    ```mlir
    %u = dist.random_uniform keys(%seed, %step : tensor<i64>, tensor<i64>)
        {low = 0.0 : f64, high = 1.0 : f64, seed = 3 : i64} : tensor<8x1x1xf32>
    ```
  }]> {
  let summary = "uniform samples in [low, high)";
  let arguments = (ins Variadic<0DTensorOf<[I64]>>:$keys,
                       Variadic<0DTensorOf<[I64]>>:$offsets, F64Attr:$low,
                       F64Attr:$high, I64Attr:$seed,
                       OptionalAttr<DenseI64ArrayAttr>:$whole_shape);
}

def Dist_RandomNormalOp : Dist_RandomOp<"random_normal", "normal", [{
    The sample is `mean + scale * sqrt(-2 ln(1 - u[i])) * cos(2 pi v[i])`
    (Box-Muller on the two 24-bit fractions; `1 - u` is in (0, 1], so the
    tails end at 5.8 standard deviations), computed in f32 (f64 for f64) and
    rounded to the element type.
    PyTorch's `torch.randn`, as in a VAE's reparameterization.

    ```mlir
    %e = dist.random_normal {mean = 0.0 : f64, scale = 1.0 : f64, seed = 5 : i64}
        : tensor<4x16xf32>
    ```
  }]> {
  let summary = "normal samples of a mean and a standard deviation";
  let arguments = (ins Variadic<0DTensorOf<[I64]>>:$keys,
                       Variadic<0DTensorOf<[I64]>>:$offsets, F64Attr:$mean,
                       F64Attr:$scale, I64Attr:$seed,
                       OptionalAttr<DenseI64ArrayAttr>:$whole_shape);
}

#endif // DIST_IR_DISTELEMENTWISEOPS_TD
