//===- DataSource.cpp - Where a trainer's batches come from ---------------===//

#include "DataSource.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Hyperparameters.h"
#include "Job.h"
#include "RandomInputs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace distrt::model {

namespace {

using Int = __int128; // holds every value of every integer dtype

Int loadInteger(distrt_dtype dtype, const void *data, int64_t i) {
  switch (dtype) {
  case DISTRT_I64:
    return static_cast<const int64_t *>(data)[i];
  case DISTRT_I32:
    return static_cast<const int32_t *>(data)[i];
  case DISTRT_I16:
    return static_cast<const int16_t *>(data)[i];
  case DISTRT_I8:
    return static_cast<const int8_t *>(data)[i];
  case DISTRT_U64:
    return static_cast<const uint64_t *>(data)[i];
  case DISTRT_U32:
    return static_cast<const uint32_t *>(data)[i];
  case DISTRT_U16:
    return static_cast<const uint16_t *>(data)[i];
  case DISTRT_U8:
    return static_cast<const uint8_t *>(data)[i];
  default:
    return 0;
  }
}

/// Stores `value`, which the caller checked fits `dtype`.
void storeInteger(distrt_dtype dtype, void *data, int64_t i, int64_t value) {
  switch (dtype) {
  case DISTRT_I64:
    static_cast<int64_t *>(data)[i] = value;
    break;
  case DISTRT_I32:
    static_cast<int32_t *>(data)[i] = static_cast<int32_t>(value);
    break;
  case DISTRT_I16:
    static_cast<int16_t *>(data)[i] = static_cast<int16_t>(value);
    break;
  case DISTRT_I8:
    static_cast<int8_t *>(data)[i] = static_cast<int8_t>(value);
    break;
  case DISTRT_U64:
    static_cast<uint64_t *>(data)[i] = static_cast<uint64_t>(value);
    break;
  case DISTRT_U32:
    static_cast<uint32_t *>(data)[i] = static_cast<uint32_t>(value);
    break;
  case DISTRT_U16:
    static_cast<uint16_t *>(data)[i] = static_cast<uint16_t>(value);
    break;
  case DISTRT_U8:
    static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(value);
    break;
  default:
    break;
  }
}

std::string intText(Int value) {
  if (value >= INT64_MIN && value <= INT64_MAX)
    return std::to_string(static_cast<int64_t>(value));
  return std::to_string(static_cast<uint64_t>(value));
}

/// The index of the first of `n` values of a ranged integer input outside
/// [0, range) (and not its ignored value); -1 if all are in range (or the
/// input has no range).
int64_t firstOutOfRange(const TensorSpec &spec, const void *data, int64_t n,
                        Int &value) {
  if (!spec.range)
    return -1;
  for (int64_t i = 0; i < n; ++i) {
    value = loadInteger(spec.dtype, data, i);
    if (!spec.accepts(value))
      return i;
  }
  return -1;
}

bool sameShape(const TensorSpec &a, const TensorSpec &b) {
  return a.rank == b.rank && std::equal(a.shape, a.shape + a.rank, b.shape);
}

std::string inputList(const Interface &model) {
  std::string text;
  for (const TensorSpec *spec : model.withRole(Role::Input))
    text +=
        (text.empty() ? "" : ", ") + spec->name + " (" + spec->typeText() + ")";
  return text.empty() ? "none" : text;
}

/// The two inputs of a model a token file can feed: exactly two integer
/// inputs of one shape B x T (ids, then targets).
bool tokenInputs(const Interface &model, const TensorSpec *&ids,
                 const TensorSpec *&targets) {
  std::vector<const TensorSpec *> inputs = model.withRole(Role::Input);
  if (inputs.size() != 2 || !inputs[0]->isInteger() ||
      !inputs[1]->isInteger() || inputs[0]->rank != 2 ||
      !sameShape(*inputs[0], *inputs[1]))
    return false;
  ids = inputs[0];
  targets = inputs[1];
  return true;
}

/// Dimension 0 of every input (they must agree): the batch a sample file
/// is sliced by.
bool compiledBatch(const Interface &model, int64_t &batch, std::string &error) {
  batch = -1;
  for (const TensorSpec *spec : model.withRole(Role::Input)) {
    if (spec->rank == 0 || (batch >= 0 && spec->shape[0] != batch)) {
      error = "the model's inputs have no common batch dimension (the first "
              "of every input): " +
              inputList(model);
      return false;
    }
    batch = spec->shape[0];
  }
  return true;
}

bool checkBatchOption(int64_t given, int64_t compiled, std::string &error) {
  if (!given || given == compiled)
    return true;
  error = "--batch " + std::to_string(given) +
          " does not match the model's compiled batch " +
          std::to_string(compiled) + " (dimension 0 of its inputs)";
  return false;
}

/// The same .npy batch at every step. The batch is copied into the
/// argument buffers before each call, so a model that (wrongly) writes its
/// inputs cannot make a resumed run diverge from an uninterrupted one.
class InputsSource : public DataSource {
public:
  explicit InputsSource(const Interface &model) : model(model) {}
  ~InputsSource() override {
    for (void *data : batches)
      distrt_free(kHost, data);
  }

