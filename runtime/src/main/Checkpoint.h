//===- Checkpoint.h - Training checkpoints on disk --------------*- C++ -*-===//
//
// A checkpoint is a directory DIR/step-%08d holding params.safetensors
// (usable as --weights), optimizer.safetensors and manifest.json
// (Manifest.h). It is written into DIR/.tmp-step-%08d-<pid>, every file
// fsync'd, and renamed into place, so that a crash leaves the previous
// checkpoints intact and at most a .tmp-* directory, which resume ignores
// and the next save removes.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_CHECKPOINT_H
#define DISTRT_MAIN_CHECKPOINT_H

#include "DataSource.h"
#include "Manifest.h"
#include "ModelInterface.h"

#include <string>
#include <vector>

namespace distrt::model {

/// Writes the checkpoint of `step` into `dir` (which exists): the model's
/// params and state from `pointers` (one per argument), with a CRC-32C of
/// each in the manifest, the `seed`, the hyperparameter values `hparams`
/// and `data`. A checkpoint of the same step already there is replaced. On
/// failure returns false and sets `error`; the other checkpoints are
/// untouched.
///
/// For tests: with DISTRT_TEST_KILL_IN_CHECKPOINT=<step> in the environment,
/// the process kills itself (SIGKILL) while writing that step's checkpoint,
/// right after params.safetensors.
bool saveCheckpoint(const std::string &dir, const Interface &model,
                    const std::vector<void *> &pointers, int64_t step,
                    int64_t seed, const HparamValues &hparams,
                    const DataState &data, std::string &error);

/// `dir`/step-%08d, the checkpoint of `step`.
std::string checkpointPath(const std::string &dir, int64_t step);

/// The step-* directory in `dir` with the highest step; empty if none.
std::string newestCheckpoint(const std::string &dir);

/// A fresh run (no --resume) must not write its checkpoints into a --ckpt
/// directory that holds some (a later --resume would pick up the other
/// run's newest): false with `error` saying what to do if it does.
bool checkFreshCheckpoints(const std::string &ckpt, const std::string &resume,
                           std::string &error);

/// The checkpoint directory `path` names: `path` itself if it holds a
/// manifest.json, else its step-* subdirectory with the highest step. A
/// missing directory, or one without checkpoints, is an error.
bool findCheckpoint(const std::string &path, std::string &checkpoint,
                    std::string &error);

/// Reads `checkpoint`/manifest.json.
bool readManifest(const std::string &checkpoint, Manifest &manifest,
                  std::string &error);

/// Reads the params and state of a checkpoint whose manifest was checked
/// against `model` into newly allocated buffers at their argument indices
/// of `pointers`. A file whose size or content differs from what the
/// manifest says, or a tensor whose bytes do not have the manifest's
/// checksum, is an error naming the file (and the tensor).
bool loadCheckpoint(const Interface &model, const std::string &checkpoint,
                    const Manifest &manifest, std::vector<void *> &pointers,
                    std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_CHECKPOINT_H
