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
/// into newly allocated buffers, stored at the parameters' argument indices
/// of `pointers`. A model without parameters needs no file. A file with
/// other tensors is an error (another model's weights), unless `share`: the
/// model holds a share of the parameters (a parameter server's). On failure
/// returns false and sets `message`, naming the parameter and the file.
bool loadParams(const Interface &model, const std::string &path,
                std::vector<void *> &pointers, std::string &message,
                bool share = false);

} // namespace distrt::model

#endif // DISTRT_MAIN_WEIGHTS_H