  bool open(const DataState &state, std::string &error) {
    current = state;
    current.files.clear();
    batches.assign(model.arguments.size(), nullptr);
    for (const auto &[name, file] : state.files) {
      // The files of a checkpoint's manifest are checked here too.
      const TensorSpec *spec = model.findArgument(name);
      if (!spec || spec->role != Role::Input) {
        error = "'" + name +
                "' of the checkpoint's --input files is not an "
                "input of the model; its inputs are: " +
                model.names(Role::Input);
        return false;
      }
      size_t index = spec - model.arguments.data();
      if (batches[index]) {
        error = "input '" + name + "' is given twice";
        return false;
      }
      distrt_tensor tensor;
      if (distrt_npy_read(file.c_str(), &tensor) != 0) {
        error = "input '" + name + "': " + distrt_last_error();
        return false;
      }
      batches[index] = tensor.data;
      // .npy has no bfloat16: a bfloat16 input comes as its uint16 bits.
      if (spec->dtype == DISTRT_BF16 && tensor.dtype == DISTRT_U16)
        tensor.dtype = DISTRT_BF16;
      if (!spec->matches(tensor)) {
        error = "input '" + name + "': expected " + spec->typeText() +
                ", got " + typeText(tensor.dtype, tensor.rank, tensor.shape) +
                " from " + file;
        return false;
      }
      Int value;
      int64_t at = firstOutOfRange(*spec, tensor.data, spec->elements(), value);
      if (at >= 0) {
        error = "input '" + name + "': value " + intText(value) + " at index " +
                std::to_string(at) + " of " + file + " is outside its range " +
                spec->rangeText();
        return false;
      }
      current.files.emplace_back(name, absolutePath(file));
      if (isMainRank())
        distrt_log(DISTRT_LOG_INFO, "input '%s' from %s", name.c_str(),
                   file.c_str());
    }
    for (const TensorSpec *spec : model.withRole(Role::Input))
      if (!batches[spec - model.arguments.data()]) {
        error = "--input: no file for input '" + spec->name +
                "' (--input gives the same batch at every step and needs "
                "every input: " +
                model.names(Role::Input) + ")";
        return false;
      }
    return true;
  }

  void next(int64_t, std::vector<void *> &pointers) override {
    for (size_t i = 0; i < batches.size(); ++i)
      if (batches[i])
        std::memcpy(pointers[i], batches[i], model.arguments[i].bytes());
  }

private:
  const Interface &model;
  std::vector<void *> batches; // per argument; null for non-inputs
};

/// Windows of a token file (mapped, not read into memory): row r of the ids
/// is tokens[p + r*T, p + r*T + T), the targets the same shifted by one.
class TokenSource : public DataSource {
public:
  TokenSource(const Interface &model, const TensorSpec &ids,
              const TensorSpec &targets)
      : model(model), ids(ids), targets(targets) {}
  ~TokenSource() override {
    if (mapped)
      ::munmap(mapped, mappedBytes);
  }

