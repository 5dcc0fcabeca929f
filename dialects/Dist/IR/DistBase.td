//===- DistBase.td - The dist dialect: definition and type constraints ----===//
//
// The `dist` dialect holds one global, single-device training graph with static
// shapes. Ops are coarse (layer norm, softmax, cross-entropy are single ops) so
// that autodiff, rematerialization, sharding and cost modelling reason about a
// few hundred ops, not tens of thousands.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTBASE_TD
#define DIST_IR_DISTBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::mlir::dist";
  let summary = "Coarse tensor ops of a model's training step, before distribution";
  let description = [{
    The `dist` dialect is the graph representation of dist-opt. A module holds
    `dist.parameter` symbols (the model's weights and buffers, with their
    initial values) and functions whose arguments are model inputs or
    parameters. A function argument that is a parameter carries the argument
    attribute `dist.parameter = @name`, which later passes (autodiff, the
    optimizer, sharding, checkpointing) use to find the weights. Model inputs
    and outputs may carry `dist.input_name` / `dist.output_name`, the names
    users know them by (an imported model's ONNX names).

    All values are ranked tensors of static shape with element type f32, f16,
    bf16, f64, i64, i32 or i1. Ops have value semantics; binary elementwise ops
    broadcast like numpy. Ops whose operands and result share one type print
    that type once; every other op prints its functional type.

    ```mlir
    dist.parameter @"fc.weight" : tensor<4x8xf32> = dense<0.5> : tensor<4x8xf32>
    dist.parameter @"fc.bias" : tensor<4xf32> = dense<0.0> : tensor<4xf32>

    func.func @forward(%x: tensor<2x8xf32>,
                       %w: tensor<4x8xf32> {dist.parameter = @"fc.weight"},
                       %b: tensor<4xf32> {dist.parameter = @"fc.bias"})
        -> tensor<2x4xf32> {
      %y = dist.gemm %x, %w, %b {transpose_b}
          : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
      %r = dist.relu %y : tensor<2x4xf32>
      return %r : tensor<2x4xf32>
    }
    ```
  }];
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// The argument attribute that marks a function argument as a parameter.
    static constexpr ::llvm::StringLiteral kParameterAttrName = "dist.parameter";
    /// The name a model gives an input or output (e.g. its ONNX name), by
    /// which users feed and read it.
    static constexpr ::llvm::StringLiteral kInputNameAttrName = "dist.input_name";
    static constexpr ::llvm::StringLiteral kOutputNameAttrName = "dist.output_name";
    /// On a result of a gradient function (dist-autodiff): the parameter
    /// (@name) whose gradient it is.
    static constexpr ::llvm::StringLiteral kGradientAttrName = "dist.gradient";
    /// A unit attribute on the gradient function the workers of
    /// parameter-server mode run (dist-ps-server-gradients): its interface
    /// describes its inputs' index ranges, as a trainer's does.
    static constexpr ::llvm::StringLiteral kPsWorkerAttrName = "dist.ps_worker";
    /// On a result of a training step (dist-optimizer): the index of the
    /// argument (a parameter or optimizer state) the result is the new value
    /// of; dist-update-in-place writes it there.
    static constexpr ::llvm::StringLiteral kUpdatesAttrName = "dist.updates";
    /// On the argument of a training step (dist-optimizer) that counts the
    /// steps, 1 for the first.
    static constexpr ::llvm::StringLiteral kStepAttrName = "dist.step";
    /// Marks the training step's argument that holds the run's random seed
    /// (an i64 scalar the trainer sets from --seed); dropout masks are keyed
    /// by it and by the step.
    static constexpr ::llvm::StringLiteral kSeedAttrName = "dist.seed";
    /// Marks the argument of a gradient function (dist-autodiff with
    /// loss-scale-argument) that seeds the backward: an f32 scalar, the
    /// loss scale, instead of 1.
    static constexpr ::llvm::StringLiteral kLossScaleAttrName =
        "dist.loss_scale";
    /// Marks an argument of a training step that holds a hyperparameter
    /// (an f64 scalar set by the trainer at run time, e.g. "lr"): its name.
    static constexpr ::llvm::StringLiteral kHyperparameterAttrName =
        "dist.hyperparameter";
    /// On an argument of a training step that holds optimizer state: a
    /// #dist.optimizer_state naming its parameter and slot.
    static constexpr ::llvm::StringLiteral kOptimizerStateAttrName =
        "dist.optimizer_state";
    /// On a function argument or result: how the tensor is split over the
    /// module's `dist.mesh`, a #dist.sharding. On an op (dist-propagate-
    /// sharding): an array of them, one per result.
    static constexpr ::llvm::StringLiteral kShardingAttrName = "dist.sharding";
    /// On a function argument a sharding pass split: why, in words, for
    /// --explain (a string).
    static constexpr ::llvm::StringLiteral kSplitReasonAttrName =
        "dist.split_reason";
    /// On a function partitioned by dist-partition: its argument and result
    /// types are the local shards their `dist.sharding` describes.
    static constexpr ::llvm::StringLiteral kPartitionedAttrName =
        "dist.partitioned";
    /// On a training step (dist-optimizer): the compiled values of its
    /// hyperparameters, a dictionary of name to number; dist-describe-model
    /// moves them into the interface's `meta` lines.
    static constexpr ::llvm::StringLiteral kMetaAttrName = "dist.meta";
    /// On a lowered module (dist-describe-model): the entry's interface
    /// descriptor text, and which argument each result of the entry
    /// overwrites (array<i64>, -1 for an output).
    static constexpr ::llvm::StringLiteral kModelInterfaceAttrName =
        "dist.model_interface";
    static constexpr ::llvm::StringLiteral kModelUpdatesAttrName =
        "dist.model_updates";
    /// On a collective convert-dist-to-linalg made signless: its element
    /// type was unsigned (the runtime's min and max differ).
    static constexpr ::llvm::StringLiteral kUnsignedAttrName = "dist.unsigned";
    /// On an integer input of a partitioned function: the values it may
    /// take, [0, n) (the rows or classes it indexes, which the per-rank
    /// program may no longer show whole).
    static constexpr ::llvm::StringLiteral kIndexRangeAttrName =
        "dist.index_range";
    /// On an integer input of a partitioned function: a value it may take
    /// besides [0, n), which every loss it labels ignores (ignore_index).
    static constexpr ::llvm::StringLiteral kIndexIgnoreAttrName =
        "dist.index_ignore";
    /// Pipeline parallelism (dist-pipeline-split): on an op of the step, or
    /// a parameter argument, the pipeline stage it belongs to (i64); on the
    /// ops dist-autodiff builds for a staged op, also `dist.backward`.
    static constexpr ::llvm::StringLiteral kStageAttrName = "dist.stage";
    static constexpr ::llvm::StringLiteral kBackwardAttrName = "dist.backward";
    /// On a module split into pipeline stages (dist-pipeline-schedule): a
    /// dictionary {axis, stages, microbatches, schedule, functions}: the
    /// mesh axis of the stages and the function each stage runs.
    static constexpr ::llvm::StringLiteral kPipelineAttrName = "dist.pipeline";
    /// On a `dist.cast` narrowing a parameter's gradient for its reduction
    /// (dist-optimizer{grad-compression}): each rank rounds its part, and
    /// the sum over the ranks is taken after it, in the narrow type.
    static constexpr ::llvm::StringLiteral kCompressedAttrName =
        "dist.compressed";
    /// Per-rank values in the global view (PowerSGD's error feedback,
    /// dist-optimizer{grad-compression=powersgd:R}). On a `dist.broadcast`
    /// that adds a leading dimension of the data-parallel size: the ranks'
    /// parts of a sum, stacked (rank r's slice is its partial value, not
    /// the sum). On a `dist.reduce_sum` over such a stacked dimension
    /// (i64): the sum is taken whole where it is made, and stands for that
    /// many bytes of uncompressed gradient (for --explain). On an argument
    /// (unit): a tensor stacked over the data-parallel ranks, each holding
    /// its own slice of dimension 0.
    static constexpr ::llvm::StringLiteral kRankPartsAttrName =
        "dist.rank_parts";
    static constexpr ::llvm::StringLiteral kRankSumAttrName = "dist.rank_sum";
    static constexpr ::llvm::StringLiteral kPerRankAttrName = "dist.per_rank";
    /// On the `dist.mesh` of a module whose step is split into micro-batches
    /// (dist-pipeline-microbatch): {axis, microbatches, appended}: the mesh
    /// axis whose coordinates are the micro-batches a device runs one after
    /// the other (`appended`: an axis of its own), or (device, micro-batch)
    /// pairs, micro-batch minor (data parallelism's axis, `microbatches`
    /// times its devices).
    static constexpr ::llvm::StringLiteral kMicrobatchAxisAttrName =
        "dist.microbatch_axis";
    /// On a dist.all_reduce of dist-pipeline-schedule: a sum over the
    /// micro-batches (not over devices).
    static constexpr ::llvm::StringLiteral kMicrobatchSumAttrName =
        "dist.microbatch_sum";
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Dist_FloatElement : AnyTypeOf<[F32, F16, BF16, F64]>;
def Dist_Tensor : StaticShapeTensorOf<[F32, F16, BF16, F64, I64, I32, I16, I8,
                                       UI64, UI32, UI16, UI8, I1]>;
def Dist_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16, F64]>;
def Dist_NumericTensor : StaticShapeTensorOf<[F32, F16, BF16, F64, I64, I32,
                                              I16, I8, UI64, UI32, UI16, UI8]>;
def Dist_SignedTensor : StaticShapeTensorOf<[F32, F16, BF16, F64, I64, I32,
                                             I16, I8]>;
def Dist_IndexTensor : StaticShapeTensorOf<[I64, I32]>;
def Dist_BoolTensor : StaticShapeTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

class Dist_Op<string mnemonic, list<Trait> traits = []> :
    Op<Dist_Dialect, mnemonic, traits>;

#endif // DIST_IR_DISTBASE_TD
