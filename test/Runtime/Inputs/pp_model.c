/*===- pp_model.c - A hand-written two-stage pipeline forward model -------===*
 *
 * The forward of pp_trainer.c, for testing the forward driver's "place"
 * member: y = relu(x @ w0) @ w1 on x float32 4x3. With MESH=2 (mesh [2])
 * w0 is placed on stage 0 of mesh axis 0 and w1 on stage 1 (a rank gets a
 * null buffer for the other stage's weight; checked); stage 0 sends h =
 * relu(x @ w0) to stage 1 (distrt_mesh_peer), which sends y back, so that
 * both return the replicated output. MESH=1 computes the same in one
 * process, with the same float operations.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include <stddef.h>

#ifndef MESH
#define MESH 2
#endif
#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)
#if MESH > 1
#define PLACE(stage) ", \"place\": {\"axis\": 0, \"stages\": [" #stage "]}"
#else
#define PLACE(stage) ""
#endif

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 3]},\n"
    "  {\"role\": \"param\", \"name\": \"w0\", \"dtype\": \"float32\", \"shape\": [3, 4]" PLACE(0) "},\n"
    "  {\"role\": \"param\", \"name\": \"w1\", \"dtype\": \"float32\", \"shape\": [4, 2]" PLACE(1) "}],\n"
    " \"outputs\": [\n"
    "  {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [4, 2]}],\n"
    " \"mesh\": [" TEXT(MESH) "]}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  const float *x = buffers[0], *w0 = buffers[1], *w1 = buffers[2];
  float *y = buffers[3];
  int stage = MESH == 1 ? -1 : (int)distrt_mesh_coord(0);
  if ((stage != 1) != (w0 != NULL) || (stage != 0) != (w1 != NULL))
    distrt_fail("pp_model: a stage's weight is missing, or the other "
                "stage's is there");
  float h[4 * 4];
  if (stage != 1)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float sum = 0.0f;
        for (int k = 0; k < 3; ++k)
          sum += x[i * 3 + k] * w0[k * 4 + j];
        h[i * 4 + j] = sum > 0.0f ? sum : 0.0f;
      }
  if (stage == 0) {
    distrt_send(DISTRT_F32, h, 16, distrt_mesh_peer(0, 1), 1);
    distrt_recv(DISTRT_F32, y, 8, distrt_mesh_peer(0, 1), 2);
    return;
  }
  if (stage == 1)
    distrt_recv(DISTRT_F32, h, 16, distrt_mesh_peer(0, 0), 1);
  for (int i = 0; i < 4; ++i)
    for (int o = 0; o < 2; ++o) {
      float sum = 0.0f;
      for (int j = 0; j < 4; ++j)
        sum += h[i * 4 + j] * w1[j * 2 + o];
      y[i * 2 + o] = sum;
    }
  if (stage == 1)
    distrt_send(DISTRT_F32, y, 8, distrt_mesh_peer(0, 0), 2);
}
