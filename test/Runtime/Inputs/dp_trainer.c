/*===- dp_trainer.c - A hand-written data-parallel trainer -----------------===*
 *
 * What dist-compile --train will emit for a mesh, for testing the driver
 * under mpirun without the compiler: toy_trainer.c's linear regression
 * (x float32 4x3, y float32 4, pred = x . w + b, the mean squared error),
 * with SGD and momentum, data parallel over a mesh of MESH devices (default
 * 2): the batch is split along dimension 0 over mesh axis 0 (x and y have
 * "split": [{"dim": 0, "axes": [0]}]), so each rank gets 4 / MESH rows,
 * computes the loss and the gradients of its rows and averages them over
 * the mesh (distrt_all_reduce, op mean); every rank then applies the same
 * update to its replica of the parameters and optimizer state. Built with
 * MESH=1 it is the same program on one device: the two train alike up to
 * float rounding. trainer_check.py re-implements the math in numpy.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>

#ifndef MESH
#define MESH 2
#endif
#define BATCH 4
#define DIM 3
#define ROWS (BATCH / MESH)
#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

#define LR 0.1f
#define MOMENTUM 0.9f

/* Hooks of cuda_dp_trainer.c: JSON members added to the interface, and the
 * mean over the mesh of `n` floats (default: on the host buffer). */
#ifndef TARGET_MEMBERS
#define TARGET_MEMBERS ""
#endif
#ifndef MESH_MEAN
#define MESH_MEAN(values, n)                                                   \
  distrt_all_reduce(DISTRT_F32, DISTRT_OP_MEAN, values, n, 1)
#endif

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 3], \"split\": [{\"dim\": 0, \"axes\": [0]}]},\n"
    "  {\"role\": \"input\", \"name\": \"y\", \"dtype\": \"float32\", \"shape\": [4], \"split\": [{\"dim\": 0, \"axes\": [0]}]},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"w\", \"dtype\": \"float32\", \"shape\": [3]},\n"
    "  {\"role\": \"param\", \"name\": \"b\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"w.momentum\", \"dtype\": \"float32\", \"shape\": [3]},\n"
    "  {\"role\": \"state\", \"name\": \"b.momentum\", \"dtype\": \"float32\", \"shape\": []}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"sgd-momentum\", \"lr\": 0.1, \"momentum\": 0.9},\n"
    " \"mesh\": [" TEXT(MESH) "]" TARGET_MEMBERS "}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  const float *x = buffers[0], *y = buffers[1];
  float *w = buffers[3], *b = buffers[4];
  float *wm = buffers[5], *bm = buffers[6];
  float *loss = buffers[7], *grad_norm = buffers[8], *lr = buffers[9];
  if (distrt_group_size(1) != MESH)
    distrt_fail("dp_trainer: not on a mesh of " TEXT(MESH) " devices");

  /* The loss and gradients of this rank's rows: {loss, dw[3], db}. */
  float local[2 + DIM] = {0};
  for (int i = 0; i < ROWS; ++i) {
    float err = *b - y[i];
    for (int j = 0; j < DIM; ++j)
      err += x[i * DIM + j] * w[j];
    local[0] += err * err / ROWS;
    for (int j = 0; j < DIM; ++j)
      local[1 + j] += 2.0f * err * x[i * DIM + j] / ROWS;
    local[1 + DIM] += 2.0f * err / ROWS;
  }
  /* The mean over the mesh: the whole batch's loss and gradients. */
  MESH_MEAN(local, 2 + DIM);

  float norm2 = 0.0f;
  for (int k = 1; k < 2 + DIM; ++k)
    norm2 += local[k] * local[k];
  *loss = local[0];
  *grad_norm = sqrtf(norm2);
  *lr = LR;
  for (int j = 0; j < DIM; ++j) {
    wm[j] = MOMENTUM * wm[j] + local[1 + j];
    w[j] -= LR * wm[j];
  }
  *bm = MOMENTUM * *bm + local[1 + DIM];
  *b -= LR * *bm;
}
