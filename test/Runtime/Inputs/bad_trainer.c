/*===- bad_trainer.c - Trainers whose interface text is malformed ---------===*
 *
 * Built once per BAD_* variant (test/Runtime/CMakeLists.txt); each breaks
 * one rule of a trainer's interface (docs/trainer-abi.md).
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/model.h"

#define HEAD "dist-model 1\nmode train\n"
#define OUTPUTS                                                                \
  "output float32 scalar loss\n"                                               \
  "output float32 scalar grad_norm\n"                                          \
  "output float32 scalar lr\n"

const char dist_model_interface[] =
#if defined(BAD_STEP_DTYPE)
    HEAD "input int64 2x4 idx\nstep int32 scalar step\n" OUTPUTS;
#elif defined(BAD_OUTPUTS)
    HEAD "input int64 2x4 idx\noutput float32 scalar loss\n"
         "output float32 scalar lr\n";
#elif defined(BAD_RANGE_FLOAT)
    HEAD "input float32 2x4 x\n" OUTPUTS "range x 10\n";
#elif defined(BAD_RANGE_UNKNOWN)
    HEAD "input int64 2x4 idx\n" OUTPUTS "range idy 10\n";
#elif defined(BAD_RANGE_DTYPE)
    HEAD "input uint8 2x4 idx\n" OUTPUTS "range idx 300\n";
#elif defined(BAD_META_TWICE)
    HEAD "input int64 2x4 idx\n" OUTPUTS "meta lr 0.1\nmeta lr 0.2\n";
#elif defined(BAD_MODE_LINE)
    "dist-model 1\ninput int64 2x4 idx\nmode train\n" OUTPUTS;
#elif defined(BAD_HPARAM_META)
    HEAD "input int64 2x4 idx\nhparam float64 scalar lr\n" OUTPUTS
         "meta lr_max 0.1\n";
#elif defined(BAD_STATE_FORWARD)
    "dist-model 1\ninput int64 2x4 idx\nstate float32 4 m\n"
    "output float32 scalar loss\n";
#else
#error "define one BAD_* variant"
#endif

void dist_model_forward(void **buffers) { (void)buffers; }
