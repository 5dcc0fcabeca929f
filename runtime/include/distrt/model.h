/*===- model.h - What a compiled model defines for the generic driver ------===*
 *
 * dist-compile turns a model into an object file that defines the two
 * symbols below; linked with libdistrt_main.a (which defines `main`) and
 * libdistrt, it becomes an executable with the command line described in
 * runtime/README.md.
 *
 * dist_model_interface is NUL-terminated text, one line per tensor, '\n'
 * separated:
 *
 *   dist-model 1
 *   input <dtype> <shape> <name>
 *   param <dtype> <shape> <name>
 *   output <dtype> <shape> <name>
 *
 * `input` and `param` lines come in argument order (interleaved as the
 * function takes them), `output` lines in result order. <dtype> is
 * distrt_dtype_name's spelling (float32, int64, bool, ...; the short forms
 * f32, f64, f16, bf16, i64, i32, i16, i8, u64, u32, u16, u8 are accepted
 * too); <shape> is `8x32`, or `scalar` for rank 0; <name> is the rest of the
 * line (it may contain spaces, dots and slashes). Argument names are unique,
 * and so are output names.
 *
 * dist_model_forward gets one pointer per argument, then one per result, in
 * that order: contiguous row-major host buffers of the declared dtype and
 * shape (of this rank's shard, for a split tensor), 64-byte aligned. It
 * reads the arguments and writes the results.
 *
 * A model compiled for a device mesh (distrt.h, "Mesh and collectives")
 * also has, anywhere after line 1 (line 2 is `mode train` for a trainer):
 *
 *   mesh <shape>                        e.g. `mesh 4`, `mesh 2x2`
 *   shard <dim> <axis>[,<axis>...] <name>
 *
 * `mesh`: at most one line, 1 to DISTRT_MAX_MESH_DIMS sizes of at least 1
 * (none: a single device). The executable then runs as one process per
 * device (`mpirun -np 4`); the driver calls distrt_comm_init with the shape.
 * `shard`: the argument or output <name> (the rest of the line; a name that
 * is both an argument's and an output's is an error) is split along its
 * dimension <dim> over the listed mesh axes (strictly increasing, each used
 * at most once per tensor; the product of their sizes must divide the
 * dimension). A tensor without shard lines is replicated: every rank holds
 * all of it. The shapes of the tensor lines are always the whole (logical)
 * tensors'; the buffer dist_model_forward gets for a split tensor is this
 * rank's shard: each split dimension divided by the size of its group of
 * devices, holding the block at the rank's group rank over those axes.
 *
 * A model compiled for a CUDA GPU also has, anywhere after line 1:
 *
 *   target cuda <arch>                  e.g. `target cuda sm_90`
 *
 * (at most one; `target cpu`, or none, is the host). Its dist_model_forward
 * then gets DEVICE pointers (distrt.h, "CUDA device") for every argument
 * and output, in the same order and shapes: the driver uploads the
 * arguments, downloads the outputs, and exits with status 2 when no GPU is
 * usable (docs/trainer-abi.md, "On a GPU").
 *
 * A trainer says `mode train` on line 2; its dist_model_forward is one
 * training step, which updates its `param` and `state` arguments in place.
 * Its text may also have `step <dtype> <shape> <name>` and `state ...`
 * argument lines, `range <input> <n>` and `meta <key> <value>` lines, and
 * its outputs are loss, grad_norm and lr: docs/trainer-abi.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef DISTRT_MODEL_H
#define DISTRT_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

extern const char dist_model_interface[];
void dist_model_forward(void **buffers);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DISTRT_MODEL_H */
