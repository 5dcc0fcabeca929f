/*===- model.h - What a compiled model defines for the generic driver ------===*
 *
 * dist-compile turns a model into an object file that defines the two
 * symbols below; linked with libdistrt_main.a (which defines `main`) and
 * libdistrt, it becomes an executable with the command line described in
 * runtime/README.md.
 *
 * dist_model_interface is a NUL-terminated JSON object (RFC 8259, UTF-8)
 * describing the tensors dist_model_forward takes, for example:
 *
 *   {"format": "dist-model", "version": 1, "mode": "forward",
 *    "arguments": [
 *      {"role": "input", "name": "x", "dtype": "float32", "shape": [8, 32]},
 *      {"role": "param", "name": "fc.weight", "dtype": "float32",
 *       "shape": [10, 32]}],
 *    "outputs": [
 *      {"name": "logits", "dtype": "float32", "shape": [8, 10]}]}
 *
 * Members (any other, or a duplicate key, is an error):
 *
 *   format, version   "dist-model" and 1: required.
 *   mode              "forward" (the default) or "train" (a trainer, below).
 *   arguments         required: one object per argument, in argument order:
 *                     "role" ("input" or "param"; a trainer also has "step",
 *                     "seed", "hparam" and "state"), "name" (non-empty, any
 *                     characters; unique among the arguments), "dtype"
 *                     (distrt_dtype_name's spelling: float32, int64, bool,
 *                     ...), "shape" (sizes, [] for a scalar) and optionally
 *                     "split" and, on a param or state, "place" (below),
 *                     and for a trainer's integer inputs
 *                     "range" and "ignore", for a float state "init"
 *                     (its starting value; 0 without) (docs/trainer-abi.md).
 *   outputs           required: one object per result, in result order:
 *                     "name" (unique among the outputs), "dtype", "shape",
 *                     optionally "split"; no "role".
 *   mesh              the device mesh the model was compiled for: 1 to
 *                     DISTRT_MAX_MESH_DIMS sizes of at least 1 ([4], [2, 2]);
 *                     none: a single device. The executable then runs as one
 *                     process per device (`mpirun -np 4`); the driver calls
 *                     distrt_comm_init with the shape.
 *   target            {"device": "cuda", "arch": "sm_90"} for a model
 *                     compiled for a CUDA GPU; {"device": "cpu"}, or none,
 *                     for the host.
 *   flops             a trainer's floating-point operations per step in
 *                     matrix products and convolutions (per rank), for MFU.
 *   meta              an object of strings, numbers and booleans: a
 *                     trainer's compiled hyperparameters (optimizer, lr,
 *                     ...), shown by --help and kept in checkpoints.
 *
 * "split": [{"dim": D, "axes": [A, ...], "groups": G}, ...]: the tensor's
 * dimension D is split over the listed mesh axes (strictly increasing, each
 * used at most once per tensor; the product of their sizes times G must
 * divide the dimension). "groups" (default 1) makes a strided split: the
 * dimension is G equal groups, each split over the axes (a fused QKV
 * weight split by heads). A tensor without "split" is replicated: every
 * rank holds all of it. "shape" is always the whole (logical) tensor's; the
 * buffer dist_model_forward gets for a split tensor is this rank's shard:
 * each split dimension divided by the size of its group of devices, holding
 * the block at the rank's group rank over those axes.
 *
 * "place": {"axis": A, "stages": [S, ...]} on a param or state argument
 * (pipeline parallelism): only the ranks whose coordinate on mesh axis A
 * is one of the stages (non-empty, strictly increasing, below the axis's
 * size) hold the tensor, whole or their shard of it ("split" may not use
 * axis A); the others get a NULL pointer for it. A tensor on several
 * stages (tied weights) is held alike by each. Checkpoints still hold the
 * whole tensor (docs/trainer-abi.md, "Under a mesh").
 *
 * dist_model_forward gets one pointer per argument, then one per result, in
 * that order: contiguous row-major buffers of the declared dtype and shape
 * (of this rank's shard, for a split tensor; NULL for a placed tensor this
 * rank does not hold), 64-byte aligned; host buffers,
 * or DEVICE pointers (distrt.h, "CUDA device") for a model whose target is
 * cuda: the driver uploads the arguments, downloads the outputs, and exits
 * with status 2 when no GPU is usable (docs/trainer-abi.md, "On a GPU"). It
 * reads the arguments and writes the results.
 *
 * A trainer ("mode": "train") is one training step: dist_model_forward
 * updates its "param" and "state" arguments in place, and its outputs are
 * loss, grad_norm and lr (float32 scalars, in that order), then, with loss
 * scaling, loss_scale and skipped (1 for a step skipped for inf/NaN
 * gradients). Its "step" and
 * "seed" arguments (at most one each, int64 scalars) are the step number
 * and the run's seed; each "hparam" argument (a float64 scalar) is a
 * run-time hyperparameter whose default is the "meta" entry of the same
 * name: docs/trainer-abi.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef DISTRT_MODEL_H
#define DISTRT_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

extern const char dist_model_interface[];
void dist_model_forward(void **buffers);

/* Parameter-server mode (dist-compile --parallel=ps --mesh=W --servers=K):
 * dist_model_forward and dist_model_interface are the workers' gradient
 * function ("mode": "forward": inputs and parameters -> loss and one
 * "<param>.grad" per trained parameter, for the worker's rows of the
 * batch); the program also defines dist_ps_workers (W), dist_ps_servers
 * (K) and dist_ps_server(k, &interface), which returns server k's entry
 * point and sets `interface` to its description: a trainer whose inputs
 * are "loss", the "<param>.grad" of the parameters it owns and
 * "others_grad_sq" (the other servers' sum of squared gradients, for the
 * global norm). Weak here: other programs do not define them. */
typedef void (*dist_model_entry)(void **buffers);
extern const long long dist_ps_workers __attribute__((weak));
extern const long long dist_ps_servers __attribute__((weak));
/* 1 for asynchronous data parallelism (dist-compile --parallel=dp
 * --sync=async): no servers run; every rank is a worker that all-reduces
 * its gradients and runs server 0's update (K = 1: the whole model) on its
 * own copy, --staleness steps later. 0 (or absent) otherwise. */
extern const long long dist_ps_allreduce __attribute__((weak));
/* --grad-compression of the pushes: "none", "bf16", "fp16" or "topk:F". */
extern const char dist_ps_grad_compression[] __attribute__((weak));
dist_model_entry dist_ps_server(long long k, const char **interface)
    __attribute__((weak));

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DISTRT_MODEL_H */
