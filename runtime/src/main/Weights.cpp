//===- Weights.cpp - Parameters from a safetensors file -------------------===//

#include "Weights.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Job.h"

#include <memory>

namespace distrt::model {

std::string weightsPath(const std::string &weights, const char *argv0) {
  return weights.empty() ? executablePath(argv0) + ".safetensors" : weights;
}

bool loadParams(const Interface &model, const std::string &path,
                std::vector<void *> &pointers, std::string &message) {
  std::vector<const TensorSpec *> params = model.withRole(Role::Param);
  if (params.empty())
    return true;
  std::unique_ptr<distrt_safetensors, SafetensorsCloser> file(
      distrt_safetensors_open(path.c_str()));
  if (!file) {
    std::string names;
    for (size_t i = 0; i < params.size() && i < 3; ++i)
      names += (i ? ", '" : "'") + params[i]->name + "'";
    if (params.size() > 3)
      names += ", ... (" + std::to_string(params.size()) + " in all)";
    message = "cannot load the parameters (" + names +
              "): " + distrt_last_error() + "; pass --weights FILE";
    return false;
  }
  if (isMainRank())
    distrt_log(DISTRT_LOG_INFO, "parameters from %s", path.c_str());
  for (const TensorSpec *spec : params) {
    distrt_tensor info;
    if (distrt_safetensors_info(file.get(), spec->name.c_str(), &info) != 0) {
      message = "parameter '" + spec->name + "': not in " + path;
      return false;
    }
    if (!spec->matches(info)) {
      message = "parameter '" + spec->name + "': expected " + spec->typeText() +
                ", got " + typeText(info.dtype, info.rank, info.shape) +
                " in " + path;
      return false;
    }
    void *data = distrt_alloc(kHost, spec->bytes());
    pointers[spec - model.arguments.data()] = data;
    if (!data || distrt_safetensors_read(file.get(), spec->name.c_str(), data,
                                         spec->bytes()) != 0) {
      message = "parameter '" + spec->name + "': " + distrt_last_error();
      return false;
    }
  }
  return true;
}

} // namespace distrt::model
