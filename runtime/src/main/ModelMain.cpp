//===- ModelMain.cpp - main() of every compiled model ---------------------===//
//
// The generic driver linked into each executable dist-compile produces
// (libdistrt_main.a). It reads the model's interface (distrt/model.h), fills
// one host buffer per argument (inputs from .npy files or seeded random
// values, parameters from a safetensors file), calls dist_model_forward, and
// writes or prints the results. The command line is documented in
// runtime/README.md; scripts and tests depend on it. A trainer ("mode": "train"
// in the interface) runs the training loop of TrainMain.cpp instead
// (docs/trainer-abi.md).
//
// A model compiled for CUDA (a "cuda" target) gets device buffers
// (DeviceBuffers.h): the arguments are uploaded once, the outputs downloaded
// after the runs. A model compiled for a mesh of several devices runs as
// one process per device (Job.h): each builds the whole inputs and parameters,
// hands the forward its shards of the split ones (Sharding.h) and null for
// the parameters placed on another pipeline stage, and gathers the split
// outputs back; rank 0 writes or prints them.
//
//===----------------------------------------------------------------------===//

#include "../core/HalfFloat.h"
#include "DeviceBuffers.h"
#include "FileSystem.h"
#include "HostBuffers.h"
#include "Job.h"
#include "ModelInterface.h"
#include "Options.h"
#include "ParameterServer.h"
#include "RandomInputs.h"
#include "Sharding.h"
#include "TrainMain.h"
#include "Weights.h"
#include "distrt/distrt.h"
#include "distrt/model.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <set>
#include <string>
#include <vector>

using namespace distrt::model;

