/*===- lm_trainer.c - A hand-written "compiled" language-model trainer ----===*
 *
 * The shape of a language model's train step, for the driver's token-file
 * mode: ids (int64 2x4) and targets (int32 2x4, so the driver converts to
 * both dtypes), a bigram table (logits of the next token = row ids[t]),
 * the mean cross-entropy, SGD with momentum at lr = LR / sqrt(step). Like
 * compiled code, it stops with distrt_fail on a token outside [0, VOCAB).
 * trainer_check.py re-implements the same math in numpy.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>

#define B 2
#define T 4
#define VOCAB 16
#define LR 0.5f
#define MOMENTUM 0.9f

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"idx\", \"dtype\": \"int64\", \"shape\": [2, 4], \"range\": 16},\n"
    "  {\"role\": \"input\", \"name\": \"targets\", \"dtype\": \"int32\", \"shape\": [2, 4], \"range\": 16},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"bigram\", \"dtype\": \"float32\", \"shape\": [16, 16]},\n"
    "  {\"role\": \"state\", \"name\": \"bigram.momentum\", \"dtype\": \"float32\", \"shape\": [16, 16]}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"sgd-momentum\", \"lr\": \"0.5 / sqrt(step)\", \"momentum\": 0.9}}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  const int64_t *idx = buffers[0];
  const int32_t *targets = buffers[1];
  int64_t step = *(const int64_t *)buffers[2];
  float *table = buffers[3], *momentum = buffers[4];
  float *loss = buffers[5], *grad_norm = buffers[6], *lr = buffers[7];
  float grad[VOCAB * VOCAB] = {0};
  float sum = 0.0f;
  for (int n = 0; n < B * T; ++n) {
    if (idx[n] < 0 || idx[n] >= VOCAB || targets[n] < 0 || targets[n] >= VOCAB)
      distrt_fail("lm_trainer: token out of range");
    const float *row = table + idx[n] * VOCAB;
    float top = row[0], total = 0.0f;
    for (int v = 1; v < VOCAB; ++v)
      top = row[v] > top ? row[v] : top;
    for (int v = 0; v < VOCAB; ++v)
      total += expf(row[v] - top);
    sum += logf(total) + top - row[targets[n]];
    float *g = grad + idx[n] * VOCAB;
    for (int v = 0; v < VOCAB; ++v)
      g[v] += (expf(row[v] - top) / total - (v == targets[n])) / (B * T);
  }
  *loss = sum / (B * T);
  float norm2 = 0.0f;
  for (int i = 0; i < VOCAB * VOCAB; ++i)
    norm2 += grad[i] * grad[i];
  *grad_norm = sqrtf(norm2);
  *lr = LR / sqrtf((float)step);
  for (int i = 0; i < VOCAB * VOCAB; ++i) {
    momentum[i] = MOMENTUM * momentum[i] + grad[i];
    table[i] -= *lr * momentum[i];
  }
}
