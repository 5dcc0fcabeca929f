//===- DistContractionOps.td - Matrix products of the dist dialect --------===//

#ifndef DIST_IR_DISTCONTRACTIONOPS_TD
#define DIST_IR_DISTCONTRACTIONOPS_TD

def Dist_MatmulOp : Dist_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "batched matrix product with optional transposes";
  let description = [{
    Multiplies the last two dimensions of `lhs` (`M x K`, or `K x M` with
    `transpose_lhs`) and `rhs` (`K x N`, or `N x K` with `transpose_rhs`).
    Leading (batch) dimensions broadcast like numpy. Both operands have rank
    at least 2 and the same float element type.

    ```mlir
    %s = dist.matmul %q, %k {transpose_rhs}
        : (tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x64xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$lhs, Dist_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Multiply-adds times two: the floating-point operations of the
    /// product (a bias addition not counted), 0 when a shape is dynamic.
    int64_t getFlops();
  }];
}

def Dist_GemmOp : Dist_Op<"gemm", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D matrix product plus a broadcast bias (ONNX Gemm)";
  let description = [{
    Computes `alpha * op(a) * op(b) + beta * bias`, where `op` transposes when
    `transpose_a` / `transpose_b` is set, `op(a)` is `M x K`, `op(b)` is
    `K x N`, and the optional `bias` broadcasts to `M x N`. This is the
    `nn.Linear` of an MLP or a classifier head.

    ```mlir
    %y = dist.gemm %x, %w, %b {transpose_b}
        : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$a, Dist_FloatTensor:$b,
                       Optional<Dist_FloatTensor>:$bias,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$a `,` $b (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Multiply-adds times two: the floating-point operations of the
    /// product (a bias addition not counted), 0 when a shape is dynamic.
    int64_t getFlops();
  }];
}

def Dist_AttentionOp : Dist_Op<"attention", [Pure, InferTypeOpAdaptor]> {
  let summary = "scaled dot-product attention, without the score matrix";
  let description = [{
    `softmax(scale * query key^T, masked) value` over the last two
    dimensions, where `query` is `... x T x D`, `key` is `... x S x D` and
    `value` is `... x S x E` (the leading dimensions equal). With `causal`
    (and T = S) query row `i` sees keys `0..i` only. `result` is
    `... x T x E`; `logsumexp` (`... x T`) is the log of each row's sum of
    exponentials, which the gradient reads instead of the probabilities.

    `dist-fuse-attention` makes this op from PyTorch's decomposition
    (product, scale, causal mask, softmax, product); it lowers to loops over
    the rows that never hold a row's `S` scores in memory (an online
    softmax), so a step keeps `... x T` statistics instead of the
    `... x T x S` probabilities.

    ```mlir
    %o, %lse = dist.attention %q, %k, %v {scale = 0.125 : f64, causal}
        : (tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>)
        -> (tensor<2x4x64x32xf32>, tensor<2x4x64xf32>)
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$query, Dist_FloatTensor:$key,
                       Dist_FloatTensor:$value, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Dist_FloatTensor:$result, Dist_FloatTensor:$logsumexp);
  let assemblyFormat = "$query `,` $key `,` $value attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The FLOPs of the two products it replaces (2 per multiply-add, the
    /// masked half included, as a decomposed model counts them).
    int64_t getFlops();
  }];
}

def Dist_AttentionGradOp
    : Dist_Op<"attention_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "the gradients of dist.attention's query, key and value";
  let description = [{
    From the operands of a `dist.attention`, its `result` and `logsumexp`,
    and the gradient of its result, the gradients of `query`, `key` and
    `value`. The probabilities are recomputed from `logsumexp` row by row:
    `p = exp(scale * q.k - lse)`, `dp = dresult.v`,
    `ds = p * (dp - sum(dresult * result))`, `dquery = scale * ds key`,
    `dkey = scale * ds^T query`, `dvalue = p^T dresult`.

    ```mlir
    %dq, %dk, %dv = dist.attention_grad %q, %k, %v, %o, %lse, %do
        {scale = 0.125 : f64, causal} : (...) -> (...)
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$query, Dist_FloatTensor:$key,
                       Dist_FloatTensor:$value, Dist_FloatTensor:$result,
                       Dist_FloatTensor:$logsumexp,
                       Dist_FloatTensor:$result_grad, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Dist_FloatTensor:$query_grad,
                      Dist_FloatTensor:$key_grad,
                      Dist_FloatTensor:$value_grad);
  let assemblyFormat = "$query `,` $key `,` $value `,` $result `,` "
                       "$logsumexp `,` $result_grad attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The FLOPs of the four products of the decomposed backward.
    int64_t getFlops();
  }];
}

#endif // DIST_IR_DISTCONTRACTIONOPS_TD