namespace {

using Buffers = HostBuffers;

int error(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

std::string listOfInputs(const Interface &model) {
  std::string names = model.names(Role::Input);
  return names.empty() ? "the model has no inputs"
                       : "the model's inputs are: " + names;
}

bool loadInputs(const Interface &model, const Options &options,
                Buffers &buffers, std::string &message) {
  std::set<const TensorSpec *> given;
  for (const std::string &value : options.inputs) {
    std::string file;
    const TensorSpec *spec = model.resolveAssignment(value, file);
    if (!spec || file.empty()) {
      size_t equals = value.find('=');
      message = equals == std::string::npos || spec
                    ? "--input needs NAME=FILE.npy, got '" + value + "'"
                    : "unknown input '" + value.substr(0, equals) + "'; " +
                          listOfInputs(model);
      return false;
    }
    if (spec->role == Role::Param) {
      message = "'" + spec->name +
                "' is a parameter, not an input (parameters come from "
                "--weights); " +
                listOfInputs(model);
      return false;
    }
    if (!given.insert(spec).second) {
      message = "input '" + spec->name + "' is given twice";
      return false;
    }
    distrt_tensor tensor;
    if (distrt_npy_read(file.c_str(), &tensor) != 0) {
      message = "input '" + spec->name + "': " + distrt_last_error();
      return false;
    }
    buffers.pointers[spec - model.arguments.data()] = tensor.data;
    // .npy has no bfloat16: a bfloat16 input comes as its uint16 bits.
    if (spec->dtype == DISTRT_BF16 && tensor.dtype == DISTRT_U16)
      tensor.dtype = DISTRT_BF16;
    if (!spec->matches(tensor)) {
      message = "input '" + spec->name + "': expected " + spec->typeText() +
                ", got " + typeText(tensor.dtype, tensor.rank, tensor.shape) +
                " from " + file;
      return false;
    }
    if (isMainRank())
      distrt_log(DISTRT_LOG_INFO, "input '%s' from %s", spec->name.c_str(),
                 file.c_str());
  }
  for (size_t i = 0; i < model.arguments.size(); ++i) {
    const TensorSpec &spec = model.arguments[i];
    if (spec.role != Role::Input || given.count(&spec))
      continue;
    void *data = distrt_alloc(kHost, spec.bytes());
    if (!data) {
      message = "input '" + spec.name + "': " + distrt_last_error();
      return false;
    }
    buffers.pointers[i] = data;
    fillRandom(spec, options.seed, data);
    if (isMainRank())
      distrt_log(DISTRT_LOG_INFO, "input '%s': random values, seed %" PRIu64,
                 spec.name.c_str(), options.seed);
  }
  return true;
}

/// Element `i` of a buffer, as text.
std::string formatValue(distrt_dtype dtype, const void *data, int64_t i) {
  char text[64];
  switch (dtype) {
  case DISTRT_F32:
    std::snprintf(text, sizeof(text), "%.7g",
                  static_cast<const float *>(data)[i]);
    break;
  case DISTRT_F64:
    std::snprintf(text, sizeof(text), "%.10g",
                  static_cast<const double *>(data)[i]);
    break;
  case DISTRT_F16:
    std::snprintf(text, sizeof(text), "%.5g",
                  float16ToFloat(static_cast<const uint16_t *>(data)[i]));
    break;
  case DISTRT_BF16:
    std::snprintf(text, sizeof(text), "%.4g",
                  bfloat16ToFloat(static_cast<const uint16_t *>(data)[i]));
    break;
  case DISTRT_I64:
    return std::to_string(static_cast<const int64_t *>(data)[i]);
  case DISTRT_I32:
    return std::to_string(static_cast<const int32_t *>(data)[i]);
  case DISTRT_I16:
    return std::to_string(static_cast<const int16_t *>(data)[i]);
  case DISTRT_I8:
    return std::to_string(static_cast<const int8_t *>(data)[i]);
  case DISTRT_U64:
    return std::to_string(static_cast<const uint64_t *>(data)[i]);
  case DISTRT_U32:
    return std::to_string(static_cast<const uint32_t *>(data)[i]);
  case DISTRT_U16:
    return std::to_string(static_cast<const uint16_t *>(data)[i]);
  case DISTRT_U8:
    return std::to_string(static_cast<const uint8_t *>(data)[i]);
  case DISTRT_BOOL:
    return static_cast<const uint8_t *>(data)[i] ? "true" : "false";
  case DISTRT_NUM_DTYPES:
    return "?";
  }
  return text;
}

/// `name: float32 2x3 = [v0, v1, ..., v7, ...]`
void printOutput(const TensorSpec &spec, const void *data) {
  constexpr int64_t kShown = 8;
  int64_t n =
      static_cast<int64_t>(spec.bytes() / distrt_dtype_size(spec.dtype));
  std::string values;
  for (int64_t i = 0; i < n && i < kShown; ++i)
    values += (i ? ", " : "") + formatValue(spec.dtype, data, i);
  if (n > kShown)
    values += ", ...";
  std::printf("%s: %s = [%s]\n", spec.name.c_str(), spec.typeText().c_str(),
              values.c_str());
}

/// Writes the whole outputs `outputs` (one per output) to `dir`.
bool writeOutputs(const Interface &model, const std::string &dir,
                  const std::vector<void *> &outputs, std::string &message) {
  if (!makeDirectories(dir, message))
    return false;
  std::set<std::string> files;
  for (size_t i = 0; i < model.outputs.size(); ++i) {
    const TensorSpec &spec = model.outputs[i];
    std::string file = outputFileName(spec.name);
    if (!files.insert(file).second) {
      message = "output '" + spec.name + "': " + file +
                " is already written by another output";
      return false;
    }
    distrt_tensor tensor;
    std::memset(&tensor, 0, sizeof(tensor));
    // .npy has no bfloat16: a bfloat16 output is written as its uint16 bits.
    tensor.dtype = spec.dtype == DISTRT_BF16 ? DISTRT_U16 : spec.dtype;
    tensor.rank = spec.rank;
    std::copy(spec.shape, spec.shape + spec.rank, tensor.shape);
    tensor.device = kHost;
    tensor.data = outputs[i];
    std::string path = dir + "/" + file;
    if (distrt_npy_write(path.c_str(), &tensor) != 0) {
      message = "output '" + spec.name + "': " + distrt_last_error();
      return false;
    }
  }
  return true;
}

void printHelp(const char *argv0, const Interface &model) {
  std::fputs(usageText(argv0).c_str(), stdout);
  std::printf("\nThe model's tensors (arguments in order, then results):\n");
  for (const auto *list : {&model.arguments, &model.outputs})
    for (const TensorSpec &spec : *list) {
      std::string split =
          spec.hasShards() ? " (split: " + spec.shardText() + ")" : "";
      std::string place =
          spec.placeAxis >= 0 ? " (" + spec.placeText() + ")" : "";
      std::printf("  %-6s %-24s %s%s%s\n", roleName(spec.role),
                  spec.typeText().c_str(), spec.name.c_str(), split.c_str(),
                  place.c_str());
    }
  if (model.cuda)
    std::printf("\nCompiled for a CUDA GPU (%s): its buffers live on device "
                "0.\n",
                model.arch.c_str());
  if (!model.mesh.empty())
    std::printf("\nMesh: %s (one process per device: mpirun -np %lld)\n",
                model.meshText().c_str(),
                static_cast<long long>(model.devices()));
}

/// The output buffers: this rank's shards of the split ones.
bool allocateOutputs(const Interface &model, Buffers &buffers,
                     std::string &message) {
  for (size_t i = 0; i < model.outputs.size(); ++i) {
    size_t bytes = shardBytes(model.outputs[i]);
    void *data = distrt_alloc(kHost, bytes);
    if (!data) {
      message =
          "output '" + model.outputs[i].name + "': " + distrt_last_error();
      return false;
    }
    std::memset(data, 0, bytes);
    buffers.pointers[model.arguments.size() + i] = data;
  }
  return true;
}

/// The whole outputs, each split one gathered from every rank's shard into
/// a buffer of `gathered` (a collective); on failure returns false and sets
/// `message`.
bool wholeOutputs(const Interface &model, const Buffers &buffers,
                  Buffers &gathered, std::vector<void *> &outputs,
                  std::string &message) {
  for (size_t i = 0; i < model.outputs.size(); ++i) {
    const TensorSpec &spec = model.outputs[i];
    outputs.push_back(buffers.pointers[model.arguments.size() + i]);
    if (!isSplit(spec))
      continue;
    outputs[i] = gathered.pointers[i] = distrt_alloc(kHost, spec.bytes());
    if (!outputs[i]) {
      message = "output '" + spec.name + "': " + distrt_last_error();
      return false;
    }
    gatherShards(spec, buffers.pointers[model.arguments.size() + i],
                 outputs[i]);
  }
  return true;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace

int main(int argc, char **argv) {
  // A forward allocates and frees the same large buffers every run. glibc
  // serves each one over 32 MB with a fresh mmap, and page-faults it in
  // again on every run (11% of GPT-2 small's forward, bench/forward-cpu.sh);
  // keep freed memory in the heap for reuse instead.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  Interface model;
  std::string message;
  if (!parseInterface(dist_model_interface, model, message))
    return error("internal: the model's interface description "
                 "(dist_model_interface) is malformed: " +
                 message);
  if (isParameterServerProgram())
    return parameterServerMain(argc, argv, model);
  if (model.train)
    return trainMain(argc, argv, model);
  Options options;
  if (!parseOptions(argc, argv, options, message))
    return error(message + " (see --help)");
  if (options.help) {
    printHelp(argv[0], model);
    return 0;
  }

  if (int status = openModelDevice(model, options.allowTf32))
    return status;
  if (!joinMesh(model, message))
    return error(message);
  Buffers buffers(model.arguments.size() + model.outputs.size());
  bool ready = loadInputs(model, options, buffers, message) &&
               loadParams(model, weightsPath(options.weights, argv[0]),
                          buffers.pointers, message) &&
               shardArguments(model, buffers.pointers, nullptr, message) &&
               allocateOutputs(model, buffers, message);
  if (!everyRank(ready, message))
    return leaveMesh(error(message));

  // A CUDA model's arguments go up once; its outputs come down at the end.
  DeviceBuffers device(model);
  if (!device.attach(buffers.pointers, message))
    return leaveMesh(error(message));
  // The forward's time includes waiting for the device.
  auto forward = [&](int64_t run) {
    distrt_set_step(run);
    dist_model_forward(device.pointers());
    if (!device.synchronize(message)) {
      error(message);
      distrt_comm_abort(1);
    }
  };
  uint64_t start = distrt_now_ns();
  forward(1);
  if (isMainRank())
    distrt_log(DISTRT_LOG_INFO, "forward: %.3f ms",
               static_cast<double>(distrt_now_ns() - start) * 1e-6);
  std::vector<double> times;
  for (int64_t run = 0; run < options.benchmarkRuns; ++run) {
    start = distrt_now_ns();
    forward(run + 2);
    times.push_back(static_cast<double>(distrt_now_ns() - start) * 1e-6);
  }
  if (device.onDevice()) {
    if (isMainRank())
      distrt_log(DISTRT_LOG_DEBUG, "%s", device.memoryText().c_str());
    if (!device.download({Role::Output}, message))
      return leaveMesh(error(message));
  }

  Buffers gathered(model.outputs.size());
  std::vector<void *> outputs;
  if (!wholeOutputs(model, buffers, gathered, outputs, message)) {
    error(message);
    distrt_comm_abort(1); // no other rank may wait for this one
  }
  bool written = true;
  if (isMainRank() && !options.outputDir.empty()) {
    written = writeOutputs(model, options.outputDir, outputs, message);
  } else if (isMainRank()) {
    for (size_t i = 0; i < model.outputs.size(); ++i)
      printOutput(model.outputs[i], outputs[i]);
  }
  if (!everyRank(written, message))
    return leaveMesh(error(message));
  if (!times.empty() && isMainRank())
    std::printf("forward: %.4f ms (median of %zu runs)\n", median(times),
                times.size());
  return leaveMesh(0);
}
