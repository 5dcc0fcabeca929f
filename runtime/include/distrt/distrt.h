/*===- distrt.h - The dist runtime: C ABI for compiled programs -----------===*
 *
 * What a program compiled by dist-compile calls: memory, tensor files
 * (.npy, safetensors), gemm, logging and timers, a device mesh and its
 * collectives (over MPI), a CUDA GPU (its memory, cuBLASLt gemm and the
 * host ABI of MLIR's GPU lowering). Plain C, no MLIR or LLVM
 * dependency. Every buffer carries the device it lives on, so a CUDA backend
 * (device memory, streams, cuBLAS) and collectives (MPI, NCCL) can slot in
 * behind the same calls.
 *
 * Errors: calls that can fail return 0 on success and -1 on failure (or
 * NULL, for those that return a pointer); distrt_last_error() then describes
 * the failure (per thread).
 *
 *===----------------------------------------------------------------------===*/

#ifndef DISTRT_DISTRT_H
#define DISTRT_DISTRT_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* libdistrt.so is built with hidden visibility: what this header declares
 * is all it exports. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Element types, the same set as the dist dialect: the one definition of
 * their numbering, names and sizes, which the compiler reads too
 * (dialects/Dist/Runtime/RuntimeTypes.cpp). X(ENUM, name, bytes, float?,
 * signed?, bits), in enum order. */
#define DISTRT_DTYPES(X)                                                       \
  X(F32, "float32", 4, 1, 1, 32)                                               \
  X(F64, "float64", 8, 1, 1, 64)                                               \
  X(F16, "float16", 2, 1, 1, 16)                                               \
  X(BF16, "bfloat16", 2, 1, 1, 16)                                             \
  X(I64, "int64", 8, 0, 1, 64)                                                 \
  X(I32, "int32", 4, 0, 1, 32)                                                 \
  X(I16, "int16", 2, 0, 1, 16)                                                 \
  X(I8, "int8", 1, 0, 1, 8)                                                    \
  X(U64, "uint64", 8, 0, 0, 64)                                                \
  X(U32, "uint32", 4, 0, 0, 32)                                                \
  X(U16, "uint16", 2, 0, 0, 16)                                                \
  X(U8, "uint8", 1, 0, 0, 8)                                                   \
  X(BOOL, "bool", 1, 0, 0, 1)

typedef enum distrt_dtype {
#define DISTRT_DTYPE_ENUM(e, name, bytes, isFloat, isSigned, bits) DISTRT_##e,
  DISTRT_DTYPES(DISTRT_DTYPE_ENUM)
#undef DISTRT_DTYPE_ENUM
      DISTRT_NUM_DTYPES
} distrt_dtype;

/* Where memory lives: the host, or a CUDA GPU ("CUDA device" below). */
typedef enum distrt_device_kind {
  DISTRT_HOST = 0,
  DISTRT_CUDA = 1
} distrt_device_kind;

typedef struct distrt_device {
  distrt_device_kind kind;
  int32_t index; /* which GPU, for DISTRT_CUDA */
} distrt_device;

#define DISTRT_MAX_RANK 8

/* A dense row-major tensor. `data` belongs to whoever allocated it. */
typedef struct distrt_tensor {
  distrt_dtype dtype;
  int32_t rank;
  int64_t shape[DISTRT_MAX_RANK];
  distrt_device device;
  void *data;
} distrt_tensor;

/* The message of the last failed call on this thread ("" if none). */
const char *distrt_last_error(void);

/* Bytes per element (1 for bool), and the numpy-style name ("float32"). */
size_t distrt_dtype_size(distrt_dtype dtype);
const char *distrt_dtype_name(distrt_dtype dtype);
/* Number of elements (1 for rank 0). */
int64_t distrt_tensor_numel(const distrt_tensor *tensor);

/* `bytes` of memory on `device`, 64-byte aligned (256 on a CUDA device);
 * NULL on failure (an unavailable device, or out of memory).
 * distrt_free(NULL) does nothing. CUDA memory comes from the caching
 * allocator ("CUDA device" below), and is freed in stream order. */
void *distrt_alloc(distrt_device device, size_t bytes);
void distrt_free(distrt_device device, void *memory);

