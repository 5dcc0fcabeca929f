/*===- hparam_trainer.c - A trainer with run-time hyperparameters ---------===*
 *
 * A hand-written "compiled trainer" whose hyperparameters are arguments
 * ("role": "hparam", float64 scalars, docs/trainer-abi.md) that the driver
 * sets from --lr, --weight-decay, --warmup-steps and --max-grad-norm, by
 * default to their "meta" values. The model is toy_trainer.c's linear
 * regression pred = x . w + b with the mean squared error; the step clips
 * the gradients to a global L2 norm of max_grad_norm (0: no clipping), adds
 * weight decay (to w only), warms the learning rate up linearly over
 * warmup_steps steps and takes an SGD step with momentum; all in float32 but
 * the hyperparameters. The arguments interleave (hyperparameters among
 * inputs, parameters and state) so a test sees that the driver follows the
 * argument order. trainer_check.py re-implements the same math in numpy.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>

#define BATCH 4
#define DIM 3
#define MOMENTUM 0.9f

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 3]},\n"
    "  {\"role\": \"hparam\", \"name\": \"lr\", \"dtype\": \"float64\", \"shape\": []},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"w\", \"dtype\": \"float32\", \"shape\": [3]},\n"
    "  {\"role\": \"hparam\", \"name\": \"weight_decay\", \"dtype\": \"float64\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"w.momentum\", \"dtype\": \"float32\", \"shape\": [3]},\n"
    "  {\"role\": \"input\", \"name\": \"y\", \"dtype\": \"float32\", \"shape\": [4]},\n"
    "  {\"role\": \"param\", \"name\": \"b\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"state\", \"name\": \"b.momentum\", \"dtype\": \"float32\", \"shape\": []},\n"
    "  {\"role\": \"hparam\", \"name\": \"warmup_steps\", \"dtype\": \"float64\", \"shape\": []},\n"
    "  {\"role\": \"hparam\", \"name\": \"max_grad_norm\", \"dtype\": \"float64\", \"shape\": []}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"sgd\", \"lr\": 0.1, \"momentum\": 0.9, \"weight_decay\": 0.01,\n"
    "  \"warmup_steps\": 2, \"max_grad_norm\": 1}}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  const float *x = buffers[0];
  double base_lr = *(const double *)buffers[1];
  int64_t step = *(const int64_t *)buffers[2];
  float *w = buffers[3];
  double weight_decay = *(const double *)buffers[4];
  float *wm = buffers[5];
  const float *y = buffers[6];
  float *b = buffers[7], *bm = buffers[8];
  double warmup_steps = *(const double *)buffers[9];
  double max_grad_norm = *(const double *)buffers[10];
  float *loss = buffers[11], *grad_norm = buffers[12], *lr = buffers[13];
  if (step < 1)
    distrt_fail("hparam_trainer: step must be 1 or more");
  if (!(base_lr > 0) || !(weight_decay >= 0) || !(warmup_steps >= 0) ||
      !(max_grad_norm >= 0))
    distrt_fail("hparam_trainer: a hyperparameter is out of its range");

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
  float clip = (float)max_grad_norm;
  float scale = clip > 0 && *grad_norm > clip ? clip / *grad_norm : 1.0f;
  *lr = (float)((double)step < warmup_steps
                    ? base_lr * (double)step / warmup_steps
                    : base_lr);
  float decay = (float)weight_decay;
  for (int j = 0; j < DIM; ++j) {
    wm[j] = MOMENTUM * wm[j] + gw[j] * scale + decay * w[j];
    w[j] -= *lr * wm[j];
  }
  *bm = MOMENTUM * *bm + gb * scale;
  *b -= *lr * *bm;
}
