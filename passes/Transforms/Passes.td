//===- Passes.td - Graph-level transformations of the dist dialect --------===//

#ifndef PASSES_TRANSFORMS_PASSES_TD
#define PASSES_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistRaiseCoarseOps : Pass<"dist-raise-coarse-ops", "func::FuncOp"> {
  let summary = "Fold decomposed layer norm and GELU into single dist ops";
  let description = [{
    PyTorch's ONNX exporter decomposes `LayerNorm` into
    ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div(/Mul/Add) and `GELU` into
    Div/Erf/Add/Mul/Mul (or the tanh approximation into
    Pow/Mul/Add/Mul/Tanh/Add/Mul). This pass recognizes those chains and
    replaces each by one `dist.layer_norm` or `dist.gelu`, so autodiff,
    rematerialization, the cost model and sharding see coarse ops.

    Before:
    ```mlir
    %mean = dist.reduce_mean %x axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %d = dist.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %sq = dist.pow %d, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %var = dist.reduce_mean %sq axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %ve = dist.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %std = dist.sqrt %ve : tensor<4x1xf32>
    %n = dist.div %d, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %s = dist.mul %n, %gamma : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %y = dist.add %s, %beta : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %y = dist.layer_norm %x, %gamma, %beta axis = 1 {epsilon = ...}
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["dist::DistDialect"];
}


def DistFuseAttention : Pass<"dist-fuse-attention", "func::FuncOp"> {
  let summary = "Fold decomposed scaled dot-product attention into dist.attention";
  let description = [{
    Recognizes `softmax(mask(scale * Q K^T)) V` as PyTorch's ONNX exporter
    writes it (the scale a `dist.mul` or `dist.div` by a constant; the
    causal mask a `dist.select` against -inf or a fill of at most -1e30, or
    a `dist.add` of a mask computed from constants that is 0 on and below
    the diagonal and at most -1e30 above it; both optional and in either
    order, through reshapes of the batch dimensions that cancel; the
    softmax over the last axis) and
    replaces it by one `dist.attention`, whose lowering never stores the
    `T x S` scores or probabilities (decision 62). Only float32 attention
    whose intermediate results have no other reader, with the causal lower
    triangle or no mask, is fused; anything else (dropout on the
    probabilities, a padding mask, another fill) keeps its decomposition.

    Before:
    ```mlir
    %s = dist.matmul %q, %kt : (tensor<2x4x64x32xf32>, tensor<2x4x32x64xf32>) -> tensor<2x4x64x64xf32>
    %scaled = dist.mul %s, %c : (tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %masked = dist.select %keep, %scaled, %neg_inf : (tensor<64x64xi1>, tensor<2x4x64x64xf32>, tensor<f32>) -> tensor<2x4x64x64xf32>
    %p = dist.softmax %masked axis = 3 : tensor<2x4x64x64xf32>
    %o = dist.matmul %p, %v : (tensor<2x4x64x64xf32>, tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
    ```
    After:
    ```mlir
    %k = dist.transpose %kt permutation = [0, 1, 3, 2] : (tensor<2x4x32x64xf32>) -> tensor<2x4x64x32xf32>
    %o, %lse = dist.attention %q, %k, %v {causal, scale = 0.17677669...}
        : (...) -> (tensor<2x4x64x32xf32>, tensor<2x4x64xf32>)
    ```
  }];
  let dependentDialects = ["dist::DistDialect"];
}

def DistAutodiff : Pass<"dist-autodiff", "ModuleOp"> {
  let summary = "Build the function that returns a loss and its gradients";
  let description = [{
    Differentiates a forward function in reverse mode with respect to every
    trainable parameter (arguments bound to a `dist.parameter` that is not
    `frozen`) and adds `@<function>_grad`: the same arguments, and as results
    the loss followed by one gradient per trainable parameter in argument
    order (`dist.gradient = @name`). The forward function is kept.

    The loss is the result named by `loss` (its `dist.output_name`), else
    the result named `loss`, else the only float scalar result. Each op on a
    path from a parameter to the loss builds its own gradient through
    `GradientOpInterface`; an op without one is an error naming it. Only
    float values carry gradients; ops whose results are integers or booleans
    (comparisons, argmax, casts to integers) end the paths. Gradients of
    values used more than once add up; a parameter the loss does not depend
    on gets a zero gradient.

    ```mlir
    func.func @forward(%x: tensor<8x4xf32>, %w: tensor<4x3xf32> {dist.parameter = @w})
        -> (tensor<f32> {dist.output_name = "loss"})
    // becomes, in addition:
    func.func @forward_grad(%x: tensor<8x4xf32>, %w: tensor<4x3xf32> {dist.parameter = @w})
        -> (tensor<f32> {dist.output_name = "loss"},
            tensor<4x3xf32> {dist.gradient = @w, dist.output_name = "w.grad"})
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The function to differentiate">,
    Option<"loss", "loss", "std::string", /*default=*/"\"\"",
           "The output (dist.output_name) to differentiate; empty: the one "
           "named `loss`, or the only float scalar output">,
    Option<"lossScaleArgument", "loss-scale-argument", "bool",
           /*default=*/"false",
           "Seed the backward with a new last argument (an f32 scalar, "
           "dist.loss_scale) instead of 1: the gradients come out scaled "
           "by it (loss scaling)">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}


def DistEvalMode : Pass<"dist-eval-mode", "func::FuncOp"> {
  let summary = "Give a training-mode model eval-mode semantics";
  let description = [{
    What PyTorch's `module.eval()` changes, on a model exported in training
    mode: every `dist.dropout` passes its input through (its mask is all
    true), and every batch norm that normalizes with the batch's statistics
    uses its running statistics instead. The parameters keep their names,
    so an inference executable built this way reads a trainer's checkpoint
    (`dist-compile model.onnx --eval`).

    Before:
    ```mlir
    %y, %keep = dist.dropout %x {ratio = 1.000000e-01 : f64, seed = 7 : i64} : tensor<4x8xf32>
    %z = dist.batch_norm %i, %g, %b, %mean, %var {training} : (...) -> tensor<8x16x4x4xf32>
    ```
    After: `%y` is `%x`, `%keep` a constant true tensor, and
    ```mlir
    %z = dist.batch_norm %i, %g, %b, %mean, %var : (...) -> tensor<8x16x4x4xf32>
    ```
  }];
  let dependentDialects = ["dist::DistDialect"];
}

def DistFreezeParameters : Pass<"dist-freeze-parameters", "ModuleOp"> {
  let summary = "Mark the parameters whose names match a pattern frozen";
  let description = [{
    Keeps parameters out of training: every `dist.parameter` whose name
    matches one of `patterns` (globs: `*`, `?`, `[...]`) becomes `frozen`,
    so dist-autodiff gives it no gradient and dist-optimizer no update; it
    is still an input of the step and part of checkpoints. A pattern that
    matches no parameter is an error (a misspelled name would otherwise
    train what the user meant to freeze).

    `dist-freeze-parameters{patterns=pos_emb,*.mask}`, before:
    ```mlir
    dist.parameter @pos_emb : tensor<64x32xf32>
    dist.parameter @blocks.0.mask : tensor<1x1x64x64xf32>
    dist.parameter @fc.weight : tensor<10x32xf32>
    ```
    After:
    ```mlir
    dist.parameter frozen @pos_emb : tensor<64x32xf32>
    dist.parameter frozen @blocks.0.mask : tensor<1x1x64x64xf32>
    dist.parameter @fc.weight : tensor<10x32xf32>
    ```
  }];
  let options = [
    ListOption<"patterns", "patterns", "std::string",
               "Glob patterns of the parameter names to freeze">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistShrinkLayers : Pass<"dist-shrink-layers", "ModuleOp"> {
  let summary = "Keep the first layers of a model's repeated layers";
  let description = [{
    Finds the repeated layers of the forward function (parameters named
    `<prefix>.<i>.<name>`, each layer the same ops reading the previous
    layer's output; `passes/Transforms/RepeatedLayers.h`) and keeps the
    first `layers` of them: the last kept layer's output goes where the last
    layer's went (the final norm, the head), the other layers' ops,
    arguments and parameters are erased. The planner predicts a layer from
    such copies, and `--verify-plan` runs a plan on one. A model without
    repeated layers is an error that says what was looked for.

    A GPT-2 with `h.0` ... `h.11`, after `dist-shrink-layers{layers=2}`, has
    `h.0` and `h.1`, the embeddings, `ln_f` and the head.
  }];
  let options = [
    Option<"layers", "layers", "int64_t", /*default=*/"1",
           "How many of the repeated layers to keep (at least 1)">,
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The forward function">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistOptimizer : Pass<"dist-optimizer", "ModuleOp"> {
  let summary = "Build the training step: gradients, clipping, schedule, update";
  let description = [{
    Turns the gradient function of dist-autodiff (`@<function>_grad`) into
    `@train_step`, one function that computes the loss and gradients, the
    global gradient norm, clips the gradients, computes the learning rate of
    this step, and updates every trainable parameter and its optimizer state.
    The gradient function is erased.

    `@train_step` takes the gradient function's arguments, then the step
    number (`tensor<i64>`, 1 for the first step, marked `dist.step`), then the
    optimizer state of each trainable parameter in parameter order
    (`dist.optimizer_state = #dist.optimizer_state<@name, "slot">`: `momentum_buffer` for SGD with
    momentum, `exp_avg` and `exp_avg_sq` for AdamW), then, when the step has
    dropout, the run's seed (`tensor<i64>`, `dist.seed`; every dropout is
    keyed by it and the step), then the run-time hyperparameters `lr`,
    `weight_decay`, `max_grad_norm`, `warmup_steps`, `decay_steps` and
    `min_lr` (`tensor<f64>` each, `dist.hyperparameter = "<name>"`): the
    pass options of those names are only their defaults (`dist.meta`), which
    the trainer's `--lr` etc. replace. It returns the loss, the
    gradient norm before clipping and the learning rate (float32 scalars),
    then the new value of each parameter and state, each marked
    `dist.updates = <argument index>`; dist-update-in-place writes them into
    their arguments' buffers.

    The update is PyTorch 1.13's, operation for operation in float32, with
    the scalar factors computed in float64 and rounded once:
    - SGD: `d = g + weight_decay * p`; with momentum `b = momentum * b + d`,
      `d = b` (or `d + momentum * b` with `nesterov`); `p = p - lr * d`.
    - AdamW: `p = p * (1 - lr * weight_decay)`; `m = beta1 * m + (1 - beta1) g`;
      `v = beta2 * v + (1 - beta2) g^2`;
      `p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)`.
    - Clipping (`max-grad-norm` > 0; 0 multiplies by exactly 1): every
      gradient is multiplied by `min(1, max_norm / (norm + 1e-6))`
      (torch.nn.utils.clip_grad_norm_).
    - Schedule: `lr(t) = lr * t / warmup` for `t <= warmup-steps`; then, with
      `decay-steps` > `warmup-steps`, cosine decay to `min-lr` at
      `decay-steps` (constant after it); else constant.

    With `loss-scale` (dynamic or static), the gradient function seeds its
    backward with the scale S, and the step does what PyTorch's GradScaler
    does around the optimizer: the gradients are multiplied by 1/S
    (unscaled) before the norm and clipping; when any is inf or NaN the step
    is skipped (parameters and optimizer state keep their values, and
    AdamW's bias correction counts only the steps taken, as its per-step
    counter does). Dynamic scaling keeps S (`loss_scale`, starting at
    `loss-scale-value`) and `loss_scale_growth_tracker` as state of the step
    (`#dist.optimizer_state<"loss_scale", init = ...>`): a skipped step
    halves S and resets the tracker; `loss-scale-growth-interval` clean
    steps in a row double it (when the double is finite). Both modes keep
    `skipped_steps`. The step then returns two more float32 scalars after
    the learning rate: `loss_scale` (the S its backward used) and
    `skipped` (1 or 0).
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward_grad\"",
           "The gradient function (dist-autodiff's) to build the step from">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd or adamw">,
    Option<"lr", "lr", "::mlir::dist::ExactDouble", /*default=*/"1e-3", "Learning rate">,
    Option<"momentum", "momentum", "::mlir::dist::ExactDouble", /*default=*/"0.0", "SGD momentum">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD with Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "::mlir::dist::ExactDouble", /*default=*/"0.0",
           "Weight decay (L2 for SGD, decoupled for AdamW)">,
    Option<"beta1", "beta1", "::mlir::dist::ExactDouble", /*default=*/"0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "::mlir::dist::ExactDouble", /*default=*/"0.999", "AdamW beta2">,
    Option<"eps", "eps", "::mlir::dist::ExactDouble", /*default=*/"1e-8", "AdamW epsilon">,
    Option<"maxGradNorm", "max-grad-norm", "::mlir::dist::ExactDouble", /*default=*/"0.0",
           "Clip the global gradient norm to this (0: no clipping)">,
    Option<"warmupSteps", "warmup-steps", "int64_t", /*default=*/"0",
           "Linear warmup steps">,
    Option<"decaySteps", "decay-steps", "int64_t", /*default=*/"0",
           "Step at which cosine decay reaches min-lr (0: no decay)">,
    Option<"minLr", "min-lr", "::mlir::dist::ExactDouble", /*default=*/"0.0",
           "Learning rate at the end of the cosine decay">,
    Option<"lossScale", "loss-scale", "std::string", /*default=*/"\"none\"",
           "none, dynamic (PyTorch's GradScaler) or static (a fixed scale, "
           "loss-scale-value); needs dist-autodiff{loss-scale-argument}">,
    Option<"lossScaleValue", "loss-scale-value", "::mlir::dist::ExactDouble",
           /*default=*/"65536.0",
           "The static scale, or the dynamic scale's initial value">,
    Option<"lossScaleGrowthInterval", "loss-scale-growth-interval", "int64_t",
           /*default=*/"2000",
           "Dynamic scaling doubles the scale after this many steps in a "
           "row without inf/nan gradients">,
    Option<"gradCompression", "grad-compression", "std::string",
           /*default=*/"\"none\"",
           "none, bf16, fp16, powersgd:R or topk:F. bf16/fp16: each float32 "
           "gradient is rounded to this type before anything reads it (a "
           "dist.cast marked dist.compressed), so that partitioning sums it "
           "over the data-parallel ranks in that type: half the bytes, each "
           "rank's part rounded once. powersgd:R: each float32 gradient "
           "PyTorch's powerSGD_hook would compress (rank >= 2, viewed as "
           "dim 0 by the rest, (rows + cols) * R * 2 < rows * cols) is "
           "replaced by PowerSGD's rank-R approximation with error "
           "feedback (passes/Transforms/PowerSgd.h): two state arguments "
           "per such parameter after the optimizer's, `powersgd_q` (cols x "
           "R) and `powersgd_error` (data-parallel-ranks x the gradient's "
           "shape, dist.per_rank), and the ranks sum P and Q (dist.rank_sum) "
           "instead of the gradient. topk:F (0 < F <= 1): each rank sends "
           "the k = ceil(F n) elements of its part of each float32 gradient, "
           "plus its residual, largest in magnitude (dist.sparsify_top_k), "
           "and keeps the rest as its residual (`topk_error`, "
           "data-parallel-ranks x the gradient's shape, dist.per_rank); the "
           "ranks' values and indices are summed in rank rows "
           "(dist.rank_sum) and added up into the gradient "
           "(passes/Transforms/TopKCompression.h)">,
    Option<"dataParallelRanks", "data-parallel-ranks", "int64_t",
           /*default=*/"1",
           "The ranks of the data-parallel axis the step will be split over "
           "(PowerSGD's per-rank residuals are stacked on a dimension of "
           "this size)">,
    Option<"stepFunction", "step-function", "std::string",
           /*default=*/"\"train_step\"",
           "The name of the step function to build">,
    Option<"extraGradSquares", "extra-grad-squares", "std::string",
           /*default=*/"\"\"",
           "The name (dist.input_name) of a float32 scalar input of the "
           "gradient function added to the sum of squared gradients before "
           "the norm: the squares of the gradients other processes update "
           "(a parameter server's share of the global norm); empty: none">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}


def DistParameterServerGradients
    : Pass<"dist-ps-server-gradients", "ModuleOp"> {
  let summary = "Build the gradient function a parameter server updates from";
  let description = [{
    Parameter-server mode (`dist-compile --parallel=ps --servers=K`,
    docs/parallelism.md): the workers run the gradient function `function`
    (dist-autodiff's) on their part of the batch and push the gradients; each
    of the `servers` servers owns whole trainable parameters and applies the
    optimizer to them. This pass builds server `server`'s side as a gradient
    function whose gradients are inputs, `@<output>`, from which
    dist-optimizer builds its update (`step-function`, with
    `extra-grad-squares=others_grad_sq`):

    ```mlir
    func.func @ps_grad_0(%loss: tensor<f32> {dist.input_name = "loss"},
        %w: tensor<64x32xf32> {dist.parameter = @fc1.weight},
        %gw: tensor<64x32xf32> {dist.input_name = "fc1.weight.grad"}, ...,
        %others: tensor<f32> {dist.input_name = "others_grad_sq"})
        -> (tensor<f32>, tensor<64x32xf32> {dist.gradient = @fc1.weight}, ...)
    ```

    `loss` is the workers' mean loss (the step reports it); `others_grad_sq`
    is the sum of the squared gradients the other servers own, so that the
    clipping norm is the global one. The parameters are dealt out by bytes,
    largest first, each to the server holding the fewest bytes so far (the
    lower index on a tie), so that every server's compile agrees. Errors: a
    server that would own no parameter, a parameter or gradient that is not
    float32, dropout (the workers' masks would not change between steps),
    batch norm in training mode (its running statistics are not gradients)
    and a cross-entropy or NLL loss summed over the batch (the servers
    average the workers' gradients, which is the step only for means).
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward_grad\"",
           "The gradient function (dist-autodiff's)">,
    Option<"output", "output", "std::string", /*default=*/"\"ps_grad\"",
           "The function to build">,
    Option<"server", "server", "int64_t", /*default=*/"0",
           "Which server's parameters">,
    Option<"servers", "servers", "int64_t", /*default=*/"1",
           "How many servers share the parameters">,
  ];
  let dependentDialects = ["dist::DistDialect", "func::FuncDialect"];
}

def DistAddLoss : Pass<"dist-add-loss", "ModuleOp"> {
  let summary = "Add a cross-entropy loss over a model output";
  let description = [{
    For a model without a loss in its graph: adds an integer input of class
    labels (`labels`, int64, shaped like `output` without its last dimension)
    and a result `loss`, the mean cross-entropy of `output` (logits, classes
    on the last dimension) against it, as PyTorch's
    `F.cross_entropy(logits.view(-1, C), labels.view(-1))` computes. The
    model's other results are kept. dist-compile's
    `--loss=cross-entropy:<output>,<labels>` runs this pass.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The model function">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "The output (dist.output_name) holding the logits">,
    Option<"labels", "labels", "std::string", /*default=*/"\"labels\"",
           "The name of the new labels input">,
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistRemat : Pass<"dist-remat", "ModuleOp"> {
  let summary = "Recompute forward values in the backward pass instead of "
                "keeping them (activation checkpointing)";
  let description = [{
    On a training step (after autodiff; after partitioning for a mesh), the
    *forward* is the ops the loss depends on and the *saved activations*
    are the forward values the backward reads. This pass keeps some of them
    and recomputes the others right before their first backward use, from
    the kept ones, by cloning their forward ops (dropout included: a clone
    draws the same mask, so the results are bitwise those without remat).

    - `none`: keeps everything (the pass does nothing).
    - `full`: keeps only the *stage boundaries*: the forward values that are
      the only activation alive at their point of the forward (a transformer
      block's input and its mid-block residual sum, an MLP layer's input),
      plus collective results and values that do not depend on the data
      (parameters and what is computed from them alone). Each stage is
      recomputed once, in the backward of that stage, as
      `torch.utils.checkpoint` around every residual stage.
    - `selective`: `full`'s boundaries plus the outputs of matrix products
      and convolutions with a weight operand; the cheap, large values in
      between (layer norms, GELU, attention scores and softmax, dropout
      masks) are recomputed, as Megatron's selective recompute.

    - `auto` (with `memory-budget`, MiB): `full`'s boundaries, plus whole
      stages (the activations between two boundaries) while they fit in
      the budget of activation bytes the backward keeps, choosing the
      stages whose recomputation would cost the most FLOPs: a 0/1 knapsack
      over the stages solved by dynamic programming. A budget below what
      `full` keeps acts as `full` (with a warning).
    - `cheap`: the fewest bytes, recomputing only cheap ops (elementwise
      ops, softmax, layer norm, views) next to backward reads that fuse
      with them: a minimum cut of the forward's dataflow, each value costing
      its bytes (Inductor's min-cut partitioner). A recomputed value reaches
      the backward without a barrier, so it fuses into the backward's
      kernels; widening casts and reshapes count as the value they view.
      The CUDA targets' default (docs/memory.md).

    Recomputed ops read the kept values through `dist.optimization_barrier`,
    so that CSE does not merge them back into the forward ops they copy.
    Values that are not pure (side effects) are always kept.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"train_step\"",
           "The training step">,
    Option<"mode", "mode", "std::string", /*default=*/"\"none\"",
           "none, full, selective, auto or cheap">,
    Option<"memoryBudget", "memory-budget", "double", /*default=*/"0.0",
           "auto: MiB of forward activations the backward may keep">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print what was kept and what is recomputed">
  ];
  let dependentDialects = ["dist::DistDialect"];
}

def DistMixedPrecision : Pass<"dist-mixed-precision", "ModuleOp"> {
  let summary = "Compute matrix products and convolutions in bf16 or fp16 "
                "(automatic mixed precision)";
  let description = [{
    On the model function, before autodiff: every float32 `dist.matmul`,
    `dist.gemm` and `dist.conv2d` reads its inputs cast to the compute type
    and its result is cast back to float32, as `torch.autocast` does for
    the ops on its lower-precision list. The product accumulates in
    float32 and is rounded once to the compute type; a gemm's or conv's bias
    is added after it, in float32. Softmax, layer norm, losses, reductions
    and the optimizer stay float32; parameters stay float32 (master
    weights) and so do their gradients (the gradient of the cast).

    ```mlir
    %y = dist.matmul %x, %w : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    ```
    becomes
    ```mlir
    %xh = dist.cast %x : tensor<8x32xf32> to tensor<8x32xbf16>
    %wh = dist.cast %w : tensor<32x16xf32> to tensor<32x16xbf16>
    %yh = dist.matmul %xh, %wh : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xbf16>
    %y = dist.cast %yh : tensor<8x16xbf16> to tensor<8x16xf32>
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The model function">,
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "fp32 (nothing to do), bf16 or fp16">
  ];
  let dependentDialects = ["dist::DistDialect"];
}

#endif // PASSES_TRANSFORMS_PASSES_TD