/* The host allocations of compiled code: its malloc, aligned_alloc and free
 * (dist-compile's CPU lowering calls these instead of the C library's), so
 * that tensor memory is counted. Same contracts as the C functions. */
void *distrt_host_malloc(size_t bytes);
void *distrt_host_aligned_alloc(size_t alignment, size_t bytes);
void distrt_host_free(void *memory);

/* Host tensor memory: the bytes held now and the most held at once since
 * the start (or the last reset), of the blocks distrt_alloc(host) and
 * distrt_host_malloc / _aligned_alloc returned and were not freed, as the
 * allocator sized them (malloc_usable_size). The trainer reports the peak
 * as "tensor_peak_mib"; dist-compile --explain predicts it. */
void distrt_host_memory(int64_t *in_use, int64_t *peak);
/* Sets the peak to the bytes held now. */
void distrt_host_memory_reset_peak(void);

/* Copies `bytes` from `src` on `src_device` to `dst` on `dst_device` (host
 * to host, host to device, device to host, device to device). Returns once
 * the copy is complete as far as the host can tell: `src` may be reused,
 * and after a device-to-host copy (which waits for the compute stream, and
 * so for the work queued before it) `dst` holds the bytes. Host-to-device
 * and device-to-device copies are ordered on the compute stream before any
 * later work. Host-to-host copies may overlap (memmove). */
int distrt_copy(distrt_device dst_device, void *dst, distrt_device src_device,
                const void *src, size_t bytes);

/* Reads a .npy file (format 1.0 to 3.0, little-endian, C order) into a host
 * tensor whose data the caller frees with distrt_free. */
int distrt_npy_read(const char *path, distrt_tensor *out);
/* Writes a host tensor as a .npy file (format 1.0). */
int distrt_npy_write(const char *path, const distrt_tensor *tensor);

/* A monotonic clock, in nanoseconds. */
uint64_t distrt_now_ns(void);

/*===--- Matrix products --------------------------------------------------===*/

/* Row-major strided-batched matrix product:
 * for b in [0, batch): C_b = alpha * op(A_b) * op(B_b) + beta * C_b, where
 * op(X) is X or X^T (trans_a / trans_b non-zero), op(A_b) is m x k, op(B_b)
 * is k x n, C_b is m x n, and X_b starts at X + b * stride_x elements.
 * lda/ldb/ldc are row strides in elements of A, B and C as stored (so
 * lda >= k, or >= m when A is transposed). A stride of 0 broadcasts one A or
 * B to every batch; C's stride may be 0 only when batch is 1. With beta == 0,
 * C is not read (NaNs there do not propagate); with k == 0, C_b = beta * C_b.
 * dtype is DISTRT_F32 or DISTRT_F64 (A, B and C of that type), or
 * DISTRT_BF16 or DISTRT_F16: A and B of that type, C float32, the products
 * exact and summed in float32 (mixed precision). Host memory only.
 * Returns 0, or -1 with distrt_last_error() set (unsupported dtype, bad
 * sizes or strides). */
int distrt_gemm(distrt_dtype dtype, int trans_a, int trans_b, int64_t batch,
                int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                int64_t lda, int64_t stride_a, const void *b, int64_t ldb,
                int64_t stride_b, double beta, void *c, int64_t ldc,
                int64_t stride_c);

/* A Chrome / Perfetto trace of this process (trainer --trace): after
 * distrt_trace_start(path), spans are recorded while distrt_trace_record(1)
 * is in effect, on the tracks "compute" (gemm calls, distrt_trace_span's
 * steps), "collectives (waiting)" (each wait of this process on others,
 * with the bytes and mesh axes) and "collectives in flight" (a started
 * collective from its start to the end of its wait); distrt_trace_finish
 * writes them as one JSON file, process id = rank. Times are wall-clock
 * microseconds. distrt_trace_span takes distrt_now_ns times; its track is
 * "compute" or "collectives". Start and finish return 0, or -1 with the
 * error set. */
int distrt_trace_start(const char *path);
void distrt_trace_record(int on);
void distrt_trace_span(const char *track, const char *name, uint64_t start_ns,
                       uint64_t end_ns);
