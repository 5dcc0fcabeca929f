/*===- cuda_pp_trainer.c - pp_trainer.c as a trainer compiled for CUDA -----===*
 *
 * A stand-in for a two-stage pipeline compiled with --target=cuda, for
 * testing placed tensors on device buffers without GPUs or the compiler:
 * the interface says "target": {"device": "cuda", ...}, so the buffers are
 * device pointers, and null for the other stage's weights and momenta (the
 * driver keeps no device mirror of them). As in cuda_dp_trainer.c the step
 * copies the buffers it has to the host and runs pp_trainer.c's step there
 * (MESH=2), but the stages' messages go through device memory, as compiled
 * code's do: distrt_send and distrt_recv of a device buffer (which NCCL
 * carries when a device is open). On the fake driver and fake NCCL it
 * trains as pp-trainer does.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"

#include <stdbool.h>
#include <stdlib.h>

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void *mgpuStreamCreate(void);

/* Sends `n` floats to, or receives them from, world rank `peer` through a
 * device buffer. */
static void deviceMessage(bool sending, float *values, int64_t n, int32_t peer,
                          int32_t tag) {
  const distrt_device cuda = {DISTRT_CUDA, 0}, host = {DISTRT_HOST, 0};
  size_t bytes = (size_t)n * sizeof(float);
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(bytes, stream, false);
  if (sending) {
    if (distrt_copy(cuda, device, host, values, bytes) != 0)
      distrt_fail(distrt_last_error());
    distrt_send(DISTRT_F32, device, n, peer, tag);
  } else {
    distrt_recv(DISTRT_F32, device, n, peer, tag);
    if (distrt_copy(host, values, cuda, device, bytes) != 0)
      distrt_fail(distrt_last_error());
  }
  mgpuMemFree(device, stream);
}

#define MESH 2
#define TARGET_MEMBERS                                                         \
  ",\n \"target\": {\"device\": \"cuda\", \"arch\": \"sm_90\"}"
#define STAGE_SEND(values, n, peer, tag)                                       \
  deviceMessage(true, values, n, peer, tag)
#define STAGE_RECV(values, n, peer, tag)                                       \
  deviceMessage(false, values, n, peer, tag)
#define dist_model_forward pp_step
#include "pp_trainer.c"
#undef dist_model_forward

#define NARGS 10
static const size_t kBytes[NARGS] = {B * D * 4, B * O * 4, 8, D * H * 4,
                                     H * O * 4, D * H * 4, H * O * 4, 4, 4, 4};

void dist_model_forward(void **device) {
  const distrt_device cuda = {DISTRT_CUDA, 0}, host = {DISTRT_HOST, 0};
  void *buffers[NARGS];
  for (int i = 0; i < NARGS; ++i) {
    buffers[i] = NULL; /* another stage's: pp_step checks which are null */
    if (!device[i])
      continue;
    buffers[i] = malloc(kBytes[i]);
    if (distrt_copy(host, buffers[i], cuda, device[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
  }
  pp_step(buffers);
  for (int i = 0; i < NARGS; ++i) {
    if (!device[i])
      continue;
    if (distrt_copy(cuda, device[i], host, buffers[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
    free(buffers[i]);
  }
}
