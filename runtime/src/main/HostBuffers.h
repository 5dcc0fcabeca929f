//===- HostBuffers.h - The buffers handed to dist_model_forward -*- C++ -*-===//

#ifndef DISTRT_MAIN_HOSTBUFFERS_H
#define DISTRT_MAIN_HOSTBUFFERS_H

#include "distrt/distrt.h"

#include <vector>

namespace distrt::model {

constexpr distrt_device kHost = {DISTRT_HOST, 0};

/// One distrt_alloc'd host pointer per argument, then one per output; freed
/// on destruction.
struct HostBuffers {
  std::vector<void *> pointers;
  explicit HostBuffers(size_t count) : pointers(count, nullptr) {}
  HostBuffers(const HostBuffers &) = delete;
  HostBuffers &operator=(const HostBuffers &) = delete;
  ~HostBuffers() {
    for (void *pointer : pointers)
      distrt_free(kHost, pointer);
  }
};

struct SafetensorsCloser {
  void operator()(distrt_safetensors *file) const {
    distrt_safetensors_close(file);
  }
};

} // namespace distrt::model

#endif // DISTRT_MAIN_HOSTBUFFERS_H
