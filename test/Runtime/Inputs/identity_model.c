/*===- identity_model.c - A model without parameters that copies inputs ----===*
 *
 * Every input comes back as an output, so a test sees the driver's random
 * values of each dtype; names use spaces, dots and slashes. bfloat16 has no
 * .npy type, so `brain` comes back widened to float32 (exactly).
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/model.h"

#include <stdint.h>
#include <string.h>

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"a b.c/d\", \"dtype\": \"float64\", \"shape\": [3]},\n"
    "  {\"role\": \"input\", \"name\": \"half\", \"dtype\": \"float16\", \"shape\": [2, 2]},\n"
    "  {\"role\": \"input\", \"name\": \"flags\", \"dtype\": \"bool\", \"shape\": [5]},\n"
    "  {\"role\": \"input\", \"name\": \"bytes\", \"dtype\": \"uint8\", \"shape\": [4]},\n"
    "  {\"role\": \"input\", \"name\": \"count\", \"dtype\": \"int32\", \"shape\": []},\n"
    "  {\"role\": \"input\", \"name\": \"brain\", \"dtype\": \"bfloat16\", \"shape\": [3]},\n"
    "  {\"role\": \"input\", \"name\": \"empty\", \"dtype\": \"float32\", \"shape\": [0, 4]}],\n"
    " \"outputs\": [\n"
    "  {\"name\": \"a b.c/d\", \"dtype\": \"float64\", \"shape\": [3]},\n"
    "  {\"name\": \"half\", \"dtype\": \"float16\", \"shape\": [2, 2]},\n"
    "  {\"name\": \"flags\", \"dtype\": \"bool\", \"shape\": [5]},\n"
    "  {\"name\": \"bytes\", \"dtype\": \"uint8\", \"shape\": [4]},\n"
    "  {\"name\": \"count\", \"dtype\": \"int32\", \"shape\": []},\n"
    "  {\"name\": \"brain/f32\", \"dtype\": \"float32\", \"shape\": [3]},\n"
    "  {\"name\": \"empty\", \"dtype\": \"float32\", \"shape\": [0, 4]}]}";
/* clang-format on */

void dist_model_forward(void **buffers) {
  memcpy(buffers[7], buffers[0], 3 * sizeof(double));
  memcpy(buffers[8], buffers[1], 4 * sizeof(uint16_t));
  memcpy(buffers[9], buffers[2], 5);
  memcpy(buffers[10], buffers[3], 4);
  memcpy(buffers[11], buffers[4], sizeof(int32_t));
  for (int i = 0; i < 3; ++i) {
    uint32_t bits = (uint32_t)((const uint16_t *)buffers[5])[i] << 16;
    memcpy((float *)buffers[12] + i, &bits, sizeof(bits));
  }
}