int distrt_trace_finish(void);
/* Called by compiled code around each generated kernel (dist-trace-kernels):
 * begin returns 0 unless recording (then distrt_now_ns()); end records the
 * span [start, now) named `name` on the compute track if start != 0. */
uint64_t distrt_trace_kernel_begin(void);
void distrt_trace_kernel_end(uint64_t start_ns, const char *name);

/* Which library distrt_gemm multiplies `dtype` with on this machine:
 * "oneDNN" or "OpenBLAS" (bfloat16 / float16 inputs widened to float32
 * first). Chosen on first use from the environment variable
 * DISTRT_CPU_GEMM: auto (default; oneDNN for bfloat16 and float16 where
 * the CPU multiplies them natively and oneDNN's product checks out, else
 * OpenBLAS), onednn (also float32) or openblas. float64 is OpenBLAS's. */
const char *distrt_gemm_backend(distrt_dtype dtype);

/*===--- Safetensors files ------------------------------------------------===*/

/* A safetensors file (github.com/huggingface/safetensors) opened for reading:
 * its header is parsed and validated on open, tensors are read on demand. */
typedef struct distrt_safetensors distrt_safetensors;

/* Opens and validates `path`; NULL + error on failure. The error names the
 * file and, where one is at fault, the tensor. */
distrt_safetensors *distrt_safetensors_open(const char *path);
/* Closes `file`; NULL does nothing. */
void distrt_safetensors_close(distrt_safetensors *file);
/* The number of tensors, and the name of the index-th in header order (NULL
 * + error when index is out of range). Names live as long as the file. */
int64_t distrt_safetensors_count(const distrt_safetensors *file);
const char *distrt_safetensors_name(const distrt_safetensors *file,
                                    int64_t index);
/* Fills dtype, rank and shape of `name` (a host tensor with data = NULL);
 * -1 + error if absent. */
int distrt_safetensors_info(const distrt_safetensors *file, const char *name,
                            distrt_tensor *info);
/* Copies the tensor's bytes into dst, which holds `bytes` bytes (must equal
 * the tensor's size). Safe to call from several threads at once. */
int distrt_safetensors_read(const distrt_safetensors *file, const char *name,
                            void *dst, size_t bytes);
/* The value of metadata `key` ("__metadata__" in the header); NULL if
 * absent. */
const char *distrt_safetensors_metadata(const distrt_safetensors *file,
                                        const char *key);
/* The number of metadata entries, and the key of the index-th (NULL + error
 * when index is out of range). */
int64_t distrt_safetensors_metadata_count(const distrt_safetensors *file);
const char *distrt_safetensors_metadata_key(const distrt_safetensors *file,
                                            int64_t index);
/* Writes `count` host tensors under `names` (unique, UTF-8, not
 * "__metadata__"), in that order, and `metadata_count` string metadata pairs,
 * through a temporary file in the same directory + fsync + rename, so `path`
 * is either the old file or the complete new one. */
int distrt_safetensors_write(const char *path, int64_t count,
                             const char *const *names,
                             const distrt_tensor *tensors,
                             int64_t metadata_count,
                             const char *const *metadata_keys,
                             const char *const *metadata_values);

/*===--- Run-time checks --------------------------------------------------===*/

/* Called by compiled code when a run-time check fails (a gather index or a
 * loss label out of range): prints `error: <message>` on stderr and exits
 * with status 1 (distrt_comm_abort: under a mesh of several processes the
 * whole job ends). */
void distrt_fail(const char *message)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/*===--- Top-k selection ---------------------------------------------------===*/

/* Of each of `rows` rows of `n` float32 at `x`, the `k` elements largest in
 * magnitude (ties, NaNs among them: the lower index; NaN counts as the largest), in
 * ascending index order: values[r*k + i] and their positions in the row
 * indices[r*k + i]; `rest` (n per row, may be `x` itself) gets the row with
 * them set to 0. Top-k gradient compression (dist.sparsify_top_k and
 * parameter-server pushes). 1 <= k <= n, else distrt_fail. Host memory. */
