//===- DistShapeOps.td - Data movement ops of the dist dialect ------------===//

#ifndef DIST_IR_DISTSHAPEOPS_TD
#define DIST_IR_DISTSHAPEOPS_TD

def Dist_TransposeOp : Dist_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %t = dist.transpose %x permutation = [0, 2, 1, 3]
        : (tensor<2x64x4x32xf32>) -> tensor<2x4x64x32xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input `permutation` `=` $permutation attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
}

def Dist_ReshapeOp : Dist_Op<"reshape", [Pure]> {
  let summary = "reinterprets a tensor with another shape of the same size";
  let description = [{
    Keeps the elements in row-major order and gives them the result's shape;
    both shapes hold the same number of elements.

    ```mlir
    %r = dist.reshape %x : (tensor<2x64x128xf32>) -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dist_BroadcastOp : Dist_Op<"broadcast", [Pure]> {
  let summary = "broadcasts a tensor to a larger shape (ONNX Expand)";
  let description = [{
    Numpy broadcasting to the result shape: the input's dimensions align with
    the result's trailing dimensions, and each is 1 or equal to its result
    dimension.

    ```mlir
    %b = dist.broadcast %x : (tensor<1x128xf32>) -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dist_SliceOp : Dist_Op<"slice", [Pure]> {
  let summary = "strided slice with one start and stride per dimension";
  let description = [{
    Result element `(i0, i1, ...)` is input element
    `(starts[0] + i0 * strides[0], starts[1] + i1 * strides[1], ...)`. Strides
    are non-zero and may be negative (reversed slices); the result's shape
    gives the number of elements taken along each dimension, and every index
    taken lies inside the input.

    ```mlir
    %s = dist.slice %x starts = [0, 128] strides = [1, 1]
        : (tensor<64x384xf32>) -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input `starts` `=` $starts `strides` `=` $strides "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dist_InsertSliceOp : Dist_Op<"insert_slice",
    [Pure, AllTypesMatch<["dest", "result"]>]> {
  let summary = "writes a tensor into a strided slice of another";
  let description = [{
    The inverse of `dist.slice`: the result is `dest` with element
    `(starts[0] + i0 * strides[0], ...)` replaced by `source[i0, ...]`.
    `source` has `dest`'s rank and element type; strides are non-zero and may
    be negative, and every position written lies inside `dest`. Autodiff
    builds the gradient of a slice as this op into zeros.

    ```mlir
    %r = dist.insert_slice %s into %x starts = [0, 128] strides = [1, 1]
        : tensor<64x128xf32> into tensor<64x384xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$source, Dist_Tensor:$dest,
                       DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$strides);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$source `into` $dest `starts` `=` $starts `strides` `=` "
                       "$strides attr-dict `:` type($source) `into` type($dest)";
  let hasVerifier = 1;
}

def Dist_ConcatOp : Dist_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "joins tensors along one dimension";
  let description = [{
    All inputs have the same element type, the same rank, and the same sizes
    except along `axis`.

    ```mlir
    %c = dist.concat %a, %b axis = 1
        : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Variadic<Dist_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
}

def Dist_SplitOp : Dist_Op<"split", [Pure]> {
  let summary = "cuts a tensor into consecutive pieces along one dimension";
  let description = [{
    The results' sizes along `axis` add up to the input's; every other
    dimension and the element type are the input's.

    ```mlir
    %q, %k, %v = dist.split %qkv axis = 2 : (tensor<2x64x384xf32>)
        -> (tensor<2x64x128xf32>, tensor<2x64x128xf32>, tensor<2x64x128xf32>)
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, I64Attr:$axis);
  let results = (outs Variadic<Dist_Tensor>:$results);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dist_GatherOp : Dist_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "takes slices by index along one axis (embedding lookup)";
  let description = [{
    Result shape is `input.shape[:axis] + indices.shape + input.shape[axis+1:]`.
    Indices lie in `[-size, size)` of dimension `axis`; negative ones count
    from the end. With `axis = 0` on a `vocab x width` parameter this is the
    token or position embedding of a language model.

    ```mlir
    %e = dist.gather %wte[%ids] axis = 0
        : (tensor<512x128xf32>, tensor<2x64xi64>) -> tensor<2x64x128xf32>
    ```

    `padding_idx` (axis 0 only) is `nn.Embedding`'s: the value is the same,
    but lookups of that row give it no gradient (what the table's gradient
    gets from other uses, a tied output head's, stays). ONNX's Gather
    cannot say so; the importer sets it from `python/dist_export.py`'s
    `dist.padding_idx` metadata or `dist-compile --padding-idx`.

    ```mlir
    %e = dist.gather %wte[%ids] axis = 0 {padding_idx = 1 : i64}
        : (tensor<512x128xf32>, tensor<2x64xi64>) -> tensor<2x64x128xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, Dist_IndexTensor:$indices,
                       I64Attr:$axis, OptionalAttr<I64Attr>:$padding_idx);
  let results = (outs Dist_Tensor:$result);
  let builders = [
    OpBuilder<(ins "Value":$input, "Value":$indices, "uint64_t":$axis), [{
      build($_builder, $_state, input, indices, axis,
            /*padding_idx=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let assemblyFormat = "$input `[` $indices `]` `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
}

def Dist_GatherElementsOp : Dist_Op<"gather_elements",
                                    [Pure, InferTypeOpAdaptor]> {
  let summary = "takes elements by index along one axis (ONNX GatherElements)";
  let description = [{
    `indices` has the rank of `input` and gives the result its shape; no
    dimension of it may exceed `input`'s, except along `axis`. Result element
    `[i0, .., ik, ..]` is `input[i0, .., indices[i0, .., ik, ..], ..]` with the
    index in position `axis`; indices lie in `[-size, size)` of that
    dimension, negative ones counting from the end. Picking each label's
    log-probability out of `N x C` is this op on `axis = 1`.

    ```mlir
    %p = dist.gather_elements %logp[%labels] axis = 1
        : (tensor<8x10xf32>, tensor<8x1xi64>) -> tensor<8x1xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, Dist_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input `[` $indices `]` `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
}

def Dist_ScatterAddOp : Dist_Op<"scatter_add",
    [Pure, AllTypesMatch<["dest", "result"]>]> {
  let summary = "adds slices into a tensor by index along one axis";
  let description = [{
    The transpose of `dist.gather`: `updates` is shaped like the result of
    gathering `dest` with `indices` along `axis`
    (`dest.shape[:axis] + indices.shape + dest.shape[axis+1:]`), and each of
    its slices is added to the slice of `dest` its index names. Repeated
    indices add up. Indices lie in `[-size, size)`, negative ones counting
    from the end; an index outside is a run-time error. The gradient of an
    embedding lookup is this op into zeros.

    ```mlir
    %g = dist.scatter_add %zeros[%ids] = %dy axis = 0
        : (tensor<512x128xf32>, tensor<2x64xi64>, tensor<2x64x128xf32>)
          -> tensor<512x128xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$dest, Dist_IndexTensor:$indices,
                       Dist_FloatTensor:$updates, I64Attr:$axis);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$dest `[` $indices `]` `=` $updates `axis` `=` $axis "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Dist_TriluOp : Dist_Op<"trilu", [Pure, SameOperandsAndResultType,
                                     InferTypeOpInterface]> {
  let summary = "keeps the lower or upper triangle of the last two dimensions";
  let description = [{
    For every matrix in the last two dimensions, keeps the elements on and
    below (or with `upper`, on and above) diagonal `diagonal` and sets the rest
    to zero (false for `i1`). The causal mask of attention is the lower
    triangle of a matrix of ones.

    ```mlir
    %causal = dist.trilu %ones {diagonal = 0 : i64} : tensor<64x64xi1>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$diagonal, UnitAttr:$upper);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // DIST_IR_DISTSHAPEOPS_TD
