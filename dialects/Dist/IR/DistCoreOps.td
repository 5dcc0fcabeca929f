//===- DistCoreOps.td - Constants, parameters, barriers -------------------===//

#ifndef DIST_IR_DISTCOREOPS_TD
#define DIST_IR_DISTCOREOPS_TD

def Dist_ConstantOp : Dist_Op<"constant", [ConstantLike, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a constant tensor";
  let description = [{
    ```mlir
    %c = dist.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %z = dist.constant dense<0.0> : tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def Dist_OptimizationBarrierOp : Dist_Op<"optimization_barrier",
    [MemoryEffects<[MemWrite]>, SameOperandsAndResultType]> {
  let summary = "the same tensor, as a value no optimization merges";
  let description = [{
    Returns its operand. It keeps common-subexpression elimination from
    merging ops that read it with ops that read the operand directly, and
    elementwise fusion from fusing the operand's producer into them:
    `dist-remat` recomputes forward values in the backward pass from
    barriers of the values it keeps, so that the recomputation stays a
    recomputation (placed where the backward needs it) instead of being
    merged back into the forward op it copies, and the forward ops it
    copies read a barrier too, so both are compiled alike (a reduction's
    order is that of its kernel). Declared as writing memory so that no
    two barriers of one value are merged and none is moved; it has no
    folder; one-shot bufferization gives the result the operand's buffer
    (no copy).

    A `transparent` barrier does not count as a use of its operand when
    elementwise fusion asks whether the operand's producer has a single use
    (`dist-remat` reads kept values for a recomputation through transparent
    barriers, so that the forward fuses as it did without them).

    ```mlir
    %x2 = dist.optimization_barrier %x : tensor<4x128xf32>
    %k = dist.optimization_barrier %kept transparent : tensor<4x128xf32>
    ```
  }];
  let arguments = (ins Dist_Tensor:$input, UnitAttr:$transparent);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat =
      "$input (`transparent` $transparent^)? attr-dict `:` type($result)";
}

def Dist_ParameterOp : Dist_Op<"parameter", [Symbol, HasParent<"ModuleOp">]> {
  let summary = "a model parameter (trainable weight) or buffer";
  let description = [{
    Declares one named weight of the model: its type and, optionally, its
    initial value (usually an MLIR resource blob, so that large weights are
    not printed inline). `frozen` marks a buffer that is not trained, such as
    batch-norm running statistics. A function reads a parameter through an
    argument carrying `{dist.parameter = @name}`; the argument's type must be
    the parameter's type. Autodiff differentiates with respect to the
    arguments of parameters that are not frozen; checkpoints are keyed by the
    parameter's name.

    ```mlir
    dist.parameter @"h.0.attn.c_attn.weight" : tensor<128x384xf32>
        = dense_resource<h_0_attn_c_attn_weight> : tensor<128x384xf32>
    dist.parameter frozen @"bn1.running_mean" : tensor<16xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<Dist_Tensor>:$type,
                       OptionalAttr<ElementsAttr>:$initial_value,
                       UnitAttr:$frozen);
  let assemblyFormat = "(`frozen` $frozen^)? $sym_name `:` $type "
                       "(`=` $initial_value^)? attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
    bool isTrainable() { return !getFrozen(); }
  }];
}

def Dist_MeshOp : Dist_Op<"mesh", [
    DeclareOpInterfaceMethods<Symbol, ["canDiscardOnUseEmpty"]>,
    HasParent<"ModuleOp">]> {
  let summary = "the device mesh a module is distributed over";
  let description = [{
    The devices (ranks) a partitioned module runs on, as a grid: the size of
    each mesh axis, axis 0 outermost (rank = ((i0 * s1) + i1) * s2 + ...).
    A module has at most one mesh; `#dist.sharding` attributes and
    collectives name its axes by index.

    ```mlir
    dist.mesh @mesh shape = 2x4   // 8 ranks: 2 data-parallel groups of 4
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$shape);
  let assemblyFormat = "$sym_name `shape` `=` custom<MeshShape>($shape) "
                       "attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of devices (ranks) of the mesh.
    int64_t getNumDevices() {
      int64_t n = 1;
      for (int64_t size : getShape())
        n *= size;
      return n;
    }
  }];
}

#endif // DIST_IR_DISTCOREOPS_TD
