//===- Manifest.h - A checkpoint's manifest.json ----------------*- C++ -*-===//
//
// What a checkpoint directory records besides its tensors: the step, the
// mesh it was trained on (informational: the tensors are whole, and load
// under any mesh), the model's inputs, parameters and optimizer state
// (names, dtypes, shapes; a CRC-32C of each parameter and state tensor), the
// seed of the model's random numbers, the values of its run-time
// hyperparameters, its `meta` lines, the data source and position, and the
// byte size of each tensor file. Written as
// JSON, read back with the strict parser of src/core/Json.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_MANIFEST_H
#define DISTRT_MAIN_MANIFEST_H

#include "DataSource.h"
#include "Hyperparameters.h"
#include "ModelInterface.h"

#include <string>
#include <utility>
#include <vector>

namespace distrt::model {

/// The manifest's "format".
constexpr const char kCheckpointFormat[] = "distrt-checkpoint 1";

struct Manifest {
  uint64_t step = 0; // the last step taken before the checkpoint
  /// --seed, the value of the model's `seed` argument. Optional when read
  /// (older checkpoints): 0.
  int64_t seed = 0;
  /// The interface's mesh (empty: a single device). Optional when read.
  std::vector<int64_t> mesh;
  /// Name, dtype and shape (role set) of each, in argument order.
  std::vector<TensorSpec> inputs, params, state;
  /// The CRC-32C (Crc32c.h) of each parameter and state tensor's bytes, by
  /// name. Optional when read: a tensor without one (older checkpoints) is
  /// not checked.
  std::vector<std::pair<std::string, uint32_t>> checksums;
  /// The values of the model's `hparam` arguments the run used (options,
  /// or the compiled defaults). Optional when read (older checkpoints):
  /// empty, and a resume takes the defaults.
  HparamValues hparams;
  std::vector<std::pair<std::string, std::string>> meta;
  DataState data;
  /// The byte size of each tensor file, by file name.
  std::vector<std::pair<std::string, uint64_t>> files;

  /// The recorded size of `file`, or false.
  bool fileSize(const std::string &file, uint64_t &size) const;
  /// The recorded checksum of tensor `name`, or false.
  bool checksum(const std::string &name, uint32_t &crc) const;
};

/// The manifest of `model` at `step`, with `seed`, `hparams`, `checksums`,
/// `data` and `files`.
Manifest makeManifest(const Interface &model, uint64_t step, int64_t seed,
                      const HparamValues &hparams,
                      std::vector<std::pair<std::string, uint32_t>> checksums,
                      const DataState &data,
                      std::vector<std::pair<std::string, uint64_t>> files);

/// The manifest as JSON text, one entry per line.
std::string manifestJson(const Manifest &manifest);

/// Parses `text` (from `path`, for messages) strictly: valid JSON, every
/// field present with its type. On failure returns false and sets `error`
/// naming `path` and the field.
bool parseManifest(const std::string &text, const std::string &path,
                   Manifest &manifest, std::string &error);

/// Whether the checkpoint (`where`, for messages) is of `model`: the same
/// inputs, parameters and state (names, dtypes, shapes) and the same `meta
/// optimizer`. Other meta differences are only logged as warnings.
bool checkManifest(const Interface &model, const Manifest &manifest,
                   const std::string &where, std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_MANIFEST_H