void distrt_sparsify_top_k(const float *x, int64_t rows, int64_t n, int64_t k,
                           float *values, int64_t *indices, float *rest);

/*===--- Mesh and collectives ---------------------------------------------===*/

/* A program compiled for a device mesh runs as one process (rank) per
 * device, each on its local shards. The mesh is an N-D shape of devices
 * (0 to DISTRT_MAX_MESH_DIMS axes; none: a single device); world rank r has
 * the mesh coordinates of r in row-major order of the shape (axis 0 is the
 * outermost).
 *
 * An `axes_mask` selects mesh axes (bit i = axis i). The group of a rank for
 * a mask is the ranks that share its coordinates on every axis NOT in the
 * mask; its group rank is the row-major index of its coordinates on the
 * mask's axes (in increasing axis order), and the group size the product of
 * those axes' sizes. Mask 0 is a group of one. Masks may name any of
 * DISTRT_MAX_MESH_DIMS axes: those beyond the mesh's have size 1. Before
 * distrt_comm_init the mesh is a single device (no axes, rank 0).
 *
 * The collectives are called by compiled code, which has no error path: on
 * any error (a bad dtype, op, mask or size, an MPI failure, a mesh > 1 that
 * is not initialized) they print `error: distrt: <what>` on stderr and end
 * the whole job (MPI_Abort when MPI is initialized, else exit(1)). Over a
 * group of one they are copies (or nothing, in place) and never touch MPI.
 * Host memory only; `in` and `out` must not overlap; call them from one
 * thread at a time. Every rank of a group must make the same calls in the
 * same order with the same sizes. Reductions take the float dtypes
 * (float16 and bfloat16 reduce in float), the integer dtypes and (max, min
 * only) bool; moving data (gather, broadcast, send, ...) takes every
 * dtype. Counts above 2^31 - 1 elements per rank are supported by
 * all_reduce, broadcast, send and recv, not by all_gather and
 * reduce_scatter. */

#define DISTRT_MAX_MESH_DIMS 4

/* Reduction ops. MEAN sums, then divides by the group size (float dtypes
 * only; float32 or float64 divides in its own precision, the 16-bit floats
 * in float). */
typedef enum distrt_reduce_op {
  DISTRT_OP_SUM = 0,
  DISTRT_OP_MAX = 1,
  DISTRT_OP_MIN = 2,
  DISTRT_OP_MEAN = 3
} distrt_reduce_op;

/* Joins the job as one device of a mesh of `ndims` axes of sizes
 * `mesh_shape` (each >= 1). The rank, world size and local rank come from
 * the launcher's environment: OMPI_COMM_WORLD_RANK/_SIZE/_LOCAL_RANK (Open
 * MPI), else PMI_RANK (or PMIX_RANK)/PMI_SIZE/MPI_LOCALRANKID (MPICH), else
 * RANK/WORLD_SIZE/LOCAL_RANK (torchrun); none: a single process. A mesh of
 * one device in a single process does not initialize MPI at all. Otherwise
 * the world size must equal the mesh's size (checked before any
 * communication); MPI is initialized (unless the program did) and one
 * communicator is created per non-empty set of mesh axes. Returns 0, or -1
 * with distrt_last_error() set (a bad shape, a wrong number of processes:
 * "this program was compiled for a mesh of 2x2 = 4 devices but runs on 2
 * processes: run it with mpirun -np 4", a build without MPI, a second
 * call). */
int distrt_comm_init(int32_t ndims, const int64_t *mesh_shape);
/* Frees the communicators, and finalizes MPI if distrt_comm_init
 * initialized it. Collectives over more than one device are then errors.
 * Does nothing without a successful distrt_comm_init. */
void distrt_comm_finalize(void);
/* The longest a process may wait in one collective (or send, receive,
 * barrier) before it decides that another process died, hangs or was
 * stopped: it then prints what it waited for, at which step and for which
 * group, and exits with status 4 (the launcher ends the rest of the job).
 * Default: DISTRT_COLLECTIVE_TIMEOUT (seconds) if set, else 60; 0 turns the
 * limit off. Returns 0, or -1 for a negative or NaN value. */
