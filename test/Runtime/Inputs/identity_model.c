/*===- identity_model.c - A model without parameters that copies inputs ----===*
 *
 * Every input comes back as an output, so a test sees the driver's random
 * values of each dtype; names use the short dtype spellings, spaces, dots
 * and slashes. bfloat16 has no .npy type, so `brain` comes back widened to
 * float32 (exactly).
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/model.h"

#include <stdint.h>
#include <string.h>

const char dist_model_interface[] = "dist-model 1\n"
                                    "input f64 3 a b.c/d\n"
                                    "input float16 2x2 half\n"
                                    "input bool 5 flags\n"
                                    "input u8 4 bytes\n"
                                    "input i32 scalar count\n"
                                    "input bf16 3 brain\n"
                                    "input float32 0x4 empty\n"
                                    "output float64 3 a b.c/d\n"
                                    "output f16 2x2 half\n"
                                    "output bool 5 flags\n"
                                    "output uint8 4 bytes\n"
                                    "output int32 scalar count\n"
                                    "output f32 3 brain/f32\n"
                                    "output f32 0x4 empty\n";

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
