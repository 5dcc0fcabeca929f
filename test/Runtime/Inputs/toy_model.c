/*===- toy_model.c - A hand-written "compiled model" -----------------------===*
 *
 * What dist-compile's object file provides, for testing the generic driver
 * (libdistrt_main.a) without the compiler:
 *   y[i][j] = x[i][j] * w[j]     (float32 2x3)
 *   n/sum   = sum(ids)            (float64 scalar)
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/model.h"

#include <stdint.h>

/* cuda_model.c builds this model as one compiled for CUDA: TARGET_MEMBERS
 * is JSON members, each after a comma, added to the interface object. */
#ifndef TARGET_MEMBERS
#define TARGET_MEMBERS ""
#endif

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [2, 3]},\n"
    "  {\"role\": \"input\", \"name\": \"ids\", \"dtype\": \"int64\", \"shape\": [4]},\n"
    "  {\"role\": \"param\", \"name\": \"w\", \"dtype\": \"float32\", \"shape\": [3]}],\n"
    " \"outputs\": [\n"
    "  {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [2, 3]},\n"
    "  {\"name\": \"n/sum\", \"dtype\": \"float64\", \"shape\": []}]" TARGET_MEMBERS
    "}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  const float *x = buffers[0];
  const int64_t *ids = buffers[1];
  const float *w = buffers[2];
  float *y = buffers[3];
  double *sum = buffers[4];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      y[i * 3 + j] = x[i * 3 + j] * w[j];
  *sum = 0;
  for (int i = 0; i < 4; ++i)
    *sum += (double)ids[i];
}
