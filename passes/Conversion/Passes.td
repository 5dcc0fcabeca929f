//===- Passes.td - Lowering of the dist dialect towards LLVM --------------===//

#ifndef PASSES_CONVERSION_PASSES_TD
#define PASSES_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertDistToLinalg : Pass<"convert-dist-to-linalg", "ModuleOp"> {
  let summary = "Lower dist ops to linalg, tensor, arith and math";
  let description = [{
    Replaces every dist op inside functions by linalg-on-tensors:
    elementwise ops become parallel `linalg.generic`s that read broadcast
    operands through their indexing maps, reductions become reduction
    generics, `matmul`/`gemm` become `linalg.matmul`/`linalg.batch_matmul`
    (transposes as indexing maps), shape ops become `tensor` ops. Integer
    tensors get signless element types (`ui8` becomes `i8`; the patterns
    pick unsigned arith ops from the dist types), function signatures
    included. `dist.parameter` declarations stay, and so do collectives
    (`dist.all_reduce`, `all_gather`, `reduce_scatter`, `shard_slice`,
    `all_reduce_start`, `wait`), retyped to signless: one-shot
    bufferization turns them into distrt calls on buffers through their
    `BufferizableOpInterface` models.

    Before:
    ```mlir
    %y = dist.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4x8xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %c: f32, %out: f32):
      %s = arith.addf %a, %c : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = [
    "arith::ArithDialect", "cf::ControlFlowDialect", "linalg::LinalgDialect",
    "math::MathDialect", "scf::SCFDialect", "tensor::TensorDialect",
    "bufferization::BufferizationDialect", "memref::MemRefDialect",
    "vector::VectorDialect",
    "LLVM::LLVMDialect", "func::FuncDialect"
  ];
}

def DistFuseElementwise : Pass<"dist-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg.generic ops";
  let description = [{
    Fuses a producer `linalg.generic` into its consumer when the producer
    has a single use, so a chain of N elementwise ops becomes one loop nest
    that reads its inputs and writes its result once. Unlike upstream's
    `linalg-fuse-elementwise-ops` it does not propagate reshapes, which
    would turn named `linalg.matmul`s into generics and keep them from
    reaching the runtime's gemm. A fused op stays within 256 body ops and
    4000 bytes of operand descriptors ((3 + 2 * rank) * 8 bytes each: a
    CUDA kernel's parameters are at most 4352 bytes), so a long chain (the
    gradient norm's sum over every parameter) becomes several ops.

    A producer that several ops read is fused into its first elementwise
    consumer when every other reader comes after that consumer: the fused
    op yields both results (multi-output fusion), so the producer's values
    are computed once and the consumer does not read them back (upstream's
    pattern would copy the producer into the consumer and keep it for the
    others, computing it twice). Transposes (those
    `dist-fold-transpose-into-matmul` left) are generalized first, so they
    fuse like any elementwise op. An integer constant holding 0, 1, ...,
    n - 1 along one dimension that an op reads along a loop (the class
    numbers of cross-entropy's gradient, position ids) becomes that loop's
    `linalg.index`: nothing is read. A `tensor.extract` of a widening
    cast's result (cross-entropy reading bf16 logits at each label) reads
    the narrow value and widens it, so that the cast is not written out.

    With `recompute-narrow` (the CUDA pipelines'), an elementwise op that
    several ops read is instead copied into each of them when that moves
    fewer bytes: when the n readers reading its inputs (R bytes a point,
    broadcast operands not counted) read less than writing its result (W)
    and reading it back n times, R * n < W * (1 + n). The typical case,
    under `--precision=bf16`: GELU's gradient computed from two bf16
    values is read by the bias gradient's sum and by the rounding for the
    next product; each now reads the bf16 values, and the float32 gradient
    never reaches memory. With it too:
    - an elementwise op read only by slices of it (attention's query, key
      and value cut from one projection) is computed slice by slice when
      the slices would read fewer bytes (R * sliced < W * (points +
      sliced)), and an elementwise op whose one reader is an expand_shape
      computes on the expanded shape, so that the head split reading it
      fuses with it;
    - a product's rounding to bf16 stays an op of its own (never fused into
      its reader), so that the product writes the bf16 values itself
      (dist-matmul-to-runtime) and its reader reads 2 bytes a value;
    - a scalar computed with a math function or in float64 (AdamW's bias
      corrections, powers of the betas by the step) is not fused into an op
      with loops, where every point (every GPU thread) would compute it
      again; the identical scalars of all parameters become one op after
      CSE.
    Not for an op on a product's result of its own type (a bias, GELU: the
    product's epilogue), nor into a reduction over rows (dist-row-kernels
    keeps those values in registers).
  }];
  let options = [
    Option<"recomputeNarrow", "recompute-narrow", "bool", /*default=*/"false",
           "Copy an elementwise op into each of its readers when they would "
           "read fewer bytes than its result written once and read back">
  ];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def DistFoldTransposeIntoMatmul : Pass<"dist-fold-transpose-into-matmul",
                                       "func::FuncOp"> {
  let summary = "Read transposed matmul operands through their indexing maps";
  let description = [{
    A `linalg.matmul` or `linalg.batch_matmul` input produced by a
    `linalg.transpose` of its last two dimensions reads the transpose's
    source instead, through a transposed indexing map; the transpose is
    erased once nothing reads it. `dist-matmul-to-runtime` then passes the
    transpose flag to BLAS (or cuBLAS), which reads either layout at the
    same speed, and the transposed copy is never written: every
    `nn.Linear` of an exported model is a product with the transpose of its
    weight, and GPT-2's tied output projection transposed a 154 MB matrix
    each step.

    ```mlir
    %t = linalg.transpose ins(%w : tensor<384x128xf32>) outs(%e : tensor<128x384xf32>) permutation = [1, 0]
    %y = linalg.matmul ins(%x, %t : tensor<64x128xf32>, tensor<128x384xf32>) outs(%z : tensor<64x384xf32>) -> tensor<64x384xf32>
    ```
    becomes
    ```mlir
    %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%x, %w : tensor<64x128xf32>, tensor<384x128xf32>) outs(%z : tensor<64x384xf32>) -> tensor<64x384xf32>
    ```
  }];
}

def DistMatmulToRuntime : Pass<"dist-matmul-to-runtime", "ModuleOp"> {
  let summary = "Call the runtime's gemm for matrix products on buffers";
  let description = [{
    After bufferization, replaces each f32/f64 `linalg.matmul` and
    `linalg.batch_matmul` (or one with bf16 / f16 inputs and an f32 output:
    mixed precision) whose operands have unit inner strides by a call
    to `distrt_gemm` (OpenBLAS on the CPU), with transposed indexing maps
    as transpose flags. A product whose output buffer is only zeroed before
    it (a zero fill, or a copy from a buffer of zeros) overwrites it
    (beta = 0) and the zeroing goes; otherwise it accumulates onto the
    buffer (beta = 1). Other matmuls stay for the loop lowering.

    ```mlir
    linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>)
                  outs(%c : memref<8x16xf32>)
    ```
    becomes a `func.call @distrt_gemm(...)` with m = 8, n = 16, k = 32 and
    the buffers' aligned pointers and row strides.

    With `epilogues` (the CUDA lowering: `distrt_cuda_gemm`, cuBLASLt), the
    call takes six more arguments (epilogue, bias, aux, ldaux, C's element
    type, and the op's ONNX node and file, which runtime errors name) and
    the elementwise ops that follow an f32 product run in cuBLASLt's
    epilogue: a bias addition (`out = product + bias[j]`) and GELU's tanh
    approximation after it, in one generic or in the next; when something
    else (the backward pass) reads the values before GELU, they are written
    as aux.
    What a body computes is checked by evaluating it on sample values, so
    an erf GELU or any other function stays a kernel. The fold needs the
    zeroed output, a contiguous result, and nothing between the product
    and the ops it absorbs that writes memory.

    Also with `epilogues` (and `bf16-outputs`, on by default): a product of
    bfloat16 inputs whose float32 result is only rounded to bfloat16 (one
    `arith.truncf` generic reading all of it, as `--precision=bf16`'s
    products are lowered) writes the rounded values itself: the call's
    `c_dtype` is bfloat16 (cuBLASLt's bf16 D, rounded to nearest even like
    `truncf`), its C is the rounding's output, and neither the float32
    buffer nor the rounding kernel remain. The results are bit for bit
    those of the rounding kernel; float16 roundings are left alone
    (cuBLASLt's conversion need not overflow to infinity as `truncf` does,
    which the loss scaler relies on).
  }];
  let options = [
    Option<"function", "function", "std::string",
           /*default=*/"\"distrt_gemm\"",
           "The runtime function called: distrt_gemm (CPU), "
           "distrt_cuda_gemm (CUDA) or distrt_emulate_cuda_gemm">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"false",
           "Call with distrt_cuda_gemm's arguments and fold bias and GELU "
           "(tanh) into the product's epilogue">,
    Option<"bf16Outputs", "bf16-outputs", "bool", /*default=*/"true",
           "With epilogues: a bfloat16 product whose float32 result is only "
           "rounded to bfloat16 writes bfloat16 itself">,
  ];
  let dependentDialects = [
    "arith::ArithDialect", "func::FuncDialect", "LLVM::LLVMDialect",
    "memref::MemRefDialect"
  ];
}

def DistSplatsToFill : Pass<"dist-splats-to-fill", "func::FuncOp"> {
  let summary = "Build splat tensor constants with linalg.fill";
  let description = [{
    Bufferization turns every tensor constant into a global in the
    executable's read-only data, copied where it is used. A splat (the zeros
    a scatter-add accumulates into, a gradient seed) holds one value: as a
    `linalg.fill` of a `tensor.empty` it costs nothing in the executable and
    is written where it is needed (by a kernel on the GPU, instead of a
    host-to-device copy per step). GPT-2 small's CUDA trainer shrank from
    169 MB, 153 MiB of them zeros the size of the token embedding.

    ```mlir
    %z = arith.constant dense<0.0> : tensor<512x128xf32>
    ```
    becomes
    ```mlir
    %c = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<512x128xf32>
    %z = linalg.fill ins(%c : f32) outs(%e : tensor<512x128xf32>) -> tensor<512x128xf32>
    ```
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"64",
           "Smaller splats stay constants">,
  ];
  let dependentDialects = [
    "arith::ArithDialect", "linalg::LinalgDialect", "tensor::TensorDialect"
  ];
}

def DistLowerStridedCopies : Pass<"dist-lower-strided-copies",
                                   "func::FuncOp"> {
  let summary = "Turn copies between strided buffers into linalg.copy";
  let description = [{
    Bufferizing `tensor.insert_slice`, `tensor.pad` and slices creates
    `memref.copy` ops between strided views. Upstream lowers those to calls
    of `memrefCopy` in MLIR's C runner library, which compiled programs do
    not link. This pass rewrites every copy that is not between two
    contiguous buffers into `linalg.copy`, which becomes loops (and, for
    contiguous rows, vectorized code); contiguous copies stay `memref.copy`
    (an `llvm.memcpy`).

    ```mlir
    memref.copy %src, %view : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1], offset: 2>>
    ```
    becomes
    ```mlir
    linalg.copy ins(%src : memref<4x3xf32>) outs(%view : memref<4x3xf32, strided<[6, 1], offset: 2>>)
    ```
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def DistOutlineKernels : Pass<"dist-outline-kernels", "ModuleOp"> {
  let summary = "Move each linalg op on buffers into its own function";
  let description = [{
    After bufferization, replaces every linalg op in a function body by a
    `func.call` (marked `no_inline`) of a private function that holds just
    that op, taking its buffers and any value its body reads from outside.
    LLVM then optimizes hundreds of small functions instead of one function
    with hundreds of loop nests, where passes such as IndVarSimplify grow
    superlinearly: on GPT-2 small this cut LLVM's -O2 time from 20 s to a
    few seconds. Each kernel also shows by name in a profile. Kernels that
    come out identical (same op, types and captured values: the layers of a
    model) are outlined once and called from every place, so LLVM compiles
    each distinct kernel once: GPT-2 small's training step has 1184 kernel
    calls and a fraction as many distinct kernels, and compiles in 22 s
    instead of 62 s.

    ```mlir
    func.func @forward(%a: memref<8xf32>, %b: memref<8xf32>) {
      linalg.generic ... ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {...}
    }
    ```
    becomes
    ```mlir
    func.func @forward(%a: memref<8xf32>, %b: memref<8xf32>) {
      call @forward_kernel_0(%a, %b) {no_inline} : (memref<8xf32>, memref<8xf32>) -> ()
    }
    func.func private @forward_kernel_0(%a: memref<8xf32>, %b: memref<8xf32>) {
      linalg.generic ... ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {...}
      return
    }
    ```
  }];
  let dependentDialects = ["func::FuncDialect"];
}

def DistTraceKernels : Pass<"dist-trace-kernels", "ModuleOp"> {
  let summary = "Record each outlined kernel call as a span of the trace";
  let description = [{
    After `dist-outline-kernels`, wraps every kernel call in
    `distrt_trace_kernel_begin()` and `distrt_trace_kernel_end(start,
    name)`: while a trainer's `--trace` records, each kernel becomes a span
    on the compute track named after its source op (the ONNX node name of
    its location, then the kernel's symbol); otherwise the calls cost an
    atomic load. The names are constant strings (`memref.global`).

    ```mlir
    func.call @forward_kernel_3(%a, %b) {no_inline} : (memref<...>, memref<...>) -> ()
    ```
    becomes
    ```mlir
    %t = func.call @distrt_trace_kernel_begin() : () -> i64
    func.call @forward_kernel_3(%a, %b) {no_inline} : (memref<...>, memref<...>) -> ()
    %n = memref.get_global @__dist_span_0 : memref<24xi8>
    ... %p = the address of %n's first byte (!llvm.ptr)
    func.call @distrt_trace_kernel_end(%t, %p) : (i64, !llvm.ptr) -> ()
    ```
  }];
  let dependentDialects = ["memref::MemRefDialect", "LLVM::LLVMDialect",
                           "func::FuncDialect"];
}

def DistApproximateMath : Pass<"dist-approximate-math", "func::FuncOp"> {
  let summary = "Inline polynomial approximations of f32 exp, log, tanh, erf";
  let description = [{
    Replaces f32 `math.exp`, `math.log`, `math.tanh` and `math.erf` by
    MLIR's polynomial approximations (upstream
    `populateMathPolynomialApproximationPatterns`): a few multiplies and adds
    the loop vectorizer can turn into SIMD code, instead of one libm call per
    element. On gpt2-tiny the libm calls of GELU's erf and softmax's exp were
    25% of the forward's instructions (callgrind). The approximations are
    within a few ulp of libm; every numeric test (ONNX node tests at rtol
    1e-3, examples against PyTorch at 1e-5) runs with them. Other types keep
    the libm or LLVM intrinsic lowering.
  }];
  let dependentDialects = ["arith::ArithDialect", "math::MathDialect"];
}

def DistCountHostAllocations : Pass<"dist-count-host-allocations", "ModuleOp"> {
  let summary = "Call the runtime's counted malloc, aligned_alloc and free";
  let description = [{
    After `finalize-memref-to-llvm` (without generic allocation functions),
    renames the module's external `llvm.func @malloc`, `@aligned_alloc` and
    `@free` and their calls to `@distrt_host_malloc`,
    `@distrt_host_aligned_alloc` and `@distrt_host_free`: the same
    contracts, plus counting the bytes held, so that the trainer reports
    the peak of tensor memory (`tensor_peak_mib`) that
    `dist-compile --explain` predicts.
  }];
}

def DistEstimateMemory : Pass<"dist-estimate-memory", "ModuleOp"> {
  let summary = "Predict the peak of tensor memory (host or device) of the entry";
  let description = [{
    On the bufferized entry (after `dist-free-buffers-early`), replays the
    allocations in program order: the runtime's buffers (the interface's
    arguments and outputs; an update result shares its argument's) are
    held throughout, each `memref.alloc` adds its block and each
    `memref.dealloc` frees it, a `distrt_gemm` call with bf16/f16 inputs
    holds their float32 copies while it runs. Block sizes are glibc's for
    the request (the compiled code asks malloc for the bytes plus the
    alignment; the runtime aligned_alloc's them rounded to 64), so the peak
    is what the trainer measures as `tensor_peak_mib`. With `explain`, it
    prints it split at the peak into parameters, optimizer state, inputs and
    outputs, activations (buffers allocated before the loss is written),
    gradients (later buffers an op reads together with a parameter or its
    state: the update) and workspace (the rest):

    ```
    memory of @train_step per rank (host tensors): peak 11.78 MiB = parameters 1.80 + ...
    ```

    With `device=cuda` it predicts the device memory of a CUDA step
    instead (the peak the trainer logs as `gpu_mem_peak_mib`): blocks are
    the runtime's caching allocator's size classes
    (`distrt_cuda_block_bytes`: 512-byte granules, 2 MiB from 1 MiB on),
    only each rank's shard of a split input is on the device, products read
    16-bit inputs as they are (no float32 copies), the cuBLASLt workspace
    is held throughout when the step calls `distrt_cuda_gemm` (the first
    step's first product allocates it for the run), and each constant's
    device copy (`dist-host-memory-to-gpu`) from its use to the end of the
    step; the workspace and the constants count as workspace.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"train_step\"",
           "The bufferized entry function">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print the peak and its parts">,
    Option<"device", "device", "std::string", /*default=*/"\"host\"",
           "The memory predicted: host (the CPU target's host tensors) or "
           "cuda (the CUDA target's device memory)">,
    Option<"gemmWorkspace", "gemm-workspace", "int64_t", /*default=*/"-1",
           "Bytes of the CUDA gemm's workspace (-1: the runtime's, "
           "DISTRT_CUDA_GEMM_WORKSPACE_BYTES)">
  ];
}

def DistLowerAsserts : Pass<"dist-lower-asserts", "ModuleOp"> {
  let summary = "Failed run-time checks call the runtime's distrt_fail";
  let description = [{
    Replaces each `cf.assert` (the range checks of gather indices and loss
    labels) by `scf.if` on the negated condition that calls
    `distrt_fail(message)`, which prints `error: <message>` on stderr and
    exits with status 1. Upstream's lowering prints the message with `puts`
    and calls `abort`: the message is lost in stdout's buffer and the process
    dies of SIGABRT.

    ```mlir
    cf.assert %ok, "dist.gather: index out of range [-10, 10) at ..."
    ```
    becomes
    ```mlir
    %bad = arith.xori %ok, %true : i1
    scf.if %bad {
      %m = llvm.mlir.addressof @dist_check_0 : !llvm.ptr
      func.call @distrt_fail(%m) : (!llvm.ptr) -> ()
    }
    ```
  }];
  let dependentDialects = [
    "arith::ArithDialect", "func::FuncDialect", "LLVM::LLVMDialect",
    "scf::SCFDialect"
  ];
}

def DistDescribeModel : Pass<"dist-describe-model", "ModuleOp"> {
  let summary = "Record the entry function's interface for the executable";
  let description = [{
    Writes the description of the entry function into the module attribute
    `dist.model_interface`, a dictionary with the schema of the runtime's
    JSON interface (`runtime/include/distrt/model.h`): one entry per
    argument (its role, name, element type and global shape, how it is
    split over the mesh, a trainer's index ranges) and per result, in
    calling order, the mesh, the step's FLOPs and the `dist.meta`
    hyperparameters. Marks the entry for the C interface and its arguments
    as not writable, so that bufferization never writes into a caller's
    input or weight buffer. The names and parameter bindings of arguments
    and results move into the description (bufferization turns arguments
    into memrefs, which a parameter's type never is, and results into
    arguments).

    ```
    dist.model_interface = {
      arguments = [
        {dtype = "float32", name = "x", role = "input",
         shape = array<i64: 8, 32>},
        {dtype = "float32", name = "fc1.weight", role = "param",
         shape = array<i64: 64, 32>}
      ],
      format = "dist-model", mode = "forward",
      outputs = [
        {dtype = "float32", name = "logits", shape = array<i64: 8, 10>}
      ],
      version = 1 : i64}
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"forward\"",
           "Name of the function the executable runs">
  ];
}