  bool open(const DataState &state, std::string &error) {
    current = state;
    const std::string &path = state.file;
    size_t tokenBytes = distrt_dtype_size(state.tokenDtype);
    uint64_t bytes;
    if (!regularFileSize(path, bytes, error))
      return false;
    if (bytes % tokenBytes) {
      error = path + ": " + std::to_string(bytes) +
              " bytes is not a multiple of " + std::to_string(tokenBytes) +
              ", the size of a " + distrt_dtype_name(state.tokenDtype) +
              " token (--data-dtype)";
      return false;
    }
    current.count = bytes / tokenBytes;
    uint64_t needed = static_cast<uint64_t>(ids.elements()) + 1;
    if (current.count < needed) {
      error = path + ": " + std::to_string(current.count) +
              " tokens is too short for one batch of " +
              std::to_string(ids.shape[0]) + "x" +
              std::to_string(ids.shape[1]) + " (needs " +
              std::to_string(needed) +
              ": the ids and the targets one token later)";
      return false;
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = path + ": cannot open: " + std::strerror(errno);
      return false;
    }
    void *map = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    int mapErrno = errno;
    ::close(fd);
    if (map == MAP_FAILED) {
      error = path + ": cannot map: " + std::strerror(mapErrno);
      return false;
    }
    mapped = map;
    mappedBytes = bytes;
    current.file = absolutePath(path);
    return checkTokens(path, error);
  }

  void next(int64_t, std::vector<void *> &pointers) override {
    void *idsData = pointers[&ids - model.arguments.data()];
    void *targetsData = pointers[&targets - model.arguments.data()];
    int64_t n = ids.elements();
    for (int64_t i = 0; i < n; ++i) {
      storeInteger(ids.dtype, idsData, i, token(current.position + i));
      storeInteger(targets.dtype, targetsData, i,
                   token(current.position + i + 1));
    }
    advance();
  }

  /// Where the next batch starts: p advances by B*T and wraps to 0 when
  /// fewer than B*T + 1 tokens remain. Kept normalized, so a checkpoint
  /// records the position the next step reads.
  void advance() {
    uint64_t n = static_cast<uint64_t>(ids.elements());
    current.position += n;
    if (current.count - current.position < n + 1)
      current.position = 0;
  }

private:
  const Interface &model;
  const TensorSpec &ids, &targets;
  void *mapped = nullptr;
  size_t mappedBytes = 0;

  int64_t token(uint64_t i) const {
    if (current.tokenDtype == DISTRT_U16) {
      uint16_t value;
      std::memcpy(&value, static_cast<const char *>(mapped) + 2 * i, 2);
      return value;
    }
    int32_t value;
    std::memcpy(&value, static_cast<const char *>(mapped) + 4 * i, 4);
    return value;
  }

  /// Every token must fit both inputs' dtypes and lie in their ranges: the
  /// whole file is checked now, so a bad token cannot stop a long run late.
  bool checkTokens(const std::string &path, std::string &error) const {
    for (const TensorSpec *spec : {&ids, &targets}) {
      int64_t lowest;
      uint64_t highest;
      integerLimits(spec->dtype, lowest, highest);
      for (uint64_t i = 0; i < current.count; ++i) {
        int64_t value = token(i);
        if (value >= lowest && static_cast<Int>(value) <= highest &&
            spec->accepts(value))
          continue;
        error = path + ": token " + std::to_string(value) + " at index " +
                std::to_string(i) + " is outside " +
                (spec->range ? spec->rangeText() + ", the range of"
                             : std::string("the dtype of")) +
                " input '" + spec->name + "' (" + spec->typeText() +
                "); is --data-dtype right? the file is read as " +
                distrt_dtype_name(current.tokenDtype);
        return false;
      }
    }
    return true;
  }
};

/// Slices of a sample file, read into memory once: samples [p, p + B) per
/// step, p advancing by B and wrapping to 0 when fewer than B remain.
class SampleSource : public DataSource {
public:
  explicit SampleSource(const Interface &model) : model(model) {}
  ~SampleSource() override {
    for (void *data : samples)
      distrt_free(kHost, data);
  }

