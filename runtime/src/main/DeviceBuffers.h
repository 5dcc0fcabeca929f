//===- DeviceBuffers.h - The buffers on the model's device ------*- C++ -*-===//
//
// dist_model_forward takes its buffers where the model was compiled to run:
// host memory for a CPU model, device memory for a "cuda" target (model.h).
// The driver reads and writes host buffers (files, data sources,
// checkpoints); DeviceBuffers stands between the two. For a host model the
// device buffers ARE the host buffers and every transfer is a no-op; for a
// CUDA model each host buffer has a device mirror, filled once at the start
// and then only when the driver says so (a step's inputs up, its outputs
// down; parameters down only to save them). Other devices (several GPUs,
// NCCL) slot in here.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_DEVICEBUFFERS_H
#define DISTRT_MAIN_DEVICEBUFFERS_H

#include "ModelInterface.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace distrt::model {

/// Exit status of a program compiled for a device this machine lacks.
constexpr int kNoDeviceStatus = 2;

/// For a model compiled for CUDA: opens the GPU (distrt_cuda_init) and
/// checks that the model runs on it (one device: no mesh of several),
/// setting distrt_cuda_set_allow_tf32(allowTf32). On failure prints `error:
/// this program was compiled for a CUDA GPU (<arch>) and cannot run here:
/// <why>` and returns kNoDeviceStatus; otherwise (and for a host model)
/// returns 0.
int openModelDevice(const Interface &model, bool allowTf32);

class DeviceBuffers {
public:
  /// One buffer per argument of `model`, then one per output.
  explicit DeviceBuffers(const Interface &model);
  ~DeviceBuffers();
  DeviceBuffers(const DeviceBuffers &) = delete;
  DeviceBuffers &operator=(const DeviceBuffers &) = delete;

  bool onDevice() const { return device.kind != DISTRT_HOST; }

  /// Takes the host buffers `host` (one per argument, then per output, this
  /// rank's shards; they stay the caller's) and, on a device, allocates a
  /// mirror of each and uploads every one. A null host buffer (a tensor on
  /// another pipeline stage) stays null, and its transfers do nothing. On
  /// failure returns false and sets `error`.
  bool attach(const std::vector<void *> &host, std::string &error);

  /// What dist_model_forward gets.
  void **pointers() { return buffers.data(); }

  /// Host buffer `index` to its device mirror, or back (nothing for a host
  /// model). A download waits for the work queued before it.
  bool upload(size_t index, std::string &error);
  bool download(size_t index, std::string &error);
  /// The same for every argument with one of `roles`, or every output
  /// (Role::Output).
  bool upload(std::initializer_list<Role> roles, std::string &error);
  bool download(std::initializer_list<Role> roles, std::string &error);

  /// Waits for the device's queued work; on failure (a kernel failed) sets
  /// `error`.
  bool synchronize(std::string &error);

  /// `bytes` on the model's device, freed with this object.
  void *allocate(size_t bytes, std::string &error);
  /// A copy from `src` to `dst`, both on the model's device.
  bool copy(void *dst, const void *src, size_t bytes, std::string &error);

  /// The peak of device memory in use so far, in MiB; negative for a host
  /// model (whose peak is the process's, StepLog's peakMemoryMiB).
  double peakMiB() const;
  /// "device memory: in use 1.0 MiB, peak 2.0 MiB, reserved 4.0 MiB, 3
  /// driver allocations" (for the debug log); "" for a host model.
  std::string memoryText() const;

private:
  const Interface &model;
  distrt_device device;
  std::vector<void *> host;    // the caller's
  std::vector<void *> buffers; // what the forward gets
  std::vector<void *> owned;   // device memory to free
  size_t bytes(size_t index) const;
  bool transfer(size_t index, bool up, std::string &error);
};

} // namespace distrt::model

#endif // DISTRT_MAIN_DEVICEBUFFERS_H
