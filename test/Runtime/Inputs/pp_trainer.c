/*===- pp_trainer.c - A hand-written two-stage pipeline trainer -----------===*
 *
 * What dist-compile --train will emit for pipeline parallelism, for testing
 * the driver's "place" member under mpirun without the compiler:
 * y = relu(x @ w0) @ w1 on x float32 4x3, the mean squared error against
 * targets t float32 4x2, SGD with momentum. On a mesh of MESH devices:
 *
 * - MESH=2 (mesh [2]): two pipeline stages on mesh axis 0. w0 and its
 *   momentum are placed on stage 0 ("place": {"axis": 0, "stages": [0]}),
 *   w1 and its momentum on stage 1; a rank gets a null buffer for the other
 *   stage's tensors (checked: the step fails otherwise). Stage 0 computes
 *   h = relu(x @ w0) and sends it to stage 1 (distrt_mesh_peer(0, 1)),
 *   which computes the loss and dL/dh and sends dL/dh back; each updates
 *   its own weight. The loss and the squared gradient norms are summed over
 *   axis 0 (each stage contributes its part and zeros), so both return
 *   them.
 * - MESH=4 (mesh [2, 2]): the same stages on axis 0, each also split over
 *   axis 1: w0, w1 and their momenta along dimension 1 (each rank of a
 *   stage computes its columns and gathers the rest over axis 1), so a
 *   checkpoint gathers them among a stage's ranks and the stage's rank
 *   (s, 0) sends them to rank 0.
 * - MESH=1 (mesh [1]): the same model in one process, nothing placed.
 *
 * Every value is computed by the same float operations on any of these
 * meshes (gathers move whole values; sums with a zero are exact), so their
 * runs and checkpoints are bit-identical. trainer_check.py pp re-implements
 * the math in numpy.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#ifndef MESH
#define MESH 2
#endif
#if MESH == 1
#define STAGES 1
#define SPLITS 1
#define MESH_TEXT "[1]"
#elif MESH == 2
#define STAGES 2
#define SPLITS 1
#define MESH_TEXT "[2]"
#elif MESH == 4
#define STAGES 2
#define SPLITS 2
#define MESH_TEXT "[2, 2]"
#else
#error "MESH is 1, 2 or 4"
#endif

#define B 4 /* batch */
#define D 3 /* inputs */
#define H 4 /* hidden */
#define O 2 /* outputs */
#define HL (H / SPLITS) /* this rank's columns of w0 */
#define OL (O / SPLITS) /* this rank's columns of w1 */

#define LR 0.1f
#define MOMENTUM 0.9f
#define TAG_H 1
#define TAG_DH 2

/* Hooks of cuda_pp_trainer.c: JSON members added to the interface, and the
 * stages' messages of `n` floats (default: from and to the host buffers). */
#ifndef TARGET_MEMBERS
#define TARGET_MEMBERS ""
#endif
#ifndef STAGE_SEND
#define STAGE_SEND(values, n, peer, tag)                                       \
  distrt_send(DISTRT_F32, values, n, peer, tag)
#define STAGE_RECV(values, n, peer, tag)                                       \
  distrt_recv(DISTRT_F32, values, n, peer, tag)
#endif

#if STAGES > 1
#define PLACE(stage) ", \"place\": {\"axis\": 0, \"stages\": [" #stage "]}"
#else
#define PLACE(stage) ""
#endif
#if SPLITS > 1
#define SPLIT ", \"split\": [{\"dim\": 1, \"axes\": [1]}]"
#else
#define SPLIT ""
#endif

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 3]},\n"
    "  {\"role\": \"input\", \"name\": \"t\", \"dtype\": \"float32\", \"shape\": [4, 2]},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"w0\", \"dtype\": \"float32\", \"shape\": [3, 4]" SPLIT PLACE(0) "},\n"
    "  {\"role\": \"param\", \"name\": \"w1\", \"dtype\": \"float32\", \"shape\": [4, 2]" SPLIT PLACE(1) "},\n"
    "  {\"role\": \"state\", \"name\": \"w0.momentum\", \"dtype\": \"float32\", \"shape\": [3, 4]" SPLIT PLACE(0) "},\n"
    "  {\"role\": \"state\", \"name\": \"w1.momentum\", \"dtype\": \"float32\", \"shape\": [4, 2]" SPLIT PLACE(1) "}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"sgd-momentum\", \"lr\": 0.1, \"momentum\": 0.9},\n"
    " \"mesh\": " MESH_TEXT TARGET_MEMBERS "}";
/* clang-format on */

/* The whole [rows, cols] of the [rows, cols / SPLITS] blocks of the ranks
 * of mesh axis 1 (a copy when the tensors are not split). */
static void gather_columns(const float *block, float *whole, int rows,
                           int cols) {
  distrt_all_gather(DISTRT_F32, block, whole, rows, cols / SPLITS, 2);
}

static float sum_of_squares(const float *values, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i)
    sum += values[i] * values[i];
  return sum;
}

static void sgd(float *w, float *m, const float *g, int n) {
  for (int i = 0; i < n; ++i) {
    m[i] = MOMENTUM * m[i] + g[i];
    w[i] -= LR * m[i];
  }
}

/* A placed tensor's buffer is this rank's if it is on `stage`, else null. */
static void check_placed(void *buffer, int stage, const char *name) {
  int holds = STAGES == 1 || distrt_mesh_coord(0) == stage;
  if (holds != (buffer != NULL)) {
    char message[160];
    snprintf(message, sizeof(message),
             "pp_trainer: rank %d (stage %lld) got %s buffer for '%s' of "
             "stage %d",
             distrt_comm_rank(), (long long)distrt_mesh_coord(0),
             buffer ? "a" : "a null", name, stage);
    distrt_fail(message);
  }
}

