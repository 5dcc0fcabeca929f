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

/* cuda_model.c builds this model as one compiled for CUDA. */
#ifndef TARGET_LINE
#define TARGET_LINE ""
#endif

const char dist_model_interface[] = "dist-model 1\n"
                                    "input float32 2x3 x\n"
                                    "input int64 4 ids\n"
                                    "param float32 3 w\n"
                                    "output float32 2x3 y\n"
                                    "output float64 scalar n/sum\n"
                                    TARGET_LINE;

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
