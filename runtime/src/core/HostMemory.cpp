//===- HostMemory.cpp - Counted host allocations --------------------------===//
//
// The host memory of tensors: what distrt_alloc(host) and compiled code
// (distrt_host_malloc and friends, which dist-compile's CPU lowering calls
// in place of malloc) hold, counted by the allocator's own size of each
// block, so that the trainer can report a tensor peak that the compiler's
// estimate (dist-compile --explain) predicts, without the process's
// baseline (code, libraries, MPI) that the resident set includes.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"
#include "HostMemory.h"

#include <atomic>
#include <cstdlib>
#include <malloc.h>

namespace {

std::atomic<int64_t> inUse{0}, peak{0};

void counted(void *memory) {
  if (!memory)
    return;
  auto size = static_cast<int64_t>(malloc_usable_size(memory));
  int64_t now = inUse.fetch_add(size) + size;
  int64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

} // namespace

void *distrt::hostAlloc(size_t alignment, size_t bytes) {
  // aligned_alloc wants a multiple of the alignment, and a nonzero size.
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void *memory = std::aligned_alloc(alignment, rounded ? rounded : alignment);
  counted(memory);
  return memory;
}

void distrt::hostFree(void *memory) {
  if (!memory)
    return;
  inUse.fetch_sub(static_cast<int64_t>(malloc_usable_size(memory)));
  std::free(memory);
}

extern "C" void *distrt_host_malloc(size_t bytes) {
  void *memory = std::malloc(bytes);
  counted(memory);
  return memory;
}

extern "C" void *distrt_host_aligned_alloc(size_t alignment, size_t bytes) {
  void *memory = std::aligned_alloc(alignment, bytes);
  counted(memory);
  return memory;
}

extern "C" void distrt_host_free(void *memory) { distrt::hostFree(memory); }

extern "C" void distrt_host_memory(int64_t *in_use, int64_t *peak_out) {
  if (in_use)
    *in_use = inUse.load();
  if (peak_out)
    *peak_out = peak.load();
}

extern "C" void distrt_host_memory_reset_peak(void) { peak.store(inUse.load()); }
