/*===- bad_trainer.c - Trainers whose interface is malformed --------------===*
 *
 * Built once per BAD_* variant (test/Runtime/CMakeLists.txt); each breaks
 * one rule of a trainer's interface (distrt/model.h, docs/trainer-abi.md)
 * and is well-formed otherwise.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/model.h"

/* clang-format off */
#define HEAD                                                                   \
  "{\"format\": \"dist-model\", \"version\": 1, \"mode\": \"train\",\n"
/* One argument: `IDX "]"` ends the arguments, `IDX ",\n"` goes on. */
#define IDX                                                                    \
  " \"arguments\": [\n"                                                        \
  "  {\"role\": \"input\", \"name\": \"idx\", \"dtype\": \"int64\", \"shape\": [2, 4]}"
#define LOSS "  {\"name\": \"loss\", \"dtype\": \"float32\", \"shape\": []}"
#define GRAD_NORM                                                              \
  "  {\"name\": \"grad_norm\", \"dtype\": \"float32\", \"shape\": []}"
#define LR "  {\"name\": \"lr\", \"dtype\": \"float32\", \"shape\": []}"
#define OUTPUTS " \"outputs\": [\n" LOSS ",\n" GRAD_NORM ",\n" LR "]"

const char dist_model_interface[] =
#if defined(BAD_STEP_DTYPE) /* the step is an int32 */
    HEAD IDX ",\n"
    "  {\"role\": \"step\", \"name\": \"step\", \"dtype\": \"int32\", \"shape\": []}],\n"
    OUTPUTS "}";
#elif defined(BAD_OUTPUTS) /* no grad_norm */
    HEAD IDX "],\n"
    " \"outputs\": [\n" LOSS ",\n" LR "]}";
#elif defined(BAD_RANGE_FLOAT) /* a range on a float input */
    HEAD
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [2, 4], \"range\": 10}],\n"
    OUTPUTS "}";
#elif defined(BAD_RANGE_UNKNOWN) /* a range on no argument: on an output */
    HEAD IDX "],\n"
    " \"outputs\": [\n"
    "  {\"name\": \"loss\", \"dtype\": \"float32\", \"shape\": [], \"range\": 10},\n"
    GRAD_NORM ",\n" LR "]}";
#elif defined(BAD_RANGE_DTYPE) /* a range beyond the dtype's values */
    HEAD
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"idx\", \"dtype\": \"uint8\", \"shape\": [2, 4], \"range\": 300}],\n"
    OUTPUTS "}";
#elif defined(BAD_META_TWICE) /* a meta key twice */
    HEAD IDX "],\n"
    OUTPUTS ",\n"
    " \"meta\": {\"lr\": 0.1, \"lr\": 0.2}}";
#elif defined(BAD_MODE_LINE) /* "mode" where it is not read: in an argument */
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"idx\", \"dtype\": \"int64\", \"shape\": [2, 4], \"mode\": \"train\"}],\n"
    OUTPUTS "}";
#elif defined(BAD_HPARAM_META) /* an hparam without its meta entry */
    HEAD IDX ",\n"
    "  {\"role\": \"hparam\", \"name\": \"lr\", \"dtype\": \"float64\", \"shape\": []}],\n"
    OUTPUTS ",\n"
    " \"meta\": {\"lr_max\": 0.1}}";
#elif defined(BAD_STATE_FORWARD) /* state in a forward model */
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    IDX ",\n"
    "  {\"role\": \"state\", \"name\": \"m\", \"dtype\": \"float32\", \"shape\": [4]}],\n"
    " \"outputs\": [\n" LOSS "]}";
#else
#error "define one BAD_* variant"
#endif
/* clang-format on */

void dist_model_forward(void **buffers) { (void)buffers; }