int distrt_set_collective_timeout(double seconds);
/* This process's world rank, the number of processes, and its rank among
 * those on its node (0, 1, 0 before distrt_comm_init). */
int32_t distrt_comm_rank(void);
int32_t distrt_comm_world(void);
int32_t distrt_comm_local_rank(void);
/* How the processes talk: "MPI", "TCP" (a torchrun-style launch) or, where
 * GPU buffers go over NCCL, "NCCL (started over MPI)" or "... TCP)"; ""
 * for a single process. */
const char *distrt_comm_transport(void);
/* The mesh's number of axes, and the size of one (1 for an axis beyond the
 * mesh; -1 with distrt_last_error() set outside [0,
 * DISTRT_MAX_MESH_DIMS)). */
int32_t distrt_mesh_ndims(void);
int64_t distrt_mesh_size(int32_t axis);
/* This rank's coordinate on mesh `axis` (0 beyond the mesh), its rank
 * within its group for `axes_mask`, and that group's size; -1 with
 * distrt_last_error() set for an axis outside [0, DISTRT_MAX_MESH_DIMS) or
 * a mask with other bits. */
int64_t distrt_mesh_coord(int32_t axis);
int64_t distrt_group_rank(int64_t axes_mask);
int64_t distrt_group_size(int64_t axes_mask);
/* The world rank of the rank whose mesh coordinates are this rank's on
 * every axis but `axis`, and `coord` on it: the peer of distrt_send and
 * distrt_recv along one axis (the next stage of a pipeline on that axis is
 * distrt_mesh_peer(axis, distrt_mesh_coord(axis) + 1)). `coord` equal to
 * this rank's coordinate gives this rank. -1 with distrt_last_error() set
 * for an axis outside [0, DISTRT_MAX_MESH_DIMS) or a coordinate outside
 * [0, distrt_mesh_size(axis)). */
int32_t distrt_mesh_peer(int32_t axis, int64_t coord);
/* Ends the whole job with exit status `status`: MPI_Abort when MPI is
 * initialized (so that no other rank waits forever), else exit(). */
void distrt_comm_abort(int32_t status)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* In place: buf[0, count) becomes the reduction over the group of every
 * rank's buf (`op` a distrt_reduce_op). */
void distrt_all_reduce(distrt_dtype dtype, distrt_reduce_op op, void *buf,
                       int64_t count, int64_t axes_mask);
/* `in` is [outer, inner] row-major, `out` [outer, G * inner] (G the group
 * size) with out[o, g * inner + i] = in[o, i] of group rank g: a gather
 * along any dimension of a tensor (outer = the product of the dimensions
 * before it, inner = the local dimension times those after it). */
void distrt_all_gather(distrt_dtype dtype, const void *in, void *out,
                       int64_t outer, int64_t inner, int64_t axes_mask);
/* `in` is [outer, G * inner], `out` [outer, inner]: the reduction over the
 * group of in[:, g * inner + i] for this rank's group rank g. */
void distrt_reduce_scatter(distrt_dtype dtype, distrt_reduce_op op,
                           const void *in, void *out, int64_t outer,
                           int64_t inner, int64_t axes_mask);
/* No communication: out[o, i] = in[o, g * inner + i] for this rank's group
 * rank g (its slice of a replicated [outer, G * inner] tensor). */
void distrt_shard_slice(distrt_dtype dtype, const void *in, void *out,
                        int64_t outer, int64_t inner, int64_t axes_mask);
/* buf[0, count) of group rank `root_group_rank` to every rank of the
 * group. */
void distrt_broadcast(distrt_dtype dtype, void *buf, int64_t count,
                      int64_t root_group_rank, int64_t axes_mask);
/* Point to point, by world rank (not this rank); tag >= 0. A send may
 * block until the matching recv. */
void distrt_send(distrt_dtype dtype, const void *buf, int64_t count,
                 int32_t peer_world_rank, int32_t tag);
void distrt_recv(distrt_dtype dtype, void *buf, int64_t count,
                 int32_t peer_world_rank, int32_t tag);
/* Receives `count` elements (one message's worth) from whichever rank
 * sends first with `tag` (distrt_send), and returns that rank. MPI only. */
