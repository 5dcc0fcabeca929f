/*===- shard_model.c - A hand-written forward model split over a mesh -----===*
 *
 * A forward-only model compiled for a mesh of MESH devices (default 2), for
 * testing the forward driver under mpirun: y = 2 x + c (float32 4x6),
 * split along dimension 1 over mesh axis 0 (x, c and y: each rank computes
 * its columns), and top = max(x), a replicated scalar (the max of each
 * rank's columns, then distrt_all_reduce with op max). Built with MESH=1 it
 * computes the same on one device.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#ifndef MESH
#define MESH 2
#endif
#define COLS (6 / MESH)
#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 6], \"split\": [{\"dim\": 1, \"axes\": [0]}]},\n"
    "  {\"role\": \"param\", \"name\": \"c\", \"dtype\": \"float32\", \"shape\": [6], \"split\": [{\"dim\": 0, \"axes\": [0]}]}],\n"
    " \"outputs\": [\n"
    "  {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [4, 6], \"split\": [{\"dim\": 1, \"axes\": [0]}]},\n"
    "  {\"name\": \"top\", \"dtype\": \"float32\", \"shape\": []}],\n"
    " \"mesh\": [" TEXT(MESH) "]}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  const float *x = buffers[0], *c = buffers[1];
  float *y = buffers[2], *top = buffers[3];
  *top = x[0];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < COLS; ++j) {
      float v = x[i * COLS + j];
      y[i * COLS + j] = 2.0f * v + c[j];
      *top = v > *top ? v : *top;
    }
  distrt_all_reduce(DISTRT_F32, DISTRT_OP_MAX, top, 1, 1);
}
