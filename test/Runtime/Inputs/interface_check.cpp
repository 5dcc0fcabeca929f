//===- interface_check.cpp - The driver's interface parser on any text ----===//
//
//   distrt-interface-check < TEXT
//
// Parses the interface text on stdin as the generic driver parses
// dist_model_interface (runtime/src/main/ModelInterface.cpp), so a test can
// try any text without building a model per variant. Prints `error: ...`
// (exit 1), or the mesh, each tensor's split and placement on pipeline
// stages, each ranged input's values,
// the step and seed arguments and each hyperparameter with its option and
// default (exit 0).
//
//===----------------------------------------------------------------------===//

#include "Hyperparameters.h"
#include "ModelInterface.h"

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

using namespace distrt::model;

int main() {
  std::string text((std::istreambuf_iterator<char>(std::cin)),
                   std::istreambuf_iterator<char>());
  Interface model;
  std::string error;
  if (!parseInterface(text.c_str(), model, error)) {
    std::printf("error: %s\n", error.c_str());
    return 1;
  }
  std::printf("ok: mesh %s (%lld devices)\n",
              model.mesh.empty() ? "none" : model.meshText().c_str(),
              static_cast<long long>(model.devices()));
  if (model.cuda)
    std::printf("target cuda %s\n", model.arch.c_str());
  if (model.flopsPerStep)
    std::printf("flops %lld\n", static_cast<long long>(model.flopsPerStep));
  for (const auto *list : {&model.arguments, &model.outputs})
    for (const TensorSpec &spec : *list)
      if (spec.hasShards())
        std::printf("%s %s: %s\n", roleName(spec.role), spec.name.c_str(),
                    spec.shardText().c_str());
  for (const TensorSpec &spec : model.arguments) {
    if (spec.placeAxis >= 0)
      std::printf("%s %s: on %s\n", roleName(spec.role), spec.name.c_str(),
                  spec.placeText().c_str());
    if (spec.range)
      std::printf("range %s: %s\n", spec.name.c_str(),
                  spec.rangeText().c_str());
    if (spec.role == Role::Step || spec.role == Role::Seed)
      std::printf("%s %s\n", roleName(spec.role), spec.name.c_str());
    if (spec.role == Role::Hparam)
      std::printf("hparam %s: %s %s\n", spec.name.c_str(),
                  hparamFlag(spec.name).c_str(),
                  numberText(spec.hparamDefault).c_str());
  }
  return 0;
}