int32_t distrt_recv_any(distrt_dtype dtype, void *buf, int64_t count,
                        int32_t tag);
/* Waits until every rank of the group gets here. */
void distrt_barrier(int64_t axes_mask);

/* Non-blocking versions: start the collective and return a request handle
 * (>= 0) for distrt_wait, which completes it (with the rearranging or the
 * division of a mean). The buffers must stay valid and untouched until
 * then. Waiting twice, or on a handle never returned, is an error; the
 * handle of a completed request may be returned again by a later start. */
int64_t distrt_all_reduce_start(distrt_dtype dtype, distrt_reduce_op op,
                                void *buf, int64_t count, int64_t axes_mask);
int64_t distrt_all_gather_start(distrt_dtype dtype, const void *in, void *out,
                                int64_t outer, int64_t inner,
                                int64_t axes_mask);
int64_t distrt_reduce_scatter_start(distrt_dtype dtype, distrt_reduce_op op,
                                    const void *in, void *out, int64_t outer,
                                    int64_t inner, int64_t axes_mask);
void distrt_wait(int64_t request);

/*===--- CUDA device ------------------------------------------------------===*/

/* One NVIDIA GPU, through the CUDA driver API and cuBLASLt, both opened
 * with dlopen when first needed: nothing of CUDA is linked, so every distrt
 * (libdistrt.so, libdistrt_cuda.a) starts on a machine without them. The
 * driver is `libcuda.so.1` (DISTRT_CUDA_DRIVER=<full path> instead; when
 * set, nothing else is tried), else found in the loader path,
 * $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64, Python's
 * nvidia/<x>/lib folders, and last the toolkit's link stub
 * (lib64/stubs/libcuda.so, which only says that there is no driver).
 * cuBLASLt is `libcublasLt.so.13` (DISTRT_CUBLASLT=<full path>), else the
 * loader path, the toolkit folders and Python's nvidia/<x>/lib.
 *
 * One device (0: local rank 0), its primary context, and ONE compute
 * stream, on which everything (compiled kernels, gemm, copies, the
 * allocator's reuse) is ordered. Device memory comes from a caching
 * allocator: sizes round up to 512 bytes (to 2 MiB from 1 MiB on), a freed
 * block goes to a free list of its size and is reused in stream order, so a
 * training step that allocates the same sizes every time calls cuMemAlloc
 * only in its first step. When cuMemAlloc runs out of memory the cached
 * blocks are given back to the driver and the call is retried once.
 *
 * Calls made by compiled code (distrt_cuda_gemm, the mgpu* functions) have
 * no error path: on failure they print `error: distrt: <call>(<what>)
 * failed: <CUDA error name>: <its description> (step N)` (the step of
 * distrt_set_step, or "before the first step") and exit with status 1.
 * Kernel errors are asynchronous: they surface at the next synchronizing
 * call (a download, distrt_device_synchronize). With DISTRT_CUDA_SYNC=1 in
 * the environment every kernel launch and gemm is followed by a
 * synchronization, so that the failing one is named. */

/* Opens the driver, device 0, its primary context and the compute stream
 * (cuBLASLt is opened at the first gemm). Idempotent; a failure is
 * remembered and returned again. Returns 0, or -1 with distrt_last_error()
 * = "no usable CUDA GPU: <why>" (the library is missing, it is the
 * toolkit's driver stub, cuInit failed (e.g. CUDA_ERROR_NO_DEVICE), no
 * device, or this distrt was built without the CUDA headers). */
int distrt_cuda_init(void);

/* Waits for everything queued on the device's compute stream (the host:
 * nothing to do). Returns -1 with distrt_last_error() set when queued work
 * failed: "a kernel failed: <CUDA error> (a run-time check in the step,
 * such as an index out of range, or a bug); rerun with DISTRT_CUDA_SYNC=1
 * to find which". */
int distrt_device_synchronize(distrt_device device);

/* The step number the errors of compiled code's calls name; the driver
 * sets it before each step. */
void distrt_set_step(int64_t step);

/* The caching allocator's size classes (the block a request of `bytes`
 * gets: 512-byte granules below 1 MiB, 2 MiB granules from 1 MiB on) and
 * the cuBLASLt workspace distrt_cuda_gemm allocates on its first call and
 * holds to the end. The compiler's device-memory estimate
 * (dist-estimate-memory) uses the same figures. */
