//===- Checkpoint.cpp - Training checkpoints on disk ----------------------===//

#include "Checkpoint.h"
#include "Crc32c.h"
#include "FileSystem.h"
#include "HostBuffers.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace distrt::model {

namespace {

constexpr char kParamsFile[] = "params.safetensors";
constexpr char kOptimizerFile[] = "optimizer.safetensors";
constexpr char kManifestFile[] = "manifest.json";
constexpr char kTemporaryPrefix[] = ".tmp-";
/// manifest.json is small; anything far larger is not one.
constexpr uint64_t kMaxManifestBytes = uint64_t(1) << 28;

std::string stepName(int64_t step) {
  char name[32];
  std::snprintf(name, sizeof(name), "step-%08lld",
                static_cast<long long>(step));
  return name;
}

/// The step of a `step-NNNNNNNN` name (8 or more digits); false for other
/// names.
bool parseStepName(const std::string &name, uint64_t &step) {
  if (name.size() < 13 || name.compare(0, 5, "step-") != 0 ||
      name.size() > 5 + 18)
    return false;
  step = 0;
  for (size_t i = 5; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9')
      return false;
    step = step * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return true;
}

distrt_tensor tensorOf(const TensorSpec &spec, void *data) {
  distrt_tensor tensor;
  std::memset(&tensor, 0, sizeof(tensor));
  tensor.dtype = spec.dtype;
  tensor.rank = spec.rank;
  std::copy(spec.shape, spec.shape + spec.rank, tensor.shape);
  tensor.device = kHost;
  tensor.data = data;
  return tensor;
}

/// Writes the arguments with `role` to `path` (through distrt's temporary
/// file + fsync + rename), returns its size in `bytes` and appends each
/// tensor's CRC-32C to `checksums`.
bool writeTensors(const std::string &path, const Interface &model, Role role,
                  const std::vector<void *> &pointers, int64_t step,
                  uint64_t &bytes,
                  std::vector<std::pair<std::string, uint32_t>> &checksums,
                  std::string &error) {
  std::vector<const char *> names;
  std::vector<distrt_tensor> tensors;
  for (const TensorSpec *spec : model.withRole(role)) {
    void *data = pointers[spec - model.arguments.data()];
    names.push_back(spec->name.c_str());
    tensors.push_back(tensorOf(*spec, data));
    checksums.emplace_back(spec->name, crc32c(data, spec->bytes()));
  }
  // "format": "pt" lets the safetensors tools of other frameworks load the
  // parameters as well.
  std::string stepText = std::to_string(step);
  const char *keys[] = {"format", "step"};
  const char *values[] = {"pt", stepText.c_str()};
  if (distrt_safetensors_write(path.c_str(), static_cast<int64_t>(names.size()),
                               names.data(), tensors.data(), 2, keys,
                               values) != 0) {
    error = distrt_last_error();
    return false;
  }
  return regularFileSize(path, bytes, error);
}

/// Removes the .tmp-* directories an interrupted save left in `dir`: those
/// of this process and of processes that no longer exist (the name ends in
/// the writer's pid). A failure is only logged: it loses nothing.
void removeStaleTemporaries(const std::string &dir) {
  std::vector<std::string> names;
  std::string error;
  if (!listDirectory(dir, names, error))
    return;
  for (const std::string &name : names) {
    if (name.compare(0, std::strlen(kTemporaryPrefix), kTemporaryPrefix) != 0)
      continue;
    size_t dash = name.rfind('-');
    char *end = nullptr;
    long pid = std::strtol(name.c_str() + dash + 1, &end, 10);
    if (pid <= 0 || *end != '\0')
      continue;
    if (pid != ::getpid() &&
        (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH))
      continue; // another live process may be writing it
    if (!removeTree(dir + "/" + name, error))
      distrt_log(DISTRT_LOG_WARN, "cannot remove a stale checkpoint: %s",
                 error.c_str());
  }
}

/// The test hook (Checkpoint.h): whether to die while writing `step`.
bool killRequested(int64_t step) {
  const char *value = std::getenv("DISTRT_TEST_KILL_IN_CHECKPOINT");
  return value && *value && std::to_string(step) == value;
}

/// Writes every file of the checkpoint into `temporary`, then fsyncs it.
bool writeFiles(const std::string &temporary, const Interface &model,
                const std::vector<void *> &pointers, int64_t step, int64_t seed,
                const HparamValues &hparams, const DataState &data,
                std::string &error) {
  uint64_t paramsBytes, optimizerBytes;
  std::vector<std::pair<std::string, uint32_t>> checksums;
  if (!writeTensors(temporary + "/" + kParamsFile, model, Role::Param, pointers,
                    step, paramsBytes, checksums, error))
    return false;
  if (killRequested(step)) {
    std::fflush(nullptr);
    std::raise(SIGKILL);
  }
  if (!writeTensors(temporary + "/" + kOptimizerFile, model, Role::State,
                    pointers, step, optimizerBytes, checksums, error))
    return false;
  Manifest manifest = makeManifest(
      model, static_cast<uint64_t>(step), seed, hparams, std::move(checksums),
      data, {{kParamsFile, paramsBytes}, {kOptimizerFile, optimizerBytes}});
  return writeNewFile(temporary + "/" + kManifestFile, manifestJson(manifest),
                      error) &&
         syncDirectory(temporary, error);
}

/// Renames `temporary` to `target`; an existing `target` is first renamed
/// to `aside`, and removed once the new one is in place.
bool moveIntoPlace(const std::string &dir, const std::string &temporary,
                   const std::string &target, const std::string &aside,
                   std::string &error) {
  bool replacing = pathExists(target);
  if (replacing && std::rename(target.c_str(), aside.c_str()) != 0) {
    error = target +
            ": cannot move the old checkpoint aside: " + std::strerror(errno);
    return false;
  }
  if (std::rename(temporary.c_str(), target.c_str()) != 0) {
    error = target + ": cannot rename " + temporary +
            " to it: " + std::strerror(errno);
    if (replacing)
      std::rename(aside.c_str(), target.c_str());
    return false;
  }
  if (!syncDirectory(dir, error))
    return false;
  if (replacing && !removeTree(aside, error))
    distrt_log(DISTRT_LOG_WARN, "cannot remove the replaced checkpoint: %s",
               error.c_str());
  return true;
}

/// Reads the tensors of `role` from the checkpoint file `name`: its size
/// must be the manifest's, it must hold exactly the model's tensors.
bool readTensors(const Interface &model, const std::string &checkpoint,
                 const Manifest &manifest, const char *name, Role role,
                 std::vector<void *> &pointers, std::string &error) {
  std::string path = checkpoint + "/" + name;
  uint64_t expected, actual;
  if (!manifest.fileSize(name, expected)) {
    error = checkpoint + "/" + kManifestFile + ": files: no size of " + name;
    return false;
  }
  if (!regularFileSize(path, actual, error))
    return false;
  if (actual != expected) {
    error = path + ": " + std::to_string(actual) +
            " bytes, but the manifest "
            "says " +
            std::to_string(expected) + " (truncated or overwritten?)";
    return false;
  }
  std::unique_ptr<distrt_safetensors, SafetensorsCloser> file(
      distrt_safetensors_open(path.c_str()));
  if (!file) {
    error = distrt_last_error();
    return false;
  }
  std::vector<const TensorSpec *> specs = model.withRole(role);
  if (distrt_safetensors_count(file.get()) !=
      static_cast<int64_t>(specs.size())) {
    error = path + ": holds " +
            std::to_string(distrt_safetensors_count(file.get())) +
            " tensors, the manifest lists " + std::to_string(specs.size());
    return false;
  }
  for (const TensorSpec *spec : specs) {
    distrt_tensor info;
    bool present =
        distrt_safetensors_info(file.get(), spec->name.c_str(), &info) == 0;
    if (!present || !spec->matches(info)) {
      error = path + ": tensor '" + spec->name + "' " +
              (present ? "is " + typeText(info.dtype, info.rank, info.shape) +
                             ", the manifest says " + spec->typeText()
                       : std::string("is missing"));
      return false;
    }
    void *data = distrt_alloc(kHost, spec->bytes());
    pointers[spec - model.arguments.data()] = data;
    if (!data || distrt_safetensors_read(file.get(), spec->name.c_str(), data,
                                         spec->bytes()) != 0) {
      error = distrt_last_error();
      return false;
    }
    // Bytes damaged on disk (a flipped bit, a partial overwrite) would
    // otherwise resume silently with wrong values.
    uint32_t expected, actual;
    if (manifest.checksum(spec->name, expected) &&
        (actual = crc32c(data, spec->bytes())) != expected) {
      error = path + ": tensor '" + spec->name + "' has CRC-32C " +
              crc32cText(actual) + ", the manifest says " +
              crc32cText(expected) + ": the checkpoint " + checkpoint +
              " is damaged";
      return false;
    }
  }
  return true;
}

} // namespace

bool saveCheckpoint(const std::string &dir, const Interface &model,
                    const std::vector<void *> &pointers, int64_t step,
                    int64_t seed, const HparamValues &hparams,
                    const DataState &data, std::string &error) {
  removeStaleTemporaries(dir);
  std::string name = stepName(step), pid = std::to_string(::getpid());
  std::string temporary = dir + "/" + kTemporaryPrefix + name + "-" + pid;
  std::string aside = dir + "/" + kTemporaryPrefix + "old-" + name + "-" + pid;
  std::string target = dir + "/" + name;
  if (::mkdir(temporary.c_str(), 0777) != 0) {
    error =
        temporary + ": cannot create the directory: " + std::strerror(errno);
    return false;
  }
  if (!writeFiles(temporary, model, pointers, step, seed, hparams, data,
                  error) ||
      !moveIntoPlace(dir, temporary, target, aside, error)) {
    std::string ignored;
    removeTree(temporary, ignored);
    return false;
  }
  distrt_log(DISTRT_LOG_INFO, "checkpoint %s written", target.c_str());
  return true;
}

std::string checkpointPath(const std::string &dir, int64_t step) {
  return dir + "/" + stepName(step);
}

std::string newestCheckpoint(const std::string &dir) {
  std::vector<std::string> names;
  std::string error, newest;
  if (!listDirectory(dir, names, error))
    return newest;
  uint64_t best = 0;
  for (const std::string &name : names) {
    uint64_t step;
    if (parseStepName(name, step) && (newest.empty() || step > best) &&
        isDirectory(dir + "/" + name)) {
      best = step;
      newest = dir + "/" + name;
    }
  }
  return newest;
}

bool findCheckpoint(const std::string &path, std::string &checkpoint,
                    std::string &error) {
  std::vector<std::string> names;
  if (!listDirectory(path, names, error))
    return false;
  if (pathExists(path + "/" + kManifestFile)) {
    checkpoint = path;
    return true;
  }
  checkpoint = newestCheckpoint(path);
  if (checkpoint.empty()) {
    error = path + ": no checkpoint there (no step-* directory, no " +
            kManifestFile + ")";
    return false;
  }
  return true;
}

bool readManifest(const std::string &checkpoint, Manifest &manifest,
                  std::string &error) {
  std::string path = checkpoint + "/" + kManifestFile, text;
  return readFile(path, kMaxManifestBytes, text, error) &&
         parseManifest(text, path, manifest, error);
}

bool checkFreshCheckpoints(const std::string &ckpt, const std::string &resume,
                           std::string &error) {
  std::string existing;
  if (!resume.empty() || ckpt.empty() ||
      (existing = newestCheckpoint(ckpt)).empty())
    return true;
  error = "--ckpt " + ckpt + " already holds checkpoints (" + existing +
          "); continue them with --resume " + ckpt + ", or write elsewhere";
  return false;
}

bool loadCheckpoint(const Interface &model, const std::string &checkpoint,
                    const Manifest &manifest, std::vector<void *> &pointers,
                    std::string &error) {
  return readTensors(model, checkpoint, manifest, kParamsFile, Role::Param,
                     pointers, error) &&
         readTensors(model, checkpoint, manifest, kOptimizerFile, Role::State,
                     pointers, error);
}

} // namespace distrt::model
