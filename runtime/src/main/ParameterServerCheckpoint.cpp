//===- ParameterServerCheckpoint.cpp - Checkpoints of parameter servers ---===//

#include "ParameterServerCheckpoint.h"
#include "Checkpoint.h"

namespace distrt::model {

Interface wholeBatch(const Interface &worker, int64_t workers) {
  Interface whole = worker;
  for (TensorSpec &spec : whole.arguments)
    if (spec.role == Role::Input && spec.rank >= 1)
      spec.shape[0] *= workers;
  return whole;
}

Interface checkpointModel(const Interface &worker, int64_t workers,
                          const std::vector<Interface> &servers) {
  Interface model = wholeBatch(worker, workers);
  model.train = true;
  model.outputs.clear();
  model.meta = servers.front().meta;
  TensorSpec step;
  step.role = Role::Step;
  step.dtype = DISTRT_I64;
  step.rank = 0;
  step.name = "step";
  model.arguments.push_back(step);
  for (const Interface &server : servers)
    for (const TensorSpec *spec : server.withRole(Role::State))
      model.arguments.push_back(*spec);
  for (const TensorSpec *spec : servers.front().withRole(Role::Hparam))
    model.arguments.push_back(*spec);
  return model;
}

const void *Resumed::find(const Interface &model,
                          const std::string &name) const {
  const TensorSpec *spec = model.findArgument(name);
  return spec ? tensors.pointers[spec - model.arguments.data()] : nullptr;
}

bool readResume(const std::string &path, const Interface &model,
                Resumed &out, std::string &error) {
  if (!findCheckpoint(path, out.checkpoint, error))
    return false;
  return readManifest(out.checkpoint, out.manifest, error) &&
         checkManifest(model, out.manifest, out.checkpoint, error) &&
         loadCheckpoint(model, out.checkpoint, out.manifest,
                        out.tensors.pointers, error);
}

} // namespace distrt::model
