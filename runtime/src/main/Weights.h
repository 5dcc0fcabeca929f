//===- Weights.h - Parameters from a safetensors file -----------*- C++ -*-===//

#ifndef DISTRT_MAIN_WEIGHTS_H
#define DISTRT_MAIN_WEIGHTS_H

#include "ModelInterface.h"

#include <string>
#include <vector>

namespace distrt::model {

/// The weights file of a run: `weights` if given, else
/// `<executable>.safetensors`.
std::string weightsPath(const std::string &weights, const char *argv0);

/// Reads every `param` of `model` by name from the safetensors file `path`
/// (extra tensors are ignored) into newly allocated buffers, stored at the
/// parameters' argument indices of `pointers`. A model without parameters
/// needs no file. On failure returns false and sets `message`, naming the
/// parameter and the file.
bool loadParams(const Interface &model, const std::string &path,
                std::vector<void *> &pointers, std::string &message);

} // namespace distrt::model

#endif // DISTRT_MAIN_WEIGHTS_H