  bool open(const DataState &state, int64_t batch, std::string &error) {
    current = state;
    this->batch = static_cast<uint64_t>(batch);
    const std::string &path = state.file;
    std::unique_ptr<distrt_safetensors, SafetensorsCloser> file(
        distrt_safetensors_open(path.c_str()));
    if (!file) {
      error = distrt_last_error();
      return false;
    }
    samples.assign(model.arguments.size(), nullptr);
    const TensorSpec *first = nullptr;
    for (const TensorSpec *spec : model.withRole(Role::Input)) {
      distrt_tensor info;
      if (distrt_safetensors_info(file.get(), spec->name.c_str(), &info)) {
        error = path + ": no tensor '" + spec->name +
                "' (a sample file holds one tensor per model input: " +
                model.names(Role::Input) + ")";
        return false;
      }
      if (!matchesSamples(*spec, info, path, error))
        return false;
      uint64_t n = static_cast<uint64_t>(info.shape[0]);
      if (first && n != current.count) {
        error = path + ": tensor '" + spec->name + "' has " +
                std::to_string(n) + " samples, tensor '" + first->name + "' " +
                std::to_string(current.count) +
                " (all must have the same number)";
        return false;
      }
      first = spec;
      current.count = n;
      if (!read(file.get(), *spec, path, error))
        return false;
    }
    if (current.count < this->batch) {
      error = path + ": " + std::to_string(current.count) +
              " samples is fewer than one batch of " + std::to_string(batch);
      return false;
    }
    current.file = absolutePath(path);
    return true;
  }

  void next(int64_t, std::vector<void *> &pointers) override {
    for (size_t i = 0; i < samples.size(); ++i) {
      if (!samples[i])
        continue;
      size_t bytes = model.arguments[i].bytes(); // one batch
      std::memcpy(pointers[i],
                  static_cast<const char *>(samples[i]) +
                      current.position * (bytes / batch),
                  bytes);
    }
    current.position += batch;
    if (current.count - current.position < batch)
      current.position = 0;
  }

private:
  const Interface &model;
  uint64_t batch = 0;
  std::vector<void *> samples; // per argument; null for non-inputs

  /// The tensor holds N samples of the input: its dtype, and a shape
  /// N x (the input's dimensions after the first).
  static bool matchesSamples(const TensorSpec &spec, const distrt_tensor &info,
                             const std::string &path, std::string &error) {
    bool ok = info.dtype == spec.dtype && info.rank == spec.rank;
    for (int32_t d = 1; ok && d < spec.rank; ++d)
      ok = info.shape[d] == spec.shape[d];
    if (ok)
      return true;
    std::string trailing;
    for (int32_t d = 1; d < spec.rank; ++d)
      trailing += "x" + std::to_string(spec.shape[d]);
    error = path + ": tensor '" + spec.name + "': expected " +
            distrt_dtype_name(spec.dtype) + " N" + trailing +
            " (samples of the input's " + spec.typeText() + "), got " +
            typeText(info.dtype, info.rank, info.shape);
    return false;
  }

  bool read(const distrt_safetensors *file, const TensorSpec &spec,
            const std::string &path, std::string &error) {
    size_t sampleBytes = spec.bytes() / static_cast<size_t>(spec.shape[0]);
    size_t bytes = sampleBytes * current.count;
    void *data = distrt_alloc(kHost, bytes);
    samples[&spec - model.arguments.data()] = data;
    if (!data ||
        distrt_safetensors_read(file, spec.name.c_str(), data, bytes) != 0) {
      error = distrt_last_error();
      return false;
    }
    Int value;
    int64_t perSample = spec.elements() / spec.shape[0];
    int64_t at = firstOutOfRange(
        spec, data, perSample * static_cast<int64_t>(current.count), value);
    if (at >= 0) {
      error = path + ": tensor '" + spec.name + "': value " + intText(value) +
              " of sample " + std::to_string(at / perSample) + " is outside " +
              spec.rangeText() + ", the range of input '" + spec.name + "'";
      return false;
    }
    return true;
  }
};

/// Fresh inputs every step, a pure function of (seed, step, input name).
class SyntheticSource : public DataSource {
public:
  SyntheticSource(const Interface &model, uint64_t seed) : model(model) {
    current.kind = DataState::Synthetic;
    current.seed = seed;
  }

