/*===- toy_trainer.c - A hand-written "compiled trainer" -------------------===*
 *
 * What dist-compile --train's object file provides, for testing the
 * driver's training loop (libdistrt_main.a) without the compiler: linear
 * regression pred = x . w + b with the mean squared error, gradients
 * clipped to a global L2 norm of CLIP, Adam with bias correction, and a
 * learning rate warmed up linearly over WARMUP steps; all in float32.
 * Parameters and optimizer state are updated in place. The arguments are
 * interleaved (inputs among parameters and state) so a test sees that the
 * driver follows the argument order. DIM (default 3) makes a variant of
 * other shapes, whose checkpoints the default one must refuse.
 * TARGET_MEMBERS (default none) is JSON members, each after a comma, added
 * to the interface object.
 * trainer_check.py re-implements the same math in numpy.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>

#ifndef DIM
#define DIM 3
#endif
#define BATCH 4
/* cuda_trainer.c builds this trainer as one compiled for CUDA. */
#ifndef TARGET_MEMBERS
#define TARGET_MEMBERS ""
#endif
#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

#define LR 0.05f
#define WARMUP 3
#define CLIP 1.0f
#define BETA1 0.9f
#define BETA2 0.999f
#define EPS 1e-8f

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, " TEXT(DIM) "]},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"w\", \"dtype\": \"float32\", \"shape\": [" TEXT(DIM) "]},\n"
    "  {\"role\": \"state\", \"name\": \"w.exp_avg\", \"dtype\": \"float32\", \"shape\": [" TEXT(DIM) "]},\n"
    "  {\"role\": \"state\", \"name\": \"w.exp_avg_sq\", \"dtype\": \"float32\", \"shape\": [" TEXT(DIM) "]},\n"
    "  {\"role\": \"input\", \"name\": \"y\", \"dtype\": \"float32\", \"shape\": [4]},\n"
    "  {\"role\": \"param\", \"name\": \"b\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"b.exp_avg\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"b.exp_avg_sq\", \"dtype\": \"float32\", \"shape\": []}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"adam\", \"lr\": 0.05, \"beta1\": 0.9, \"beta2\": 0.999,\n"
    "  \"warmup\": 3}"
    TARGET_MEMBERS "}";
/* clang-format on */

static void adam(float *p, float *m, float *v, float g, float lr, float c1,
                 float c2) {
  *m = BETA1 * *m + (1.0f - BETA1) * g;
  *v = BETA2 * *v + (1.0f - BETA2) * g * g;
  *p -= lr * (*m / c1) / (sqrtf(*v / c2) + EPS);
}

void dist_model_forward(void **buffers) {
  const float *x = buffers[0];
  int64_t step = *(const int64_t *)buffers[1];
  float *w = buffers[2], *wm = buffers[3], *wv = buffers[4];
  const float *y = buffers[5];
  float *b = buffers[6], *bm = buffers[7], *bv = buffers[8];
  float *loss = buffers[9], *grad_norm = buffers[10], *lr = buffers[11];
  if (step < 1)
    distrt_fail("toy_trainer: step must be 1 or more");

  float err[BATCH], gw[DIM], gb = 0.0f, sum = 0.0f;
  for (int i = 0; i < BATCH; ++i) {
    float pred = *b;
    for (int j = 0; j < DIM; ++j)
      pred += x[i * DIM + j] * w[j];
    err[i] = pred - y[i];
    sum += err[i] * err[i];
    gb += err[i];
  }
  *loss = sum / BATCH;
  gb *= 2.0f / BATCH;
  float norm2 = gb * gb;
  for (int j = 0; j < DIM; ++j) {
    gw[j] = 0.0f;
    for (int i = 0; i < BATCH; ++i)
      gw[j] += err[i] * x[i * DIM + j];
    gw[j] *= 2.0f / BATCH;
    norm2 += gw[j] * gw[j];
  }
  *grad_norm = sqrtf(norm2);
  float scale = *grad_norm > CLIP ? CLIP / *grad_norm : 1.0f;
  *lr = step < WARMUP ? LR * (float)step / WARMUP : LR;
  float c1 = 1.0f - powf(BETA1, (float)step);
  float c2 = 1.0f - powf(BETA2, (float)step);
  for (int j = 0; j < DIM; ++j)
    adam(&w[j], &wm[j], &wv[j], gw[j] * scale, *lr, c1, c2);
  adam(b, bm, bv, gb * scale, *lr, c1, c2);
}
