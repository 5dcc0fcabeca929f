/*===- cls_trainer.c - A hand-written classifier trainer with dropout -----===*
 *
 * The driver's `seed` argument and `ignore` value, without the compiler: a
 * linear classifier (logits = dropout(x) . w, x float32 4x3, w float32 3x10)
 * trained on integer labels in [0, 10) with the mean cross-entropy over the
 * labels that are not IGNORE (-100, Hugging Face's ignore_index; 0 when all
 * are), by plain SGD. Dropout keeps each element of x with probability 1/2
 * (scaled by 2), by a hash of (seed, step, element), as compiled dropout
 * does, so the seed changes every step's mask and a run is a pure function
 * of the seed. Like compiled code, it stops with distrt_fail on a label that
 * is neither in range nor IGNORE.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"
#include "distrt/model.h"

#include "trainer_outputs.h"

#include <math.h>
#include <stdint.h>

#define BATCH 4
#define DIM 3
#define CLASSES 10
#define IGNORE (-100)
#define LR 0.5f

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [4, 3]},\n"
    "  {\"role\": \"input\", \"name\": \"labels\", \"dtype\": \"int64\", \"shape\": [4], \"range\": 10, \"ignore\": -100},\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"seed\", \"name\": \"seed\", \"dtype\": \"int64\", \"shape\": []},\n"
    "  {\"role\": \"param\", \"name\": \"w\", \"dtype\": \"float32\", \"shape\": [3, 10]}],\n"
    TRAINER_OUTPUTS
    " \"meta\": {\"optimizer\": \"sgd\", \"lr\": 0.5, \"dropout\": 0.5}}";
/* clang-format on */

/* splitmix64's finalizer. */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void dist_model_forward(void **buffers) {
  const float *x = buffers[0];
  const int64_t *labels = buffers[1];
  int64_t step = *(const int64_t *)buffers[2];
  int64_t seed = *(const int64_t *)buffers[3];
  float *w = buffers[4];
  float *loss = buffers[5], *grad_norm = buffers[6], *lr = buffers[7];

  float kept[BATCH * DIM], grad[DIM * CLASSES] = {0}, sum = 0.0f;
  for (int e = 0; e < BATCH * DIM; ++e) {
    uint64_t h = mix(mix(mix((uint64_t)seed) ^ (uint64_t)step) ^ (uint64_t)e);
    kept[e] = (h >> 63) ? 2.0f * x[e] : 0.0f;
  }
  int counted = 0;
  for (int i = 0; i < BATCH; ++i)
    counted += labels[i] != IGNORE;
  for (int i = 0; i < BATCH; ++i) {
    if (labels[i] == IGNORE)
      continue;
    if (labels[i] < 0 || labels[i] >= CLASSES)
      distrt_fail("cls_trainer: label out of range");
    float logits[CLASSES], top = -INFINITY, total = 0.0f;
    for (int c = 0; c < CLASSES; ++c) {
      logits[c] = 0.0f;
      for (int j = 0; j < DIM; ++j)
        logits[c] += kept[i * DIM + j] * w[j * CLASSES + c];
      top = logits[c] > top ? logits[c] : top;
    }
    for (int c = 0; c < CLASSES; ++c)
      total += expf(logits[c] - top);
    sum += logf(total) + top - logits[labels[i]];
    for (int c = 0; c < CLASSES; ++c) {
      float d = expf(logits[c] - top) / total - (c == labels[i]);
      for (int j = 0; j < DIM; ++j)
        grad[j * CLASSES + c] += kept[i * DIM + j] * d / counted;
    }
  }
  *loss = counted ? sum / counted : 0.0f;
  float norm2 = 0.0f;
  for (int k = 0; k < DIM * CLASSES; ++k)
    norm2 += grad[k] * grad[k];
  *grad_norm = sqrtf(norm2);
  *lr = LR;
  for (int k = 0; k < DIM * CLASSES; ++k)
    w[k] -= LR * grad[k];
}
