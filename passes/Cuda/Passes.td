//===- Passes.td - Lowering of bufferized steps to CUDA -------------------===//

#ifndef PASSES_CUDA_PASSES_TD
#define PASSES_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistLinalgToGpu : Pass<"dist-linalg-to-gpu", "func::FuncOp"> {
  let summary = "Turn each linalg op on buffers into one gpu.launch kernel";
  let description = [{
    Runs on the host functions of a bufferized step (after
    `dist-matmul-to-runtime` took the matmuls to cuBLASLt) and replaces every
    remaining linalg op by a `gpu.launch` that computes it, so that
    `gpu-kernel-outlining` makes one kernel per fused op. Named ops are
    generalized first. Five shapes of kernel:

    - **Elementwise** (no reduction dimension): the iteration space is
      linearized, one thread per point, `block-size` threads per block, the
      innermost loop dimension fastest (consecutive threads read consecutive
      elements of row-major buffers). When the innermost size is a multiple
      of `vector-width` and some 32-bit operand is indexed by the innermost
      dimension with unit stride, each thread takes `vector-width`
      consecutive points and moves such operands with one 16-byte
      `vector.load`/`vector.store`.
    - **Transposed elementwise** (an input that depends on the dimension
      the outputs are written along, `l`, lies in memory along another one,
      `t`: attention's key transposed for its product, a weight cast to
      bf16 and transposed; both at least 32 points; `transpose-tiles`):
      one block per 32 x 32 tile of (t, l) and point of the other
      dimensions, 256 threads as 8 rows of 32. Each thread copies 4
      elements of each such input into the block's shared memory,
      consecutive threads along `t` (the input's order); after a
      `gpu.barrier` it computes 4 points, consecutive threads along `l`
      (the outputs' order), reading those inputs from shared memory (rows
      of 33 elements: no bank conflicts). Tiles that overhang a size
      check their bounds. One thread per point instead reads the input one
      element per 32-byte sector.
    - **Row reduction** (reduction dimensions of `serial-below` points or
      more, every output a recognized combiner `out = combine(out, f(ins))`
      with combine one of add, mul, max, min, and, or, xor): one block per
      output point; each thread folds a strided slice of the reduction
      space, then `gpu.all_reduce` combines the block's partials (warp
      shuffles and shared memory), and thread 0 folds the total into the
      output. No atomics: the order of the combination depends only on the
      block size, so runs are bitwise reproducible. When there are few
      output points and long reductions (a gradient's squared norm: one
      point, millions of values), one block per point would leave the GPU
      idle: each point's reduction space is cut into contiguous chunks,
      one block each (about `split-blocks` blocks in all), every block
      writes its total to a temporary buffer, and a second kernel
      (`..._total`, one block per point) folds each point's chunk totals
      the same way (strided threads, then the block reduction) into the
      output. Still no atomics; the order depends only on the block size
      and `split-blocks`, so runs are still reproducible.
      The threads stride over the reduction dimensions in the order the
      largest input lies in memory (a squared norm of a gradient the loops
      see transposed still reads it row by row).
    - **Column reduction** (a row reduction whose innermost loop dimension
      is an output one, along which the outputs are written with unit
      stride, with 64 output points or more: a bias's or layer norm's
      weight gradient, summing the rows of each column): one thread per
      output point, consecutive threads on consecutive points, so a warp
      reads consecutive elements of a row where a block per point would
      read one float of 32 rows (an eighth of each 32-byte sector). Each
      point's reduction is cut into contiguous chunks, one thread each
      (as many as keep the threads to `split-blocks` x `block-size`, each
      folding at least 16 values, at most 256 chunks), whose totals go to
      a temporary; a second kernel (`..._total`, one thread per point)
      folds them in chunk order into the output. Unsplit, a thread folds
      straight into the output in the CPU's order. The threads' loops
      fold in order (`reassoc` dropped), so the bits do not depend on what
      else the body computes.
    - **Serial reduction** (short reductions, or bodies that are not a
      plain combiner): one thread per output point runs the reduction loops
      in order, as the CPU does.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : memref<1024xf32>, memref<1024xf32>) outs(%c : memref<1024xf32>) {...}
    ```
    After: a `gpu.launch` over 4 blocks of 256 threads whose body loads
    `%a[i]` and `%b[i]`, runs the generic's body and stores `%c[i]` when
    `i < 1024`.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (a power of 2 from 32 to 1024)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"4",
           "Elementwise kernels handle this many consecutive 32-bit "
           "elements per thread with 16-byte vector loads and stores where "
           "the innermost size and alignment allow (1: off)">,
    Option<"transposeTiles", "transpose-tiles", "bool", /*default=*/"true",
           "Elementwise ops that read an input transposed go through "
           "32 x 32 tiles in shared memory, so that both its reads and the "
           "writes are coalesced (false: one thread per point)">,
    Option<"serialBelow", "serial-below", "int64_t", /*default=*/"64",
           "Reductions over fewer points run serially, one thread per "
           "output point">,
    Option<"splitBlocks", "split-blocks", "int64_t", /*default=*/"1024",
           "A row reduction with few output points spreads each point's "
           "reduction over several blocks, so that about this many blocks "
           "run (each thread folding at least 16 values; split in 4 or "
           "more, at most 1024); a second kernel folds the chunks' totals "
           "(0: one block per output point; at most 2^20). A column "
           "reduction splits each point's reduction over threads, up to "
           "this many blocks' worth (0: one thread per output point)">,
  ];
  let dependentDialects = [
    "affine::AffineDialect", "arith::ArithDialect", "gpu::GPUDialect",
    "linalg::LinalgDialect", "memref::MemRefDialect", "scf::SCFDialect",
    "vector::VectorDialect"
  ];
}

def DistRowKernels : Pass<"dist-row-kernels", "func::FuncOp"> {
  let summary = "Run chains of row ops (softmax, layer norm) as one kernel";
  let description = [{
    Softmax, layer norm and their gradients are chains of generics over the
    same rows: elementwise ops over rows x columns, reductions of each
    row's columns (the last loop dimension) and elementwise ops on one
    value per row. `dist-linalg-to-gpu` makes one kernel per op, each
    reading the row from memory again: attention's softmax is four passes
    over the scores. This pass, run before it, makes one kernel of such a
    chain: one block per row, thread `t` of `T` taking columns `t`,
    `t + T`, ... of every member (at most `row-elements` of them), keeping
    each member's values in registers for the next members. A reduction
    folds each thread's columns in order, then `gpu.all_reduce` (as
    `dist-linalg-to-gpu`'s row reductions, so the sums are the same bit for
    bit); its per-row result is in every thread. At the end each thread
    stores its columns of the buffers read after the chain and thread 0
    the per-row values; buffers only the chain uses (a softmax's maximum
    and sum) are neither stored nor allocated.

    A chain is consecutive generics in a block with the same rows and row
    length (32 columns or more), at least one of them a reduction whose
    every output is a recognized combiner; ops between them stay before
    the kernel when they touch no memory the chain touched so far (a fill
    of the next reduction's output), and deallocs of the chain's buffers
    move after it. Reads and writes must keep their order when each thread
    runs its columns of every member in turn: a member may read an element
    an earlier member wrote only at the same element (its own column, or
    the row's value), never another column or row of that memory;
    allocations are distinct memory, arguments may alias each other, and
    any other memref (a view not followed through, a loop's value) may be
    any memory.

    Before (softmax, 4 kernels over 64-column rows):
    ```mlir
    linalg.generic ... ins(%s, %mask) outs(%x)          // masked scores
    linalg.generic ... ins(%x) outs(%max) ["reduction"]  // max
    linalg.generic ... ins(%x, %max) outs(%sum) ["reduction"]
    linalg.generic ... ins(%x, %max, %sum) outs(%p)
    ```
    After: one `gpu.launch` of one 64-thread block per row, storing `%x`
    and `%p` only.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Most threads per block (a power of 2 from 32 to 1024)">,
    Option<"rowElements", "row-elements", "int64_t", /*default=*/"8",
           "Most columns of a row per thread, so rows of at most "
           "row-elements x block-size columns (0: off; at most 64)">,
  ];
  let dependentDialects = [
    "affine::AffineDialect", "arith::ArithDialect", "gpu::GPUDialect",
    "memref::MemRefDialect", "scf::SCFDialect"
  ];
}

def DistLoopsToGpu : Pass<"dist-loops-to-gpu", "func::FuncOp"> {
  let summary = "Turn host loop nests on buffers into kernels";
  let description = [{
    The linalg lowering leaves a few ops as `scf.for` nests that read and
    write buffers element by element: the scatter-add of an embedding's
    gradient and max-pool's backward. Each such nest on the host becomes one
    `gpu.launch`. Its threads are the nest's loops whose iterations touch
    disjoint elements of every buffer the nest writes: every load and store
    of a written buffer indexes it with the loop's induction variable at one
    fixed position (the feature column of a scatter-add, the batch and
    channel of max-pool's backward). Those loops are removed from the copy
    of the nest inside the kernel, each thread running its own iteration;
    the other loops run in order in every thread, as on the CPU, so the sums
    are the CPU's bit for bit and no atomics are needed. A nest with no such
    loop runs on a single thread (correct, slow).

    ```mlir
    scf.for %i = %c0 to %c128 step %c1 {          // tokens, in order
      %row = ... memref.load %ids[%i] ...
      scf.for %j = %c0 to %c64 step %c1 {         // columns: parallel
        %g = memref.load %grad[%i, %j]
        %a = memref.load %acc[%row, %j]
        memref.store (%a + %g), %acc[%row, %j]
      }
    }
    ```
    becomes a launch of 64 threads, thread `j` running the `%i` loop.

    Such a kernel has few threads (an embedding gradient: one per feature
    column, 768 for GPT-2, each adding 8192 token rows in order). When the
    nest writes one buffer, always at the same data-dependent index `%row`
    of one dimension (defined in a serial loop's body), the threads also
    split that dimension: about `owner-threads` threads in all, each owning
    a range of rows, running the serial loops and, after computing `%row`,
    the rest of the body only when `%row` is one of its rows. Every
    element is still updated by one thread in the serial loops' order: the
    CPU's sums bit for bit. Only nests whose memory accesses are element
    loads and stores qualify, the written buffer defined outside the nest
    and every `cf.assert` before `%row` (so that a row no thread owns still
    fails its range check).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
    Option<"ownerThreads", "owner-threads", "int64_t", /*default=*/"131072",
           "A nest with fewer parallel points than this whose one written "
           "buffer is indexed by a data-dependent row also splits that "
           "buffer's rows over threads, up to about this many threads "
           "(0: off; at most 2^24)">,
  ];
  let dependentDialects = [
    "arith::ArithDialect", "gpu::GPUDialect", "scf::SCFDialect"
  ];
}

def DistGpuLaunchToLoops : Pass<"dist-gpu-launch-to-loops", "func::FuncOp"> {
  let summary = "Run gpu.launch kernels on the host, one thread at a time";
  let description = [{
    The CUDA emulator (`dist-compile --target=cuda-emulate`): replaces each
    `gpu.launch` made by `dist-row-kernels`, `dist-linalg-to-gpu` or
    `dist-loops-to-gpu` by host loops over its blocks and threads, so that
    the generated kernels' indexing, guards and reductions run on the CPU
    and can be compared with the CPU backend on machines without a GPU.
    Block reductions (`gpu.all_reduce`, in the kernel's body, not nested)
    come in stages of consecutive ones; for each stage, every thread runs
    the part of the body before it, with the earlier stages' totals,
    folding the reduced values in thread order. Then every thread runs the
    part before the last stage (which may only read memory) and keeps the
    values the rest uses in a buffer, before any thread runs the rest with
    them and the totals: as on the GPU, where the reductions are barriers,
    no thread's writes after them change what another thread read before.
    Barriers and shuffles are rejected. Not a performance path: the kernels
    run serially.
  }];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect",
                           "scf::SCFDialect"];
}

def DistMergeGpuModules : Pass<"dist-merge-gpu-modules", "ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel; each becomes
    its own ptxas and fatbinary run at `gpu-module-to-binary` and its own
    module load at run time. This pass moves all kernels into one
    `gpu.module @dist_kernels` (renaming a kernel on a name clash) and
    points every `gpu.launch_func` at it. Run it before `nvvm-attach-target`.
  }];
}

def DistDedupeGpuKernels : Pass<"dist-dedupe-gpu-kernels", "ModuleOp"> {
  let summary = "Keep one copy of each set of identical outlined kernels";
  let description = [{
    The layers of a model repeat their kernels (gpt2-xl's step launches
    about 8000 kernels, a few hundred distinct): each copy costs NVPTX code
    generation, a ptxas run over it and fatbin bytes. In each `gpu.module`,
    kernels whose generic-form text is the same under a fixed name are one
    kernel: the first is kept, the others are erased and their
    `gpu.launch_func`s launch the kept one (so a `--trace` names a shared
    kernel after its first use). Run it after `dist-merge-gpu-modules`.

    ```mlir
    gpu.module @dist_kernels {
      gpu.func @step_k3__h_0_Softmax(...) kernel { A }
      gpu.func @step_k9__h_1_Softmax(...) kernel { A }
    }
    gpu.launch_func @dist_kernels::@step_k9__h_1_Softmax ...
    ```
    keeps `@step_k3__h_0_Softmax` and launches it instead.
  }];
}

def DistPreciseGpuMath : Pass<"dist-precise-gpu-math", "gpu::GPUModuleOp"> {
  let summary = "Square roots in kernels rounded as the CPU rounds them";
  let description = [{
    `convert-gpu-to-nvvm` lowers `math.sqrt` and `math.rsqrt` to libdevice's
    `__nv_sqrtf` and `__nv_rsqrtf`, which choose by `__nvvm_reflect
    ("__CUDA_PREC_SQRT")`; LLVM 22's NVVMReflect does not know that name
    and answers 0, so they become `sqrt.approx.f32` and
    `rsqrt.approx.f32`: not correctly rounded, so a GPU step's AdamW
    denominators and gradient norms differ from the CPU's in the last
    bits. This pass, run on each `gpu.module` before
    `convert-gpu-to-nvvm`, makes `math.sqrt` of a float32 or float64 scalar
    the intrinsic `llvm.nvvm.sqrt.rn.f` (`.d`): `sqrt.rn`, correctly
    rounded as `sqrtf` on the CPU (`llvm.intr.sqrt` would be lowered to
    libdevice again), and `math.rsqrt` a division of 1 by it (`div.rn`; the
    CPU lowering's expansion).
  }];
  let dependentDialects = ["arith::ArithDialect", "LLVM::LLVMDialect"];
}

def DistHostMemoryToGpu : Pass<"dist-host-memory-to-gpu", "ModuleOp"> {
  let summary = "Copies and constants of a CUDA step on device memory";
  let description = [{
    In a CUDA program every buffer of the host functions lives on the GPU:
    `memref.alloc` becomes the runtime's device allocator (through
    `finalize-memref-to-llvm{use-generic-functions}`), and kernels do all
    reads and writes. This pass handles what remains on the host side after
    `dist-linalg-to-gpu`:

    - a `memref.copy` between contiguous buffers becomes a call of
      `mgpuMemcpy` on the compute stream (strided copies were made
      `linalg.copy` kernels before);
    - a `memref.get_global` of a constant (a host global) becomes a device
      buffer allocated at the function's start, filled from the global with
      `mgpuMemcpy`, and freed at its end;
    - any other host-side access to a buffer (`memref.load`, `store`, ...)
      is an error naming the op: the host cannot read device memory.
  }];
  let dependentDialects = [
    "arith::ArithDialect", "func::FuncDialect", "LLVM::LLVMDialect",
    "memref::MemRefDialect"
  ];
}

#endif // PASSES_CUDA_PASSES_TD