/* Stage 0, forward: pre = x @ w0 on this rank's columns, h = relu(pre),
 * gathered whole. */
static void stage0_forward(const float *x, const float *w0, float *pre,
                           float *h) {
  float part[B * HL];
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < HL; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < D; ++k)
        sum += x[i * D + k] * w0[k * HL + j];
      pre[i * HL + j] = sum;
      part[i * HL + j] = sum > 0.0f ? sum : 0.0f;
    }
  gather_columns(part, h, B, H);
}

/* Stage 1: the loss of h @ w1 against t, dL/dh (from w1 before its
 * update), then w1's update; sums[0] = the loss, sums[2] = |dL/dw1|^2. */
static void stage1(const float *h, const float *t, float *w1, float *m1,
                   float *dh, float *sums) {
  int first = (int)distrt_group_rank(2) * OL; /* this rank's columns */
  float part[B * OL], pred[B * O], dpred[B * O];
  for (int i = 0; i < B; ++i)
    for (int o = 0; o < OL; ++o) {
      float sum = 0.0f;
      for (int j = 0; j < H; ++j)
        sum += h[i * H + j] * w1[j * OL + o];
      part[i * OL + o] = sum;
    }
  gather_columns(part, pred, B, O);
  float loss = 0.0f;
  for (int e = 0; e < B * O; ++e) {
    float err = pred[e] - t[e];
    loss += err * err;
    dpred[e] = 2.0f * err / (float)(B * O);
  }
  sums[0] = loss / (float)(B * O);

  float g1[H * OL], w1whole[H * O], g1whole[H * O];
  for (int j = 0; j < H; ++j)
    for (int o = 0; o < OL; ++o) {
      float sum = 0.0f;
      for (int i = 0; i < B; ++i)
        sum += h[i * H + j] * dpred[i * O + first + o];
      g1[j * OL + o] = sum;
    }
  gather_columns(w1, w1whole, H, O);
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < H; ++j) {
      float sum = 0.0f;
      for (int o = 0; o < O; ++o)
        sum += dpred[i * O + o] * w1whole[j * O + o];
      dh[i * H + j] = sum;
    }
  gather_columns(g1, g1whole, H, O);
  sums[2] = sum_of_squares(g1whole, H * O);
  sgd(w1, m1, g1, H * OL);
}

/* Stage 0, backward: dL/dw0 from dL/dh, then w0's update; sums[1] =
 * |dL/dw0|^2. */
static void stage0_backward(const float *x, const float *pre, const float *dh,
                            float *w0, float *m0, float *sums) {
  int first = (int)distrt_group_rank(2) * HL;
  float dpre[B * HL], g0[D * HL], g0whole[D * H];
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < HL; ++j)
      dpre[i * HL + j] = pre[i * HL + j] > 0.0f ? dh[i * H + first + j] : 0.0f;
  for (int k = 0; k < D; ++k)
    for (int j = 0; j < HL; ++j) {
      float sum = 0.0f;
      for (int i = 0; i < B; ++i)
        sum += x[i * D + k] * dpre[i * HL + j];
      g0[k * HL + j] = sum;
    }
  gather_columns(g0, g0whole, D, H);
  sums[1] = sum_of_squares(g0whole, D * H);
  sgd(w0, m0, g0, D * HL);
}

void dist_model_forward(void **buffers) {
  const float *x = buffers[0], *t = buffers[1];
  float *w0 = buffers[3], *w1 = buffers[4];
  float *m0 = buffers[5], *m1 = buffers[6];
  float *loss = buffers[7], *grad_norm = buffers[8], *lr = buffers[9];
  if (distrt_mesh_size(0) != STAGES || distrt_mesh_size(1) != SPLITS)
    distrt_fail("pp_trainer: not on the mesh " MESH_TEXT);
  check_placed(w0, 0, "w0");
  check_placed(w1, 1, "w1");
  check_placed(m0, 0, "w0.momentum");
  check_placed(m1, 1, "w1.momentum");

  /* On one device, both stages (-1). */
  int stage = STAGES == 1 ? -1 : (int)distrt_mesh_coord(0);
  float pre[B * HL], h[B * H], dh[B * H];
  /* {loss, |dL/dw0|^2, |dL/dw1|^2}: each stage fills its part. */
  float sums[3] = {0.0f, 0.0f, 0.0f};
  if (stage != 1)
    stage0_forward(x, w0, pre, h);
  if (stage == 0)
    STAGE_SEND(h, B * H, distrt_mesh_peer(0, 1), TAG_H);
  if (stage == 1)
    STAGE_RECV(h, B * H, distrt_mesh_peer(0, 0), TAG_H);
  if (stage != 0)
    stage1(h, t, w1, m1, dh, sums);
  if (stage == 1)
    STAGE_SEND(dh, B * H, distrt_mesh_peer(0, 0), TAG_DH);
  if (stage == 0)
    STAGE_RECV(dh, B * H, distrt_mesh_peer(0, 1), TAG_DH);
  if (stage != 1)
    stage0_backward(x, pre, dh, w0, m0, sums);
  if (STAGES > 1)
    distrt_all_reduce(DISTRT_F32, DISTRT_OP_SUM, sums, 3, 1);

  *loss = sums[0];
  *grad_norm = sqrtf(sums[1] + sums[2]);
  *lr = LR;
}
