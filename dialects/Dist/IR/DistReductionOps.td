//===- DistReductionOps.td - Reductions, normalizations and losses --------===//

#ifndef DIST_IR_DISTREDUCTIONOPS_TD
#define DIST_IR_DISTREDUCTIONOPS_TD

class Dist_ReduceOp<string mnemonic, Type tensorType, string what> :
    Dist_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = what # " over the given axes";
  let description = "Reduces `input` with " # what # " over `axes`, a sorted "
    # "list of distinct dimensions. With `keep_dims` the reduced dimensions "
    # "stay as size 1; otherwise they are removed.\n\n```mlir\n%s = dist."
    # mnemonic # " %x axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n```";
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keep_dims);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input `axes` `=` $axes attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::dist::inferReductionResultType(
          loc, getOperationName(), adaptor.getInput().getType(),
          adaptor.getAxes(), adaptor.getKeepDims(), types);
    }
    // Reducing only size-1 dimensions and keeping them changes nothing.
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor) {
      if (getInput().getType() == getType())
        return getInput();
      return {};
    }
  }];
}

def Dist_ReduceSumOp : Dist_ReduceOp<"reduce_sum", Dist_NumericTensor, "the sum">;
def Dist_ReduceMeanOp : Dist_ReduceOp<"reduce_mean", Dist_FloatTensor, "the mean">;
def Dist_ReduceMaxOp : Dist_ReduceOp<"reduce_max", Dist_NumericTensor, "the maximum">;
def Dist_ReduceMinOp : Dist_ReduceOp<"reduce_min", Dist_NumericTensor, "the minimum">;
def Dist_ReduceProdOp : Dist_ReduceOp<"reduce_prod", Dist_NumericTensor, "the product">;

class Dist_ArgReduceOp<string mnemonic, string what> :
    Dist_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the " # what # " along one axis";
  let description = "Returns, for every position of the other dimensions, the "
    # "index (i64) of the " # what # " of `input` along `axis`: the first one "
    # "on ties, or with `select_last_index` the last. With `keep_dims` the "
    # "axis stays as size 1; otherwise it is removed.\n\n```mlir\n%i = dist."
    # mnemonic # " %x axis = 1 : (tensor<4x8xf32>) -> tensor<4xi64>\n```";
  let arguments = (ins Dist_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keep_dims, UnitAttr:$select_last_index);
  let results = (outs Dist_IndexTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::dist::inferArgReductionResultType(
          loc, getOperationName(), adaptor.getInput().getType(),
          adaptor.getAxis(), adaptor.getKeepDims(), types);
    }
  }];
}

def Dist_ArgMaxOp : Dist_ArgReduceOp<"argmax", "maximum">;
def Dist_ArgMinOp : Dist_ArgReduceOp<"argmin", "minimum">;

