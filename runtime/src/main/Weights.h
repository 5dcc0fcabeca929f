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

/// Allocates each optimizer state (`state` argument) of `model` at its
/// starting value (0, or its "init"), at its index of `pointers`; false
/// with `error` set if memory runs out.
bool initialState(const Interface &model, std::vector<void *> &pointers,
                  std::string &error);

/// Allocates a zeroed host buffer for every argument, then output, of
/// `model` whose entry of `pointers` (arguments, then outputs) is null; false
/// with `error` naming the tensor if memory runs out.
bool allocateOthers(const Interface &model, std::vector<void *> &pointers,
                    std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_WEIGHTS_H
