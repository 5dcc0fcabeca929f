//===- ParameterServerCheckpoint.h - Checkpoints of parameter servers -*- C++ -*-===//
//
// A synchronous parameter-server run (ParameterServer.h) writes the same
// checkpoints as the trainer (Checkpoint.h): whole tensors of the model's
// inputs, every parameter and every server's optimizer state, named as the
// 1-rank trainer of the same model names them, so that a checkpoint loads
// under either (dist-compile --parallel=ps or any other plan). Worker 0
// writes them, with the servers' parameters and state sent to it.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_PARAMETERSERVERCHECKPOINT_H
#define DISTRT_MAIN_PARAMETERSERVERCHECKPOINT_H

#include "HostBuffers.h"
#include "Manifest.h"
#include "ModelInterface.h"

#include <string>
#include <vector>

namespace distrt::model {

/// The workers' interface (distrt/model.h) with whole batches: what the
/// data source reads and checkpoints record.
Interface wholeBatch(const Interface &worker, int64_t workers);

/// The trainer whose checkpoints a run of `servers` on `worker` (the
/// workers' interface, at `workers` workers) writes: the inputs with whole
/// batches, the workers' parameters, a step, each server's optimizer state
/// and server 0's hyperparameters and meta.
Interface checkpointModel(const Interface &worker, int64_t workers,
                          const std::vector<Interface> &servers);

/// A checkpoint read for --resume: its tensors by argument of
/// checkpointModel (params and state; null for the others).
struct Resumed {
  std::string checkpoint; // the step-* directory
  Manifest manifest;
  HostBuffers tensors;
  explicit Resumed(size_t arguments) : tensors(arguments) {}
  /// The tensor of argument `name` of `model`, or null.
  const void *find(const Interface &model, const std::string &name) const;
};

/// Finds, checks (against `model`, checkpointModel's) and reads the
/// checkpoint --resume `path` names; false with `error` set.
bool readResume(const std::string &path, const Interface &model,
                Resumed &out, std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_PARAMETERSERVERCHECKPOINT_H
