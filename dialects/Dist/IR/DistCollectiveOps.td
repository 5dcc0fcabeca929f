//===- DistCollectiveOps.td - Communication between the ranks of a mesh ---===//
//
// The ops partitioning (dist-partition) inserts into a per-rank program. Each
// names the mesh axes (indices into the module's `dist.mesh`) whose ranks
// take part: a rank's *group* for axes A is the ranks that share its mesh
// coordinates on every other axis, ordered by their coordinates on A
// (row-major, lower axis outer). Every rank runs the same program, so every
// rank reaches the same collectives in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTCOLLECTIVEOPS_TD
#define DIST_IR_DISTCOLLECTIVEOPS_TD

class Dist_CollectiveOp<string mnemonic, list<Trait> traits = []> :
    Dist_Op<mnemonic, !listconcat([Pure], traits)> {
  let hasVerifier = 1;
}

def Dist_AllReduceOp : Dist_CollectiveOp<"all_reduce",
                                         [SameOperandsAndResultType]> {
  let summary = "combines a tensor elementwise across a group of ranks";
  let description = [{
    Every rank of the group gets the elementwise `kind` (sum, max, min, or
    mean: the sum divided by the group size) of the group's `input`s.

    ```mlir
    %g = dist.all_reduce sum, %partial axes = [0] : tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Dist_CollectiveKindAttr:$kind, Dist_NumericTensor:$input,
                       DenseI64ArrayAttr:$axes);
  let results = (outs Dist_NumericTensor:$result);
  let assemblyFormat = "$kind `,` $input `axes` `=` $axes attr-dict `:` "
                       "type($input)";
}

def Dist_AllGatherOp : Dist_CollectiveOp<"all_gather"> {
  let summary = "concatenates the group's tensors along a dimension";
  let description = [{
    The result is the group's `input`s concatenated along `dim` in group
    order; that dimension grows by the group size.

    ```mlir
    %w = dist.all_gather %shard dim = 0 axes = [1]
        : (tensor<32x64xf32>) -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, I64Attr:$dim,
                       DenseI64ArrayAttr:$axes);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim `axes` `=` $axes attr-dict `:` "
                       "functional-type(operands, results)";
}

def Dist_ReduceScatterOp : Dist_CollectiveOp<"reduce_scatter"> {
  let summary = "combines the group's tensors and keeps this rank's block";
  let description = [{
    Splits `dim` into as many equal blocks as the group has ranks; rank `g`
    of the group gets block `g` of the elementwise `kind` of the group's
    `input`s.

    ```mlir
    %g = dist.reduce_scatter sum, %partial dim = 0 axes = [0]
        : (tensor<64x32xf32>) -> tensor<32x32xf32>
    ```
  }];
  let arguments = (ins Dist_CollectiveKindAttr:$kind, Dist_NumericTensor:$input,
                       I64Attr:$dim, DenseI64ArrayAttr:$axes);
  let results = (outs Dist_NumericTensor:$result);
  let assemblyFormat = "$kind `,` $input `dim` `=` $dim `axes` `=` $axes "
                       "attr-dict `:` functional-type(operands, results)";
}

def Dist_ShardSliceOp : Dist_CollectiveOp<"shard_slice"> {
  let summary = "this rank's block of a tensor every rank holds";
  let description = [{
    Splits `dim` into as many equal blocks as the group has ranks and keeps
    block `g` on the group's rank `g`. No communication.

    ```mlir
    %x = dist.shard_slice %batch dim = 0 axes = [0]
        : (tensor<8x32xf32>) -> tensor<4x32xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, I64Attr:$dim,
                       DenseI64ArrayAttr:$axes);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim `axes` `=` $axes attr-dict `:` "
                       "functional-type(operands, results)";
}

// A start and its wait change the runtime's requests in flight: they have
// effects, so that CSE never merges two starts (one bucket, two waits) and
// nothing drops a wait.
def Dist_AllReduceStartOp : Dist_Op<"all_reduce_start",
    [MemoryEffects<[MemRead, MemWrite]>,
     DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "starts one all-reduce of a bucket of tensors";
  let description = [{
    Starts a non-blocking all-reduce of the concatenation of `inputs` (all
    of one element type), read at this point. The results are the bucket in
    flight, flattened, and the runtime's handle of the request; both have
    exactly one use, the `dist.wait` that completes the request and splits
    the bucket back into the reduced tensors. Computation placed between the
    two overlaps the communication. `dist-overlap-collectives` builds these
    from `dist.all_reduce`s.

    ```mlir
    %b, %r = dist.all_reduce_start sum, %g0, %g1 axes = [0]
        : (tensor<64x32xf32>, tensor<64xf32>) -> (tensor<2112xf32>, i64)
    %r0, %r1 = dist.wait %r, %b : tensor<2112xf32> -> tensor<64x32xf32>, tensor<64xf32>
    ```

    On buffers the request is `distrt_all_reduce_start`'s result, the
    handle `distrt_wait` takes.
  }];
  let arguments = (ins Dist_CollectiveKindAttr:$kind,
                       Variadic<Dist_NumericTensor>:$inputs,
                       DenseI64ArrayAttr:$axes);
  let results = (outs Dist_NumericTensor:$bucket, I64:$request);
  let assemblyFormat = "$kind `,` $inputs `axes` `=` $axes attr-dict `:` "
                       "functional-type($inputs, results)";
  let hasVerifier = 1;
}

def Dist_WaitOp : Dist_Op<"wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "completes a started all-reduce and splits its bucket";
  let description = [{
    Completes the request of a `dist.all_reduce_start` (its `request`
    result) and returns the reduced tensors of its `bucket`, in the start's
    order and with its input types.
  }];
  let arguments = (ins I64:$request, Dist_NumericTensor:$bucket);
  let results = (outs Variadic<Dist_NumericTensor>:$results);
  let assemblyFormat = "$request `,` $bucket attr-dict `:` type($bucket) `->` "
                       "type($results)";
  let hasVerifier = 1;
}


def Dist_SendOp : Dist_Op<"send", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "sends a tensor to another pipeline stage";
  let description = [{
    Sends `input` to the rank whose mesh coordinates are this rank's except
    on `axis`, where it is `peer` (the receiving stage). The matching
    `dist.recv` on that rank names this rank's coordinate and the same
    `tag`; messages between two ranks arrive in the order they were sent.
    Pipeline parallelism (`dist-pipeline-schedule`) sends activations to
    the next stage and their gradients back.

    ```mlir
    dist.send %h to 1 axis = 0 tag = 3 : tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, I64Attr:$axis, I64Attr:$peer,
                       I64Attr:$tag);
  let assemblyFormat = "$input `to` $peer `axis` `=` $axis `tag` `=` $tag "
                       "attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Dist_RecvOp : Dist_Op<"recv", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "receives a tensor from another pipeline stage";
  let description = [{
    Receives the tensor the rank at coordinate `peer` on `axis` (the other
    coordinates this rank's) sent with `dist.send` and the same `tag`.

    ```mlir
    %h = dist.recv from 0 axis = 0 tag = 3 : tensor<4x16xf32>
    ```
  }];
  let arguments = (ins I64Attr:$axis, I64Attr:$peer, I64Attr:$tag);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "`from` $peer `axis` `=` $axis `tag` `=` $tag "
                       "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // DIST_IR_DISTCOLLECTIVEOPS_TD
