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

#endif // DIST_IR_DISTCONTRACTIONOPS_TD
