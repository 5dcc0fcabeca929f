//===- DeviceBuffers.cpp - The buffers on the model's device --------------===//

#include "DeviceBuffers.h"
#include "Sharding.h"

#include <cstdio>

namespace distrt::model {

int openModelDevice(const Interface &model, bool allowTf32) {
  if (!model.cuda)
    return 0;
  // One GPU per process (the local rank's): a mesh's collectives on its
  // buffers go over NCCL (distrt_comm_init, after this).
  std::string why;
  if (distrt_cuda_init() != 0)
    why = distrt_last_error();
  if (why.empty()) {
    distrt_cuda_set_allow_tf32(allowTf32 ? 1 : 0);
    return 0;
  }
  std::fflush(stdout);
  std::fprintf(stderr,
               "error: this program was compiled for a CUDA GPU (%s) and "
               "cannot run here: %s\n",
               model.arch.c_str(), why.c_str());
  return kNoDeviceStatus;
}

DeviceBuffers::DeviceBuffers(const Interface &model)
    : model(model), device{model.cuda ? DISTRT_CUDA : DISTRT_HOST, 0} {}

DeviceBuffers::~DeviceBuffers() {
  for (void *pointer : owned)
    distrt_free(device, pointer);
}

size_t DeviceBuffers::bytes(size_t index) const {
  size_t arguments = model.arguments.size();
  return shardBytes(index < arguments ? model.arguments[index]
                                      : model.outputs[index - arguments]);
}

bool DeviceBuffers::attach(const std::vector<void *> &hostBuffers,
                           std::string &error) {
  host = hostBuffers;
  if (!onDevice()) {
    buffers = host;
    return true;
  }
  buffers.assign(host.size(), nullptr);
  for (size_t i = 0; i < host.size(); ++i) {
    if (!host[i])
      continue; // placed on another pipeline stage: no mirror either
    if (!(buffers[i] = allocate(bytes(i), error)) || !upload(i, error))
      return false;
  }
  return true;
}

bool DeviceBuffers::transfer(size_t index, bool up, std::string &error) {
  if (!onDevice() || !host[index])
    return true;
  constexpr distrt_device kHost = {DISTRT_HOST, 0};
  size_t arguments = model.arguments.size();
  const TensorSpec &spec = index < arguments ? model.arguments[index]
                                             : model.outputs[index - arguments];
  int status =
      up ? distrt_copy(device, buffers[index], kHost, host[index], bytes(index))
         : distrt_copy(kHost, host[index], device, buffers[index],
                       bytes(index));
  if (status != 0) {
    error = std::string(up ? "uploading " : "downloading ") +
            roleName(spec.role) + " '" + spec.name +
            "': " + distrt_last_error();
    return false;
  }
  return true;
}

bool DeviceBuffers::upload(size_t index, std::string &error) {
  return transfer(index, true, error);
}

bool DeviceBuffers::download(size_t index, std::string &error) {
  return transfer(index, false, error);
}

bool DeviceBuffers::upload(std::initializer_list<Role> roles,
                           std::string &error) {
  if (!onDevice())
    return true;
  for (size_t i = 0; i < model.arguments.size(); ++i)
    for (Role role : roles)
      if (model.arguments[i].role == role && !upload(i, error))
        return false;
  return true;
}

bool DeviceBuffers::download(std::initializer_list<Role> roles,
                             std::string &error) {
  if (!onDevice())
    return true;
  size_t arguments = model.arguments.size();
  for (Role role : roles) {
    if (role == Role::Output) {
      for (size_t i = 0; i < model.outputs.size(); ++i)
        if (!download(arguments + i, error))
          return false;
      continue;
    }
    for (size_t i = 0; i < arguments; ++i)
      if (model.arguments[i].role == role && !download(i, error))
        return false;
  }
  return true;
}

bool DeviceBuffers::synchronize(std::string &error) {
  if (distrt_device_synchronize(device) == 0)
    return true;
  error = distrt_last_error();
  return false;
}

void *DeviceBuffers::allocate(size_t size, std::string &error) {
  void *pointer = distrt_alloc(device, size);
  if (!pointer) {
    error = distrt_last_error();
    return nullptr;
  }
  owned.push_back(pointer);
  return pointer;
}

bool DeviceBuffers::copy(void *dst, const void *src, size_t size,
                         std::string &error) {
  if (distrt_copy(device, dst, device, src, size) == 0)
    return true;
  error = distrt_last_error();
  return false;
}

double DeviceBuffers::peakMiB() const {
  distrt_cuda_memory stats;
  if (!onDevice() || distrt_cuda_memory_stats(&stats) != 0)
    return -1;
  return static_cast<double>(stats.peak_in_use) / (1 << 20);
}

std::string DeviceBuffers::memoryText() const {
  distrt_cuda_memory stats;
  if (!onDevice() || distrt_cuda_memory_stats(&stats) != 0)
    return "";
  char text[256];
  std::snprintf(text, sizeof(text),
                "device memory: in use %.1f MiB, peak %.1f MiB, reserved "
                "%.1f MiB, %llu driver allocations",
                static_cast<double>(stats.in_use) / (1 << 20),
                static_cast<double>(stats.peak_in_use) / (1 << 20),
                static_cast<double>(stats.reserved) / (1 << 20),
                static_cast<unsigned long long>(stats.driver_allocs));
  return text;
}

} // namespace distrt::model
