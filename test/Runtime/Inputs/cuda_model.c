/*===- cuda_model.c - toy_model.c as a forward compiled for CUDA -----------===*
 *
 * The forward driver's device side without a GPU: toy_model.c whose
 * interface has "target": {"device": "cuda", "arch": "sm_90"}, so its
 * dist_model_forward gets device pointers, copies them to the host, runs
 * toy_model.c's forward there and copies the outputs back. Run under
 * fake_cuda_driver.cpp, its outputs must be toy-model's.
 *
 *===----------------------------------------------------------------------===*/

#define TARGET_MEMBERS                                                         \
  ",\n \"target\": {\"device\": \"cuda\", \"arch\": \"sm_90\"}"
#define dist_model_forward toy_forward
#include "toy_model.c"
#undef dist_model_forward

#include "distrt/distrt.h"

#include <stdlib.h>

#define NBUFFERS 5
static const size_t kBytes[NBUFFERS] = {2 * 3 * 4, 4 * 8, 3 * 4, 2 * 3 * 4, 8};

void dist_model_forward(void **device) {
  const distrt_device cuda = {DISTRT_CUDA, 0}, host = {DISTRT_HOST, 0};
  void *buffers[NBUFFERS];
  for (int i = 0; i < NBUFFERS; ++i) {
    buffers[i] = malloc(kBytes[i]);
    if (distrt_copy(host, buffers[i], cuda, device[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
  }
  toy_forward(buffers);
  for (int i = 3; i < NBUFFERS; ++i)
    if (distrt_copy(cuda, device[i], host, buffers[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
  for (int i = 0; i < NBUFFERS; ++i)
    free(buffers[i]);
}
