//===- Weights.cpp - Parameters from a safetensors file -------------------===//

#include "Weights.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Job.h"

#include <cstring>
#include <memory>
#include <set>

namespace distrt::model {

std::string weightsPath(const std::string &weights, const char *argv0) {
  return weights.empty() ? executablePath(argv0) + ".safetensors" : weights;
}

bool loadParams(const Interface &model, const std::string &path,
                std::vector<void *> &pointers, std::string &message,
                bool share) {
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
  // A file with tensors the model lacks belongs to another model (or to
  // another export of this one, whose weights may be folded differently).
  std::set<std::string> names;
  for (const TensorSpec *spec : params)
    names.insert(spec->name);
  std::string extra;
  int64_t extras = 0;
  for (int64_t i = 0; i < distrt_safetensors_count(file.get()); ++i) {
    const char *name = distrt_safetensors_name(file.get(), i);
    if (!name || names.count(name))
      continue;
    if (++extras <= 3)
      extra += (extras > 1 ? ", '" : "'") + std::string(name) + "'";
  }
  if (extras && !share) {
    message = path + " holds " + std::to_string(extras) +
              (extras == 1 ? " tensor that is" : " tensors that are") +
              " not a parameter of this model (" + extra +
              (extras > 3 ? ", ..." : "") +
              "): it holds the weights of another model or of another "
              "export of it; --weights must hold exactly the model's "
              "parameters (see --help)";
    return false;
  }
  return true;
}

bool initialState(const Interface &model, std::vector<void *> &pointers,
                  std::string &error) {
  for (const TensorSpec *spec : model.withRole(Role::State)) {
    void *data = distrt_alloc(kHost, spec->bytes());
    if (!data) {
      error = "state '" + spec->name + "': " + distrt_last_error();
      return false;
    }
    std::memset(data, 0, spec->bytes());
    if (spec->init != 0) {
      // "init": a float32 or float64 state (ModelInterface.cpp).
      for (int64_t e = 0; e < spec->elements(); ++e)
        if (spec->dtype == DISTRT_F32)
          static_cast<float *>(data)[e] = static_cast<float>(spec->init);
        else
          static_cast<double *>(data)[e] = spec->init;
    }
    pointers[spec - model.arguments.data()] = data;
  }
  return true;
}

bool allocateOthers(const Interface &model, std::vector<void *> &pointers,
                    std::string &error) {
  for (size_t i = 0; i < pointers.size(); ++i) {
    if (pointers[i])
      continue;
    const TensorSpec &spec = i < model.arguments.size()
                                 ? model.arguments[i]
                                 : model.outputs[i - model.arguments.size()];
    if (!(pointers[i] = distrt_alloc(kHost, spec.bytes()))) {
      error = std::string(roleName(spec.role)) + " '" + spec.name +
              "': " + distrt_last_error();
      return false;
    }
    std::memset(pointers[i], 0, spec.bytes());
  }
  return true;
}

} // namespace distrt::model