def DistEmitModelEntry : Pass<"dist-emit-model-entry", "ModuleOp"> {
  let summary = "Emit the executable's entry point on the LLVM dialect";
  let description = [{
    Runs last, on the LLVM dialect. From `dist.model_interface` it emits the
    global string `dist_model_interface` (the description as JSON) and
    `llvm.func @dist_model_forward(%buffers: !llvm.ptr)`, which builds a
    memref descriptor (static shape, row-major) around each of the
    `buffers` pointers and calls the entry's C interface; a tensor split
    over the mesh gets this rank's shard shape (the description's shape
    with each split dimension divided by its devices). Removes the
    `dist.parameter` declarations, whose values live in the weights file.
    With `target` (`cpu` or `cuda <arch>`), the description gets a
    `"target"` member (the CUDA lowering says `cuda sm_90`: the buffers are
    device pointers).
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"forward\"",
           "Name of the function the executable runs">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Where the buffers live: cpu or cuda <arch>, the description's "
           "\"target\" member (empty: the host, no member)">
  ];
  let dependentDialects = ["LLVM::LLVMDialect"];
}


def DistResultsToOutParams : Pass<"dist-results-to-out-params", "ModuleOp"> {
  let summary = "Results become out-parameters; computed in place unless the "
                "step updates its arguments";
  let description = [{
    Upstream's `promoteBufferResultsToOutParams` on every function (public
    ones included: the executable's entry point passes the buffers), with
    the allocations of results hoisted into the caller's buffers (computed
    in place, no copy) except in a training step: when the module says its
    results overwrite arguments (`dist.model_updates`, written by
    `dist-describe-model`), the caller passes an argument's own buffer as
    that result's out-parameter, and computing the result in place could
    overwrite the argument before its last read. The step then computes
    into temporaries and copies them out; `dist-write-updates-early` then
    computes each in place where it proves that safe, and moves the other
    copies up. Decided from the module, so no option can make a trainer
    that reads overwritten parameters.
  }];
  let dependentDialects = ["memref::MemRefDialect"];
}