#define DISTRT_CUDA_GEMM_WORKSPACE_BYTES ((uint64_t)32 << 20)
static inline uint64_t distrt_cuda_block_bytes(uint64_t bytes) {
  uint64_t granule = bytes < ((uint64_t)1 << 20) ? 512 : ((uint64_t)2 << 20);
  if (bytes == 0)
    bytes = 1; /* a distinct block for every allocation */
  return (bytes + granule - 1) / granule * granule;
}

/* The caching allocator's counters, in bytes: memory handed out now and
 * at most since the start (or distrt_cuda_reset_peak), memory held from the
 * driver (handed out + cached), the number of cuMemAlloc calls, and the
 * device's total memory. -1 with distrt_last_error() set before a
 * successful distrt_cuda_init. */
typedef struct distrt_cuda_memory {
  uint64_t in_use;
  uint64_t peak_in_use;
  uint64_t reserved;
  uint64_t driver_allocs;
  uint64_t device_total;
} distrt_cuda_memory;
int distrt_cuda_memory_stats(distrt_cuda_memory *out);
/* peak_in_use becomes in_use. */
void distrt_cuda_reset_peak(void);

/* The device's name ("NVIDIA H100 80GB HBM3") and compute capability
 * (9, 0); NULL or -1 with distrt_last_error() set before a successful
 * distrt_cuda_init. */
const char *distrt_cuda_device_name(void);
int distrt_cuda_compute_capability(int *major, int *minor);

/* The device's dense peak rate of gemm in `dtype` (FLOP/s), from a table
 * of NVIDIA's datasheets matched by the device's name: float32 (the TF32
 * tensor cores' when `tf32` is non-zero), float64 (tensor cores), float16
 * and bfloat16. 0 when unknown (another GPU or dtype, or before
 * distrt_cuda_init). */
double distrt_cuda_peak_flops(distrt_dtype dtype, int tf32);

/* Non-zero: float32 gemms may round their inputs to TF32 on the tensor
 * cores (CUBLAS_COMPUTE_32F_FAST_TF32, much faster, about 3 decimal digits
 * per input). Zero (the default): exact float32, like the CPU. Takes
 * effect at the next gemm. */
void distrt_cuda_set_allow_tf32(int allow);

/* What distrt_cuda_gemm does to each product element after C = alpha *
 * op(A) op(B) + beta * C, in cuBLASLt's epilogue (no extra kernel):
 * DISTRT_GEMM_BIAS adds bias[j] (n elements, the same for every row and
 * batch) to column j; DISTRT_GEMM_BIAS_GELU then applies the tanh
 * approximation of GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
 * and, when `aux` is given, also writes the values before GELU there. */
typedef enum distrt_gemm_epilogue {
  DISTRT_GEMM_PLAIN = 0,
  DISTRT_GEMM_BIAS = 1,
  DISTRT_GEMM_BIAS_GELU = 2,
} distrt_gemm_epilogue;

/* distrt_gemm's semantics exactly (row-major, strided batched, stride 0
 * broadcasts A or B, beta == 0 does not read C, k == 0 scales C by beta)
 * on device pointers, queued on the compute stream, with cuBLASLt: float32
 * (CUBLAS_COMPUTE_32F, or _FAST_TF32, above) or float64
 * (CUBLAS_COMPUTE_64F), then `epilogue` (above; float32 only, k > 0,
 * batch 1; aux is m x n with row stride ldaux, a multiple of 8, or NULL).
 * The descriptors and the algorithm of each shape (with the pointers'
 * alignments) are chosen at its first call and kept, so runs are
 * deterministic; a 32 MiB workspace comes from the allocator. k == 0 with
 * beta other than 0 or 1 is not supported. `c_dtype` is C's element type:
 * distrt_gemm's (dtype, or float32 for bfloat16 / float16 inputs), or
 * DISTRT_BF16 for bfloat16 inputs: the float32 sums are then rounded to
 * nearest even into a bfloat16 C (what arith.truncf does, once: split-K
 * partial sums stay float32; beta must be 0 and the epilogue plain),
 * which saves writing and reading the float32
 * product when only its bfloat16 rounding is used. `op` (may be NULL) says which
 * op of the model the product computes; errors name it. Called by compiled
 * code: a failure (bad sizes, cuBLASLt missing or failing) prints the error
 * and exits with status 1, as above; it returns 0 otherwise. */
