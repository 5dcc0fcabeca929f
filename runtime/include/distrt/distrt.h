/*===- distrt.h - The dist runtime: C ABI for compiled programs -----------===*
 *
 * What a program compiled by dist-compile calls: memory, tensor files
 * (.npy, safetensors), gemm, logging and timers (and, as they land,
 * collectives). Plain C, no MLIR or LLVM
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

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, the same set as the dist dialect. */
typedef enum distrt_dtype {
  DISTRT_F32 = 0,
  DISTRT_F64,
  DISTRT_F16,
  DISTRT_BF16,
  DISTRT_I64,
  DISTRT_I32,
  DISTRT_I16,
  DISTRT_I8,
  DISTRT_U64,
  DISTRT_U32,
  DISTRT_U16,
  DISTRT_U8,
  DISTRT_BOOL,
  DISTRT_NUM_DTYPES
} distrt_dtype;

/* Where memory lives. Only the host exists today. */
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

/* `bytes` of memory on `device`, 64-byte aligned; NULL on failure (an
 * unavailable device, or out of memory). distrt_free(NULL) does nothing. */
void *distrt_alloc(distrt_device device, size_t bytes);
void distrt_free(distrt_device device, void *memory);

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
 * dtype is DISTRT_F32 or DISTRT_F64. Host memory only.
 * Returns 0, or -1 with distrt_last_error() set (unsupported dtype, bad
 * sizes or strides). */
int distrt_gemm(distrt_dtype dtype, int trans_a, int trans_b, int64_t batch,
                int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                int64_t lda, int64_t stride_a, const void *b, int64_t ldb,
                int64_t stride_b, double beta, void *c, int64_t ldc,
                int64_t stride_c);

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
 * with status 1. */
void distrt_fail(const char *message)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DISTRT_DISTRT_H */