def DistWriteUpdatesEarly : Pass<"dist-write-updates-early", "ModuleOp"> {
  let summary = "Compute each result in place, or copy it there as soon as it is final";
  let description = [{
    In a training step, the results that update arguments (parameters and
    optimizer state, `dist.model_updates`) are written, at run time, into
    their arguments' own buffers (dist-emit-model-entry). After
    buffer-results-to-out-params each result is computed into a temporary
    and copied to its out-parameter just before the return: for AdamW,
    three copies of the parameters, each read and written once more per
    step, and every temporary alive until the end.

    Where it is safe, this pass computes the result in place and erases
    the copy: the temporary (a fresh allocation of the same type) is
    replaced, from its first use or from the op that last overwrites all of
    it, by the out-parameter of an output, or by the argument itself of an
    update (the out-parameter's memory at run time; with one name for the
    element read and the element written, LLVM vectorizes the in-place
    loop). Safe means: from there on, no op touches the out-parameter or,
    for an update, the argument it overwrites (through any view or
    pointer), except that the op there may read the argument in place: an
    all-parallel `linalg.generic` on buffers that reads the argument only
    directly and at the element it writes (the same permutation map), as
    an optimizer's update does.

    Otherwise, for an update, the `memref.copy` moves up to right after the
    last op that writes or reads its source, so the temporary is freed at
    once, provided no op between there and the copy's old place touches the
    argument the copy overwrites. Run it right after
    buffer-results-to-out-params, before buffer deallocation.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"forward\"",
           "Name of the function the executable runs">
  ];
  let dependentDialects = ["memref::MemRefDialect"];
}


def DistCopyRepeatedResults : Pass<"dist-copy-repeated-results",
                                   "func::FuncOp"> {
  let summary = "Give a value returned twice a copy of its own";
  let description = [{
    A function may return one value twice (a gradient function whose two
    parameters have identical gradients, such as the biases of
    `fc1(x) + fc2(x)`). Each result of the compiled entry point is its own
    output buffer, and `buffer-results-to-out-params` cannot hoist one
    allocation into two of them. This pass, on tensors before
    bufferization, replaces every repeated return operand by a copy
    (`bufferization.alloc_tensor() copy(...)`), so each result has its own
    buffer.

    ```mlir
    return %g, %g : tensor<8xf32>, tensor<8xf32>
    ```
    becomes
    ```mlir
    %c = bufferization.alloc_tensor() copy(%g) : tensor<8xf32>
    return %g, %c : tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let dependentDialects = ["bufferization::BufferizationDialect"];
}

def DistFreeBuffersEarly : Pass<"dist-free-buffers-early", "func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Ownership-based buffer deallocation frees a buffer at the end of the
    block that allocated it. A model is one long block, so every activation
    and every gradient of a training step would stay allocated until the
    step returns. This pass moves each `memref.dealloc` of a buffer
    allocated in the same block up to right after the last op that uses the
    buffer, a view of it, or a pointer or metadata taken from it (the
    runtime's gemm calls get raw pointers). A buffer that escapes in a way
    the pass does not follow (an op returning a memref built from it that is
    not a view) keeps its dealloc where it is. Run it after the
    buffer-deallocation pipeline.
  }];
  let dependentDialects = ["memref::MemRefDialect"];
}

#endif // PASSES_CONVERSION_PASSES_TD
