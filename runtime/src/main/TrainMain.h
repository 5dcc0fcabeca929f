//===- TrainMain.h - The training loop of a trainer -------------*- C++ -*-===//

#ifndef DISTRT_MAIN_TRAINMAIN_H
#define DISTRT_MAIN_TRAINMAIN_H

#include "ModelInterface.h"

namespace distrt::model {

/// main() for a model whose interface says "mode": "train": parses the trainer's
/// command line and trains (docs/trainer-abi.md). Returns the exit status.
int trainMain(int argc, char **argv, const Interface &model);

} // namespace distrt::model

#endif // DISTRT_MAIN_TRAINMAIN_H
