//===- DistAttrs.td - Attributes of the dist dialect ----------------------===//
//
// The typed attributes the distribution passes exchange: how a tensor is
// split over the device mesh, and which parameter an optimizer state
// belongs to.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTATTRS_TD
#define DIST_IR_DISTATTRS_TD

include "dialects/Dist/IR/DistBase.td"
include "mlir/IR/AttrTypeBase.td"

class Dist_Attr<string name, string attrMnemonic> :
    AttrDef<Dist_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Dist_ShardingAttr : Dist_Attr<"Sharding", "sharding"> {
  let summary = "how a tensor is split over the module's device mesh";
  let description = [{
    One entry per tensor dimension: the mesh axis (of the module's
    `dist.mesh`) that dimension is split over, `(a, b)` for several axes
    (major first), `-` when it is whole. A dimension of size n split over axes of k ranks in all holds
    n / k elements on each rank.

    A *strided* split, `a/g`, views the dimension as g equal groups and
    splits each group over the axes: a rank holds its block of every group.
    This is how a fused weight is split by what it fuses: GPT-2's QKV weight
    [3D, D] split by heads over axis 0 is `[0/3, -]` (rank r holds its
    heads of q, k and v).

    `partial = [a, ...]` says the ranks of those axes hold contributions of
    the value still to be summed.

    ```mlir
    #dist.sharding<[0, -]>             // rows split over axis 0
    #dist.sharding<[-, (0, 1)]>        // columns over axes 0 and 1
    #dist.sharding<[0/3, -]>           // axis 0, in 3 groups
    #dist.sharding<[-, -], partial = [1]>
    ```

    An axis appears at most once in a sharding. Which shapes and meshes a
    sharding fits is checked where it is used (a function argument's
    type and the module's mesh).
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::DenseI64ArrayAttr",
                      "the mesh axes splitting each dimension">:$splitAxes,
    ArrayRefParameter<"int64_t",
                      "groups per dimension (1: a block split)">:$groups,
    OptionalArrayRefParameter<"int64_t",
                              "mesh axes of pending partial sums">:$partialAxes
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<::mlir::dist::DimSharding>":$dims,
                     CArg<"::llvm::ArrayRef<int64_t>", "{}">:$partial)>
  ];
  let extraClassDeclaration = [{
    int64_t getRank() const { return getSplitAxes().size(); }
    /// One DimSharding per dimension; failure (with a diagnostic naming
    /// `what`) when a dimension is split over several mesh axes, which the
    /// partitioner does not do yet.
    ::llvm::FailureOr<::llvm::SmallVector<::mlir::dist::DimSharding>>
    getDims(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
            ::llvm::StringRef what) const;
    /// Whether no dimension is split and nothing is partial.
    bool isReplicated() const;
  }];
}

def Dist_OptimizerStateAttr :
    Dist_Attr<"OptimizerState", "optimizer_state"> {
  let summary = "an optimizer state tensor, of a parameter or of the step";
  let description = [{
    On an argument of a training step: the optimizer state it holds, slot
    `slot` (e.g. "exp_avg") of parameter `parameter`. Its checkpoint name is
    `<parameter>.<slot>`; distribution splits it as its parameter. Without
    a parameter it is state of the whole step (a loss scaler's scale,
    named `<slot>`), replicated. The trainer starts it at zero, or at
    `init`.

    ```mlir
    %m: tensor<4x8xf32> {dist.optimizer_state =
                             #dist.optimizer_state<@"fc.weight", "exp_avg">}
    %s: tensor<f32> {dist.optimizer_state =
                         #dist.optimizer_state<"loss_scale", init = 65536.0>}
    ```
  }];
  let parameters = (ins
      OptionalParameter<"::mlir::FlatSymbolRefAttr">:$parameter,
      "::mlir::StringAttr":$slot,
      OptionalParameter<"::mlir::FloatAttr">:$init);
  let assemblyFormat =
      "`<` ($parameter^ `,` ` `)? $slot (`,` `init` `=` $init^)? `>`";
  let builders = [
    AttrBuilder<(ins "::mlir::FlatSymbolRefAttr":$parameter,
                     "::mlir::StringAttr":$slot), [{
      return $_get($_ctxt, parameter, slot, ::mlir::FloatAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// `<parameter>.<slot>` (or `<slot>`): the state's name in checkpoints
    /// and messages.
    std::string getName() const {
      if (!getParameter())
        return getSlot().getValue().str();
      return (getParameter().getValue() + "." + getSlot().getValue()).str();
    }
  }];
}

#endif // DIST_IR_DISTATTRS_TD
