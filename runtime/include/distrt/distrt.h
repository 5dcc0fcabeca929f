/*===- distrt.h - The dist runtime: C ABI for compiled programs -----------===*
 *
 * What a program compiled by dist-compile calls: memory, tensor files,
 * timers (and, as they land, gemm and collectives). Plain C, no MLIR or LLVM
 * dependency. Every buffer carries the device it lives on, so a CUDA backend
 * (device memory, streams, cuBLAS) and collectives (MPI, NCCL) can slot in
 * behind the same calls.
 *
 * Errors: calls that can fail return 0 on success and nonzero on failure;
 * distrt_last_error() then describes the failure (per thread).
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DISTRT_DISTRT_H */