def Dist_SparsifyTopKOp : Dist_Op<"sparsify_top_k", [Pure]> {
  let summary = "splits each row into its k elements largest in magnitude "
                "and the rest";
  let description = [{
    Every position of the leading dimensions of `input` is a row of its last
    dimension (n elements). Of each row, the `k` elements largest in
    magnitude (ties, NaNs among them: the lower index; NaN counts as the largest) are
    `values`, with their positions in the row as `indices` (i64), both in
    ascending index order (`... x k`); `rest` is `input` with them set to
    zero, so that `rest` plus `values` scattered to `indices` is `input`.
    Top-k gradient compression with error feedback: a rank sends `values`
    and `indices` and keeps `rest` as its residual.

    ```mlir
    %v, %i, %rest = dist.sparsify_top_k %m k = 2
        : (tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x8xf32>)
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32]>:$input, I64Attr:$k);
  let results = (outs StaticShapeTensorOf<[F32]>:$values,
                      StaticShapeTensorOf<[I64]>:$indices,
                      StaticShapeTensorOf<[F32]>:$rest);
  let assemblyFormat = "$input `k` `=` $k attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Dist_CumSumOp : Dist_Op<"cumsum", [Pure, SameOperandsAndResultType,
                                       InferTypeOpInterface]> {
  let summary = "running sum along one axis";
  let description = [{
    Element `i` along `axis` is the sum of elements `0..i` of `input` (with
    `exclusive`, `0..i-1`; with `reverse`, the sums run from the end).

    ```mlir
    %c = dist.cumsum %x axis = 1 {exclusive} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Dist_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Dist_NumericTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class Dist_SoftmaxLikeOp<string mnemonic, string formula> :
    Dist_Op<mnemonic, [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = formula # " along one axis";
  let description = "Computes `" # formula # "` along `axis`, numerically "
    # "stable (the maximum is subtracted first).\n\n```mlir\n%p = dist."
    # mnemonic # " %x axis = 1 : tensor<4x8xf32>\n```";
  let arguments = (ins Dist_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      int64_t rank = getType().getRank();
      int64_t axis = getAxis();  // I64Attr reads back as uint64_t.
      if (!::mlir::dist::isValidAxis(axis, rank))
        return emitOpError("axis ") << axis << " is out of range for rank "
                                    << rank << " (expected 0 <= axis < rank)";
      return ::mlir::success();
    }
  }];
}

def Dist_SoftmaxOp : Dist_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Dist_LogSoftmaxOp : Dist_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

def Dist_LayerNormOp : Dist_Op<"layer_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes `input` over the dimensions `axis` .. rank-1 to zero mean and
    unit variance (biased variance, `epsilon` added before the square root),
    then multiplies by `scale` and adds `bias`, both shaped like those trailing
    dimensions. The importer folds PyTorch's decomposed
    ReduceMean/Sub/Pow/Sqrt/Div form into this op.

    ```mlir
    %y = dist.layer_norm %x, %g, %b axis = 2 {epsilon = 1.000000e-05 : f64}
        : (tensor<2x64x128xf32>, tensor<128xf32>, tensor<128xf32>)
          -> tensor<2x64x128xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$input, Dist_FloatTensor:$scale,
                       Dist_FloatTensor:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scale `,` $bias `axis` `=` $axis attr-dict "
                       "`:` functional-type(operands, results)";
}

class Dist_LossOp<string mnemonic, string what, string inputName> :
    Dist_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = what;
  let description = "Computes " # what # ". `" # inputName # "` is `N x C` or "
    # "`N x C x d1 x ...` with the classes on dimension 1; `labels` is `N` or "
    # "`N x d1 x ...` of i64 or i32 class indices. Positions whose label equals "
    # "`ignore_index` contribute nothing and are not counted by `mean`. "
    # "With `weight` (a `C` vector of class weights), each position's loss is "
    # "scaled by its class's weight, and `mean` divides by the sum of the "
    # "weights taken instead of the number of positions. "
    # "`reduction` is `none` (per-position losses, shaped like `labels`), "
    # "`sum` or `mean` (a 0-d tensor).\n\n```mlir\n%l = dist." # mnemonic
    # " mean, %x, %labels : (tensor<8x512xf32>, tensor<8xi64>) -> tensor<f32>\n```";
  let arguments = (ins Dist_LossReductionAttr:$reduction,
                       Dist_FloatTensor:$input, Dist_IndexTensor:$labels,
                       Optional<Dist_FloatTensor>:$weight,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$reduction `,` $input `,` $labels (`weight` $weight^)? "
                       "attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::dist::inferLossResultType(
          loc, getOperationName(), adaptor.getInput().getType(),
          adaptor.getLabels().getType(),
          adaptor.getWeight() ? adaptor.getWeight().getType() : ::mlir::Type(),
          adaptor.getReduction(), types);
    }
  }];
}

def Dist_CrossEntropyOp : Dist_LossOp<"cross_entropy",
    "softmax cross-entropy of logits against class labels "
    "(ONNX SoftmaxCrossEntropyLoss)", "input">;
def Dist_NllLossOp : Dist_LossOp<"nll_loss",
    "negative log-likelihood of log-probabilities against class labels "
    "(ONNX NegativeLogLikelihoodLoss)", "input">;

#endif // DIST_IR_DISTREDUCTIONOPS_TD