  void next(int64_t step, std::vector<void *> &pointers) override {
    for (size_t i = 0; i < model.arguments.size(); ++i)
      if (model.arguments[i].role == Role::Input)
        fillSynthetic(model.arguments[i], current.seed, step, pointers[i]);
  }

private:
  const Interface &model;
};

/// A model without inputs.
class NoSource : public DataSource {
public:
  void next(int64_t, std::vector<void *> &) override {}
};

/// The --input values, resolved to (input name, file) for every input.
bool resolveInputs(const Interface &model,
                   const std::vector<std::string> &values, DataState &state,
                   std::string &error) {
  for (const std::string &value : values) {
    std::string file;
    const TensorSpec *spec = model.resolveAssignment(value, file);
    if (!spec || file.empty()) {
      size_t equals = value.find('=');
      error =
          equals == std::string::npos || spec
              ? "--input needs NAME=FILE.npy, got '" + value + "'"
              : "unknown input '" + value.substr(0, equals) +
                    "'; the model's inputs are: " + model.names(Role::Input);
      return false;
    }
    if (spec->role != Role::Input) {
      error = "'" + spec->name + "' is " +
              (spec->role == Role::Param
                   ? "a parameter, not an input (parameters come from "
                     "--weights or a checkpoint)"
               : spec->role == Role::State ? "optimizer state, not an input"
               : spec->role == Role::Seed
                   ? "the seed of the model's random numbers, not an input "
                     "(the driver sets it from --seed)"
               : spec->role == Role::Hparam
                   ? "a hyperparameter, not an input (the driver sets it; "
                     "give it with " +
                         hparamFlag(spec->name) + " VALUE)"
                   : "the step counter, not an input (the driver sets "
                     "it)") +
              "; the model's inputs are: " + model.names(Role::Input);
      return false;
    }
    state.files.emplace_back(spec->name, file);
  }
  return true;
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The source the options give; on a resume, the token dtype defaults to
/// the checkpoint's.
bool stateFromOptions(const Interface &model, const TrainOptions &options,
                      const DataState *resumed, DataState &state,
                      std::string &error) {
  if (options.synthetic) {
    state.kind = DataState::Synthetic;
    state.seed = options.syntheticSeed;
    return true;
  }
  if (!options.inputs.empty()) {
    state.kind = DataState::Inputs;
    return resolveInputs(model, options.inputs, state, error);
  }
  state.file = options.data;
  if (endsWith(options.data, ".safetensors")) {
    state.kind = DataState::Samples;
    return true;
  }
  state.kind = DataState::Tokens;
  if (!options.dataDtype.empty())
    state.tokenDtype = options.dataDtype == "int32" ? DISTRT_I32 : DISTRT_U16;
  else if (resumed && resumed->kind == DataState::Tokens)
    state.tokenDtype = resumed->tokenDtype;
  return true;
}

std::string describe(const DataState &state) {
  switch (state.kind) {
  case DataState::None:
    return "no data";
  case DataState::Inputs:
    return "--input files";
  case DataState::Tokens: // the count is known once the file is open
    return "--data " + state.file + " (" +
           (state.count ? std::to_string(state.count) + " " : "") +
           distrt_dtype_name(state.tokenDtype) + " tokens)";
  case DataState::Samples:
    return "--data " + state.file +
           (state.count ? " (" + std::to_string(state.count) + " samples)"
                        : "");
  case DataState::Synthetic:
    return "--synthetic " + std::to_string(state.seed);
  }
  return "?";
}

/// A source given on a resume must be the checkpoint's: the same kind, seed
/// and token dtype, and (once opened) the same number of tokens or samples.
bool sameSource(const DataState &given, const DataState &resumed, bool opened,
                std::string &error) {
  bool same =
      given.kind == resumed.kind &&
      (given.kind != DataState::Synthetic || given.seed == resumed.seed) &&
      (given.kind != DataState::Tokens ||
       given.tokenDtype == resumed.tokenDtype) &&
      (!opened || given.count == resumed.count);
  if (!same)
    error = "the checkpoint was trained on " + describe(resumed) + ", not on " +
            describe(given) +
            "; resume with the same data, or leave the data options out";
  return same;
}

/// A position read from a checkpoint must start a whole batch in the data.
bool checkPosition(const DataState &state, uint64_t perBatch,
                   std::string &error) {
  uint64_t needed = state.kind == DataState::Tokens ? perBatch + 1 : perBatch;
  if (state.position <= state.count && state.count - state.position >= needed)
    return true;
  error = "the checkpoint's data position " + std::to_string(state.position) +
          " leaves no whole batch in " + state.file;
  return false;
}

} // namespace

const char *dataKindName(DataState::Kind kind) {
  switch (kind) {
  case DataState::None:
    return "none";
  case DataState::Inputs:
    return "inputs";
  case DataState::Tokens:
    return "tokens";
  case DataState::Samples:
    return "samples";
  case DataState::Synthetic:
    return "synthetic";
  }
  return "?";
}

bool parseDataKind(const std::string &text, DataState::Kind &kind) {
  for (DataState::Kind k :
       {DataState::None, DataState::Inputs, DataState::Tokens,
        DataState::Samples, DataState::Synthetic})
    if (text == dataKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

bool openDataSource(const Interface &model, const TrainOptions &options,
                    const DataState *resumed, std::unique_ptr<DataSource> &out,
                    std::string &error) {
  bool hasInputs = !model.withRole(Role::Input).empty();
  DataState state;
  if (options.hasData()) {
    if (!hasInputs) {
      error = "the model has no inputs; leave out the data options";
      return false;
    }
    if (!stateFromOptions(model, options, resumed, state, error) ||
        (resumed && !sameSource(state, *resumed, false, error)))
      return false;
    if (resumed)
      state.position = resumed->position;
  } else if (resumed) {
    state = *resumed;
  } else if (hasInputs) {
    error = "no data: give --input NAME=FILE.npy for every input, --data "
            "FILE or --synthetic SEED";
    return false;
  }
  if ((state.kind == DataState::None) == hasInputs) {
    error = "the checkpoint's data (" + describe(state) +
            ") does not fit the model's inputs: " + inputList(model);
    return false;
  }

  switch (state.kind) {
  case DataState::None:
    out = std::make_unique<NoSource>();
    return true;
  case DataState::Synthetic:
    out = std::make_unique<SyntheticSource>(model, state.seed);
    return true;
  case DataState::Inputs: {
    auto source = std::make_unique<InputsSource>(model);
    if (!source->open(state, error))
      return false;
    out = std::move(source);
    return true;
  }
  case DataState::Tokens: {
    const TensorSpec *ids, *targets;
    if (!tokenInputs(model, ids, targets)) {
      error = "--data " + state.file +
              " is a token file: it needs a model with two integer inputs "
              "of one shape B x T (ids, then targets); the model's inputs "
              "are: " +
              inputList(model);
      return false;
    }
    auto source = std::make_unique<TokenSource>(model, *ids, *targets);
    if (!checkBatchOption(options.batch, ids->shape[0], error) ||
        !source->open(state, error) ||
        (resumed && (!sameSource(source->state(), *resumed, true, error) ||
                     !checkPosition(source->state(), ids->elements(), error))))
      return false;
    out = std::move(source);
    return true;
  }
  case DataState::Samples: {
    int64_t batch;
    auto source = std::make_unique<SampleSource>(model);
    if (!compiledBatch(model, batch, error) ||
        !checkBatchOption(options.batch, batch, error) ||
        !source->open(state, batch, error) ||
        (resumed && (!sameSource(source->state(), *resumed, true, error) ||
                     !checkPosition(source->state(), batch, error))))
      return false;
    out = std::move(source);
    return true;
  }
  }
  return false;
}

const char *throughputUnit(const Interface &model, int64_t &perStep) {
  std::vector<const TensorSpec *> inputs = model.withRole(Role::Input);
  if (inputs.size() == 2 && inputs[0]->isInteger() && inputs[1]->isInteger() &&
      inputs[0]->rank >= 1 && sameShape(*inputs[0], *inputs[1])) {
    perStep = inputs[0]->elements();
    return "tokens";
  }
  perStep = !inputs.empty() && inputs[0]->rank >= 1 ? inputs[0]->shape[0] : 1;
  return "samples";
}

} // namespace distrt::model
