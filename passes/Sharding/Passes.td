//===- Passes.td - Splitting a training step over a device mesh -----------===//

#ifndef PASSES_SHARDING_PASSES_TD
#define PASSES_SHARDING_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistCreateMesh : Pass<"dist-create-mesh", "ModuleOp"> {
  let summary = "Give the module the device mesh its step is split over";
  let description = [{
    Gives the module its device mesh, `dist.mesh @mesh shape = ...` with
    the sizes per axis in `shape`: what `dist-data-parallel`, `dist-tensor-parallel` and
    `dist-partition` split over, and what the executable runs on (one
    process per device under `mpirun`). The first pass of the
    `dist-distribute` pipeline (`dist-compile --mesh`). A module that
    already has another mesh is an error.

    ```
    dist-opt step.mlir --dist-create-mesh=shape=2,2
    ```
  }];
  let options = [
    ListOption<"shape", "shape", "int64_t",
               "The device count of each mesh axis, e.g. 2,2">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistDataParallel : Pass<"dist-data-parallel", "ModuleOp"> {
  let summary = "Annotate a training step for data parallelism (and ZeRO)";
  let description = [{
    Marks the arguments of `function` with `dist.sharding` (a
    `#dist.sharding<[0, -]>`) for data parallelism over mesh axis `axis` of
    the module's `dist.mesh`: every
    model input is split along its first (batch) dimension, parameters and
    the step counter are replicated. With `zero` >= 1 each optimizer state
    is split along its first dimension that the axis divides (ZeRO stage 1:
    gradients are all-reduced, each rank updates its block of the state and
    of the parameters, and the parameters are all-gathered); `zero = 2` also
    reduce-scatters the gradients instead of all-reducing them (chosen by
    `dist-partition`'s `reduce-scatter`). A state no dimension of which the
    axis divides stays replicated, with a remark. Each update result gets its
    argument's sharding. An explicit `dist.sharding` already on an argument
    is kept.

    Nothing is split yet: `dist-propagate-sharding` then `dist-partition`
    turn the annotations into a per-rank program. A model input whose batch
    the axis does not divide is an error.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"train_step\"",
           "The function to annotate">,
    Option<"axis", "axis", "int64_t", "0",
           "The mesh axis the batch is split over">,
    Option<"zero", "zero", "int64_t", "0",
           "ZeRO stage: 0 (off), 1 or 2 (optimizer state split over the axis)">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistTensorParallel : Pass<"dist-tensor-parallel", "ModuleOp"> {
  let summary = "Annotate a training step with Megatron's tensor parallelism";
  let description = [{
    Finds attention (a linear layer whose output is split into equal pieces,
    each viewed as heads, and the first linear layer the pieces reach) and
    splits it by heads over mesh axis `axis`: the fused projection's weight
    and bias strided (each rank holds its heads of every piece), the output
    projection row-parallel. Attention with separate q, k and v projections
    (Hugging Face's; grouped-query too) is found from its softmax or fused
    `dist.attention`: the linear layers its scores and values come from are
    split by heads in blocks, the first linear its result reaches
    row-parallel. Heads the axis does not divide stay replicated, with a
    remark. Gated MLPs (`down(silu(gate(x)) * up(x))`) split every linear
    the second reads through elementwise ops column-parallel, the second
    row-parallel. It also finds pairs of linear layers (a matmul or gemm by a parameter weight,
    with an optional bias parameter) where the first one's output reaches the
    second one's input through elementwise ops only (an MLP: linear, GELU,
    linear), and splits them Megatron-style over mesh axis `axis`: the first
    column-parallel (weight and bias split along the output features), the
    second row-parallel (weight split along the input features). Their
    optimizer state follows their split, and so does each update result.
    Propagation and partitioning then give one all-reduce in forward (after
    the second matmul, before its bias) and one in backward (the input
    gradient of the first). A pair whose features the axis does not divide
    stays replicated, with a remark. Run it before `dist-data-parallel` on
    a 2-D mesh; that pass keeps these annotations.

    With `vocab` (the default) it also splits the classes of a
    cross-entropy loss: the output head that produces the logits
    column-parallel, and every embedding table with one row per class by
    rows (GPT-2's tied `wte`). Partitioning then rebuilds the lookup as a
    masked lookup whose partial sum is all-reduced, the embedding
    gradient's scatter as a masked scatter, and the softmax and
    cross-entropy over split classes with all-reduces of each position's
    maximum, sum of exponentials and picked log-probability: no rank ever
    holds the whole `[positions, vocabulary]` logits.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"train_step\"",
           "The function to annotate">,
    Option<"axis", "axis", "int64_t", "0",
           "The mesh axis the layers are split over">,
    Option<"vocab", "vocab", "bool", "true",
           "Also split the loss's classes: the output head column-parallel, "
           "embedding tables with a row per class by rows, and a parallel "
           "cross-entropy">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistPropagateSharding : Pass<"dist-propagate-sharding", "ModuleOp"> {
  let summary = "Derive the sharding of every value from the annotated ones";
  let description = [{
    Starting from the `dist.sharding` of the arguments and results of every
    function of a module with a `dist.mesh`, gives each op result a sharding
    through the ops' sharding rules (their `ShardingOpInterface` models,
    dialects/Dist/Sharding/), forwards and backwards until nothing changes,
    and records it on the op as `dist.sharding = [#dist.sharding<...>, ...]`
    (one per result). A factor takes
    the first split that reaches it; values nothing splits are replicated.
    An op with a split input that has no rule (or whose rule forbids the
    split) is computed whole on every rank, with a remark saying why.
  }];
  let dependentDialects = ["dist::DistDialect"];
}

def DistPartition : Pass<"dist-partition", "ModuleOp"> {
  let summary = "Turn an annotated global step into a per-rank program";
  let description = [{
    Rewrites every function of a module with a `dist.mesh` whose arguments or
    results carry `dist.sharding` into the program one rank runs: argument
    and result types become local shards, each op computes its block (from
    its sharding rule and the shardings `dist-propagate-sharding` recorded),
    and explicit collectives move data where the shardings disagree:
    `dist.all_reduce` for partial sums (a split reduction such as a weight
    gradient over a split batch), `dist.reduce_scatter` when the partial
    value is wanted split, `dist.all_gather` to make a split value whole,
    and `dist.shard_slice` to take a block of a replicated one. Linear ops
    (add, sub, neg, reshape, transpose, reduce_sum, and mul, div or matmul
    by a non-partial operand) pass partial sums through, so contributions
    are combined once, where a non-linear op first needs them. A mean loss
    over split positions is computed as an all-reduced sum over an
    all-reduced count, exactly as on one device. The function gets the
    attribute `dist.partitioned`.
  }];
  let options = [
    Option<"reduceScatter", "reduce-scatter", "bool", "true",
           "A partial value wanted split is reduce-scattered (false: "
           "all-reduced, then sliced, as ZeRO stage 1)">,
    Option<"reduceWidened", "reduce-widened", "bool", "false",
           "A bfloat16 or float16 partial sum cast to float32 (a "
           "mixed-precision product's result: data-parallel weight "
           "gradients, row-parallel outputs) is cast on each rank and "
           "reduced in float32 (false: reduced in the 16-bit type, half the "
           "bytes)">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistOverlapCollectives : Pass<"dist-overlap-collectives", "func::FuncOp"> {
  let summary = "Bucket all-reduces and overlap them with computation";
  let description = [{
    Groups the `dist.all_reduce`s of a per-rank program (the gradient
    all-reduces dist-partition inserts) into buckets of about `bucket-mb`
    MiB, in the order their inputs are produced (backward produces the last
    layer's gradients first), and replaces each bucket by a
    `dist.all_reduce_start` placed right after the last of its inputs is
    produced and a `dist.wait` placed right before the first use of any of
    its results. Everything in between runs while the bucket is in flight.
    All-reduces join a bucket only with the same kind, mesh axes and element
    type, and only while the bucket can still start before its first
    result is needed.

    ```mlir
    %g1 = dist.matmul ...              // last layer's weight gradient
    %b, %q = dist.all_reduce_start sum, %g1, %gb1 axes = [0] : ... -> (tensor<N>, i64)
    %g0 = dist.matmul ...              // overlaps the all-reduce
    %r:2 = dist.wait %q, %b : tensor<N> -> ...
    ```
  }];
  let options = [
    Option<"bucketMb", "bucket-mb", "::mlir::dist::ExactDouble", "25.0",
           "Bucket size in MiB (a bucket closes once it reaches this size)">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistExplainPlan : Pass<"dist-explain-plan", "ModuleOp"> {
  let summary = "Print how a partitioned step splits its tensors and communicates";
  let description = [{
    For every per-rank program (`dist.partitioned`) of a module, prints to
    standard output the mesh, then each argument (parameters, optimizer
    state, inputs) with its global shape and how it is split, and each
    collective in program order with its kind, the bytes each rank sends or
    receives, its mesh axes and the op whose result it moves (recorded by
    `dist-partition` as a name around the collective's location), and
    totals. Parameters the step does not train (buffers, `--frozen`) are
    listed as `frozen`. A module without a mesh gets the same list of the
    arguments of its training step (a function with a `dist.step`
    argument), on one device. With `device-spec` (a built-in device such
    as `h100-sxm`, or a description file), it ends with the step's
    predicted time on that device (passes/CostModel/CostModel.h): compute,
    exposed communication and pipeline bubble. Changes nothing.
    `dist-compile --explain` runs it.
  }];
  let options = [
    Option<"deviceSpec", "device-spec", "std::string", "\"\"",
           "Predict the step's time on this device (a built-in name or a "
           "JSON file)">,
    Option<"function", "function", "std::string", "\"train_step\"",
           "The training step (with pipeline stages: its stages' programs)">,
    Option<"format", "format", "std::string", "\"text\"",
           "text, or json: one JSON object per line (a plan per function, "
           "then the prediction), for tools">,
  ];
}


def DistPipelineSplit : Pass<"dist-pipeline-split", "ModuleOp"> {
  let summary = "Cut the forward into balanced pipeline stages";
  let description = [{
    Cuts the ops of `function` (the model's forward with its loss, before
    `dist-autodiff`), in order, into `stages` contiguous runs and tags each
    op with its stage (`dist.stage`), each parameter argument with the first
    stage that reads it. The cut minimizes the slowest stage's time: its
    ops' cost (FLOPs of products and convolutions plus 16 FLOPs per byte
    they move, `passes/Sharding/OpCost.h`) plus 64 FLOPs per byte of the
    values crossing its cuts, by a dynamic program over the cut positions.
    Every stage computes something: more stages than ops that compute is an
    error. With `memory-limit`, no stage may hold more (its parameters with
    their gradients and `state-slots` optimizer tensors, and the forward
    values of the micro-batches in flight: all `microbatches` under GPipe,
    S - s on stage s under 1F1B); no such cut is an error saying the least
    any cut needs. A parameter read by several stages (tied embeddings) is
    remarked on. `dist-autodiff` gives each backward op its forward op's stage, and
    `dist-pipeline-schedule` builds the per-stage programs. With `explain`
    it prints each stage's ops, cost, parameters and the bytes crossing
    each cut.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"forward\"",
           "The forward function (with its loss) to cut">,
    Option<"stages", "stages", "int64_t", "2", "The number of stages">,
    Option<"explain", "explain", "bool", "false",
           "Print the stages and why the cuts are where they are">,
    Option<"microbatches", "microbatches", "int64_t", "1",
           "Micro-batches per step (for the activations in flight)">,
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "gpipe keeps every micro-batch's activations, 1f1b and "
           "interleaved at most S - s on stage s">,
    Option<"stateSlots", "state-slots", "int64_t", "0",
           "Optimizer state tensors per parameter (adamw 2, momentum 1)">,
    Option<"memoryLimitMib", "memory-limit", "double", "0.0",
           "MiB a stage may hold (0: no limit)">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}


def DistPipelineMicrobatch : Pass<"dist-pipeline-microbatch", "ModuleOp"> {
  let summary = "Split the step's batch into micro-batches, as a mesh axis";
  let description = [{
    Appends an axis of size `microbatches` to the module's `dist.mesh`,
    marks it as the micro-batch axis (`dist.microbatch_axis`: turns in
    time, not devices), and splits dimension 0 of every model input of
    `function` over it. `dist-propagate-sharding` and `dist-partition` then
    build the step of one micro-batch, and `dist-pipeline-schedule` runs it
    once per micro-batch on each pipeline stage. A batch the micro-batches
    do not divide is an error; so is an input whose batch another axis
    already splits (data parallelism with pipeline stages: not yet).
  }];
  let options = [
    Option<"function", "function", "std::string", "\"train_step\"",
           "The step to split">,
    Option<"microbatches", "microbatches", "int64_t", "1",
           "Micro-batches per step">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}


def DistPipelineSchedule : Pass<"dist-pipeline-schedule", "ModuleOp"> {
  let summary = "Build one program per pipeline stage from the staged step";
  let description = [{
    On the partitioned step of one micro-batch (`dist-pipeline-microbatch`,
    `dist-propagate-sharding`, `dist-partition`) whose ops carry their
    pipeline stage (`dist-pipeline-split` before `dist-autodiff`), builds
    `<function>_stage<k>` for each coordinate k of mesh axis `axis`: the
    stage's prologue (values other stages read every step), its forward and
    backward micro-batch steps in the order of `schedule` (`gpipe`: all
    forwards, then all backwards; `1f1b`: S - 1 - k forwards, then one
    forward and one backward in turn; `interleaved`, with `virtual-stages`
    V >= 2: each rank runs V chunks of the model, chunk c of the cut on
    rank c % S, in Megatron's interleaved 1F1B order, micro-batches in
    groups of S), and its epilogue (the optimizer of
    its parameters). Values crossing stages become `dist.send` /
    `dist.recv` pairs with one tag each; values every stage can compute
    (inputs, step, hyperparameters, constants) are computed where needed.
    Collectives over the micro-batch axis become sums over the
    micro-batches: gradients accumulate, the loss adds up. Every stage
    returns the step's outputs and the updates of its own parameters and
    state. The stages' programs are then run against each other
    symbolically: a receive that can never complete is an error naming it.
    The micro-batch axis leaves the mesh; the module gets `dist.pipeline`.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"train_step\"",
           "The partitioned step">,
    Option<"pipelineAxis", "axis", "int64_t", "0",
           "The mesh axis of the pipeline stages">,
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "gpipe, 1f1b or interleaved">,
    Option<"virtualStages", "virtual-stages", "int64_t", "1",
           "Model chunks per rank (interleaved: the cut's stage c runs on "
           "rank c % S)">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}


def DistPipelineZero : Pass<"dist-pipeline-zero", "ModuleOp"> {
  let summary = "ZeRO-1 inside pipeline stages: split each stage's optimizer "
                "state over the data-parallel axis";
  let description = [{
    On the stages' programs (`dist-pipeline-schedule`): for each parameter a
    stage holds, its optimizer state is split along the first dimension
    that the data-parallel axis `axis` divides (and no other axis splits).
    The update (the pointwise ops between the parameter, its whole
    all-reduced gradient and its state, and the updated parameter and
    state) runs on this rank's block, its other operands sliced
    (`dist.shard_slice`), and the updated parameter is all-gathered. The
    values are the same element for element. A parameter whose update reads
    anything else, or whose state no dimension can split, keeps its state
    whole (a remark says why). Every stage's program declares the split
    state, so the stages describe the same arguments.
  }];
  let options = [
    Option<"axis", "axis", "int64_t", "0",
           "The data-parallel mesh axis">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistPipelineVerify : Pass<"dist-pipeline-verify", "ModuleOp"> {
  let summary = "Check that the pipeline stages' programs cannot deadlock";
  let description = [{
    Runs the programs of the module's pipeline stages (`dist.pipeline`'s
    `functions`, one per coordinate of its `axis`) against each other:
    sends never wait (they are buffered), each receive waits for the send
    with its tag. Fails, naming where each stuck stage waits, if they cannot
    all finish; also for a tag sent twice, a receive whose peer or type
    differs from its send's, or a send nobody receives.
    `dist-pipeline-schedule` runs the same check on what it builds.
  }];
  let dependentDialects = ["dist::DistDialect"];
}

#endif // PASSES_SHARDING_PASSES_TD
