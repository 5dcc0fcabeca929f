/*===- cuda_dp_trainer.c - dp_trainer.c as a trainer compiled for CUDA -----===*
 *
 * A stand-in for dist-compile --target=cuda --mesh=2 --parallel=dp's object
 * file, for testing the device side of a mesh without GPUs or the
 * compiler: the interface says "target": {"device": "cuda", ...}, so the
 * buffers are device pointers. As in cuda_trainer.c the step copies them to
 * the host and runs dp_trainer.c's step there, but the mean over the mesh
 * runs on a device buffer, as compiled code's does: the loss and gradients
 * are copied to device memory (mgpuMemAlloc), all-reduced there
 * (distrt_all_reduce, which NCCL carries when a device is open) and copied
 * back. On the fake driver and fake NCCL it trains as dp-trainer does.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"

#include <stdbool.h>
#include <stdlib.h>

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void *mgpuStreamCreate(void);

static void deviceMean(float *values, int64_t n) {
  const distrt_device cuda = {DISTRT_CUDA, 0}, host = {DISTRT_HOST, 0};
  size_t bytes = (size_t)n * sizeof(float);
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(bytes, stream, false);
  if (distrt_copy(cuda, device, host, values, bytes) != 0)
    distrt_fail(distrt_last_error());
  distrt_all_reduce(DISTRT_F32, DISTRT_OP_MEAN, device, n, 1);
  if (distrt_copy(host, values, cuda, device, bytes) != 0)
    distrt_fail(distrt_last_error());
  mgpuMemFree(device, stream);
}

#define TARGET_MEMBERS                                                         \
  ",\n \"target\": {\"device\": \"cuda\", \"arch\": \"sm_90\"}"
#define MESH_MEAN(values, n) deviceMean(values, n)
#define dist_model_forward dp_step
#include "dp_trainer.c"
#undef dist_model_forward

#define NARGS 10
static const size_t kBytes[NARGS] = {ROWS * DIM * 4, ROWS * 4, 8, DIM * 4, 4,
                                     DIM * 4,        4,        4, 4, 4};

void dist_model_forward(void **device) {
  const distrt_device cuda = {DISTRT_CUDA, 0}, host = {DISTRT_HOST, 0};
  void *buffers[NARGS];
  for (int i = 0; i < NARGS; ++i) {
    buffers[i] = malloc(kBytes[i]);
    if (distrt_copy(host, buffers[i], cuda, device[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
  }
  dp_step(buffers);
  for (int i = 0; i < NARGS; ++i) {
    if (distrt_copy(cuda, device[i], host, buffers[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
    free(buffers[i]);
  }
}