int distrt_cuda_gemm(distrt_dtype dtype, int trans_a, int trans_b,
                     int64_t batch, int64_t m, int64_t n, int64_t k,
                     double alpha, const void *a, int64_t lda, int64_t stride_a,
                     const void *b, int64_t ldb, int64_t stride_b, double beta,
                     void *c, int64_t ldc, int64_t stride_c,
                     distrt_gemm_epilogue epilogue, const void *bias, void *aux,
                     int64_t ldaux, distrt_dtype c_dtype, const char *op);

/* distrt_cuda_gemm's arguments and results on host memory, computed with
 * distrt_gemm and the epilogue in plain C++: what --target=cuda-emulate
 * calls in place of cuBLASLt. Exits with status 1 on failure, as above. */
int distrt_emulate_cuda_gemm(distrt_dtype dtype, int trans_a, int trans_b,
                             int64_t batch, int64_t m, int64_t n, int64_t k,
                             double alpha, const void *a, int64_t lda,
                             int64_t stride_a, const void *b, int64_t ldb,
                             int64_t stride_b, double beta, void *c,
                             int64_t ldc, int64_t stride_c,
                             distrt_gemm_epilogue epilogue, const void *bias,
                             void *aux, int64_t ldaux, distrt_dtype c_dtype,
                             const char *op);

/* The host functions that MLIR's gpu-to-llvm lowering makes compiled code
 * call (their names and signatures are MLIR's). A module's image
 * (mgpuModuleLoad: a cubin or fatbin; mgpuModuleLoadJIT: PTX) is only
 * recorded when loaded, from a global constructor before main, so a
 * program starts on a machine without a GPU; it is loaded into the context
 * at its first mgpuModuleGetFunction. mgpuModuleUnload (a global
 * destructor, after main) does nothing: the process's end frees it.
 * mgpuModuleGetFunction is cached per (module, name). Streams: every
 * mgpuStreamCreate returns the compute stream (all compiled work is ordered
 * on it), mgpuStreamDestroy does nothing, mgpuStreamSynchronize only waits
 * with DISTRT_CUDA_SYNC=1 (compiled code never reads device memory on the
 * host; the driver waits before reading results). Events are real
 * (CU_EVENT_DISABLE_TIMING). mgpuMemAlloc/mgpuMemFree and the memref
 * allocation functions use the caching allocator (host-shared memory is
 * not supported; alignment up to 256 bytes; size 0 gives a distinct small
 * block). A null stream is the compute stream. */
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int32_t opt_level);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t shared_memory_bytes,
                      void *stream, void **params, void **extra,
                      size_t params_count);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t size_bytes, void *stream, bool is_host_shared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t size_bytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
/* The memref allocation functions of MLIR's generic lowering: in a program
 * compiled for CUDA, host-side memref allocations are device buffers. */
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/*===--- Logging ----------------------------------------------------------===*/

typedef enum distrt_log_level {
  DISTRT_LOG_ERROR = 0,
  DISTRT_LOG_WARN,
  DISTRT_LOG_INFO,
  DISTRT_LOG_DEBUG
} distrt_log_level;

/* Writes one line to stderr, `[distrt LEVEL +12.345s] message`, when `level`
 * is at or above the threshold set by the environment variable
 * DISTRT_LOG_LEVEL (error, warn, info or debug; default warn). The time
 * counts from the first logging call of the process. Under a launcher that
 * sets OMPI_COMM_WORLD_RANK, PMI_RANK or RANK, the line names the rank:
 * `[distrt r1 INFO +0.002s] ...`. A trailing newline in `fmt` is optional. */
void distrt_log(distrt_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Whether distrt_log(level, ...) would write anything. */
int distrt_log_enabled(distrt_log_level level);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DISTRT_DISTRT_H */
