/*===- zero_trainer.c - A hand-written trainer with split state ------------===*
 *
 * Parameters and optimizer state split over a mesh of MESH devices
 * (default 2), as ZeRO and tensor parallelism split them, for testing the
 * driver's checkpoints under mpirun: pred = x . (w + u[0] * u[1]) + b on
 * x float32 4x4 (replicated), the mean squared error, gradients clipped to
 * a global L2 norm of 1, Adam. `u` (2x4) and its Adam moments are split
 * along dimension 1 (each rank holds u[:, its columns]); w's moments along
 * dimension 0 (w itself is replicated); b and its moments are replicated.
 * Each step gathers u (distrt_all_gather, outer 2), computes everything
 * replicated, updates its columns of u and its part of w with its part of
 * the moments, and gathers w back. Every value is computed by the same
 * float operations whatever MESH is, so a run on 2 processes and the MESH=1
 * build on one are bit-identical, and their checkpoints hold the same
 * tensors. trainer_check.py re-implements the math in numpy.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef MESH
#define MESH 2
#endif
#define BATCH 4
#define DIM 4
#define PART (DIM / MESH)
#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

#define LR 0.05f
#define CLIP 1.0f
#define BETA1 0.9f
#define BETA2 0.999f
#define EPS 1e-8f

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 4]},\n"
    "  {\"role\": \"input\", \"name\": \"y\", \"dtype\": \"float32\", \"shape\": [4]},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"w\", \"dtype\": \"float32\", \"shape\": [4]},\n"
    "  {\"role\": \"param\", \"name\": \"u\", \"dtype\": \"float32\", \"shape\": [2, 4], \"split\": [{\"dim\": 1, \"axes\": [0]}]},\n"
    "  {\"role\": \"param\", \"name\": \"b\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"w.exp_avg\", \"dtype\": \"float32\", \"shape\": [4], \"split\": [{\"dim\": 0, \"axes\": [0]}]},\n"
    "  {\"role\": \"state\", \"name\": \"w.exp_avg_sq\", \"dtype\": \"float32\", \"shape\": [4], \"split\": [{\"dim\": 0, \"axes\": [0]}]},\n"
    "  {\"role\": \"state\", \"name\": \"u.exp_avg\", \"dtype\": \"float32\", \"shape\": [2, 4], \"split\": [{\"dim\": 1, \"axes\": [0]}]},\n"
    "  {\"role\": \"state\", \"name\": \"u.exp_avg_sq\", \"dtype\": \"float32\", \"shape\": [2, 4], \"split\": [{\"dim\": 1, \"axes\": [0]}]},\n"
    "  {\"role\": \"state\", \"name\": \"b.exp_avg\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"b.exp_avg_sq\", \"dtype\": \"float32\", \"shape\": []}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"adam\", \"lr\": 0.05},\n"
    " \"mesh\": [" TEXT(MESH) "]}";
/* clang-format on */

static void adam(float *p, float *m, float *v, float g, float c1, float c2) {
  *m = BETA1 * *m + (1.0f - BETA1) * g;
  *v = BETA2 * *v + (1.0f - BETA2) * g * g;
  *p -= LR * (*m / c1) / (sqrtf(*v / c2) + EPS);
}

void dist_model_forward(void **buffers) {
  const float *x = buffers[0], *y = buffers[1];
  int64_t step = *(const int64_t *)buffers[2];
  float *w = buffers[3], *u = buffers[4], *b = buffers[5];
  float *wm = buffers[6], *wv = buffers[7], *um = buffers[8], *uv = buffers[9];
  float *bm = buffers[10], *bv = buffers[11];
  float *loss = buffers[12], *grad_norm = buffers[13], *lr = buffers[14];
  if (distrt_group_size(1) != MESH)
    distrt_fail("zero_trainer: not on a mesh of " TEXT(MESH) " devices");
  int64_t first = distrt_group_rank(1) * PART; /* this rank's columns */

  float whole[2 * DIM]; /* u, gathered: [2, DIM] from [2, PART] each */
  distrt_all_gather(DISTRT_F32, u, whole, 2, PART, 1);
  const float *u0 = whole, *u1 = whole + DIM;

  float err[BATCH], sum = 0.0f, gb = 0.0f, gv[DIM];
  for (int i = 0; i < BATCH; ++i) {
    float pred = *b;
    for (int k = 0; k < DIM; ++k)
      pred += x[i * DIM + k] * (w[k] + u0[k] * u1[k]);
    err[i] = pred - y[i];
    sum += err[i] * err[i];
    gb += err[i];
  }
  *loss = sum / BATCH;
  gb *= 2.0f / BATCH;
  float norm2 = gb * gb;
  for (int k = 0; k < DIM; ++k) {
    gv[k] = 0.0f;
    for (int i = 0; i < BATCH; ++i)
      gv[k] += err[i] * x[i * DIM + k];
    gv[k] *= 2.0f / BATCH;
    /* d/dw = gv, d/du0 = gv * u1, d/du1 = gv * u0 */
    norm2 += gv[k] * gv[k] + (gv[k] * u1[k]) * (gv[k] * u1[k]) +
             (gv[k] * u0[k]) * (gv[k] * u0[k]);
  }
  *grad_norm = sqrtf(norm2);
  float scale = *grad_norm > CLIP ? CLIP / *grad_norm : 1.0f;
  *lr = LR;
  float c1 = 1.0f - powf(BETA1, (float)step);
  float c2 = 1.0f - powf(BETA2, (float)step);

  float part[PART];
  for (int k = 0; k < PART; ++k) {
    int64_t at = first + k;
    part[k] = w[at];
    adam(&part[k], &wm[k], &wv[k], gv[at] * scale, c1, c2);
    adam(&u[k], &um[k], &uv[k], gv[at] * u1[at] * scale, c1, c2);
    adam(&u[PART + k], &um[PART + k], &uv[PART + k], gv[at] * u0[at] * scale,
         c1, c2);
  }
  distrt_all_gather(DISTRT_F32, part, w, 1, PART, 1);
  adam(b, bm, bv, gb * scale, c1, c2);
}
