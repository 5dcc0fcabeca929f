//===- Requests.cpp - Non-blocking collectives and their handles ----------===//
//
// A started collective is a slot of a table until distrt_wait completes it;
// its handle is the slot's index, so handles stay small and a completed
// one is handed out again. Over a group of one the work is done at the
// start and the wait only frees the slot.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"

#include <vector>

namespace distrt::comm {

namespace {

struct Request {
  bool pending = false;
  Completion completion;
};

std::vector<Request> &requests() {
  static std::vector<Request> table;
  return table;
}

int64_t enqueue(Completion completion) {
  std::vector<Request> &table = requests();
  size_t slot = 0;
  while (slot < table.size() && table[slot].pending)
    ++slot;
  if (slot == table.size())
    table.emplace_back();
  table[slot].pending = true;
  table[slot].completion = std::move(completion);
  return static_cast<int64_t>(slot);
}

} // namespace

} // namespace distrt::comm

using namespace distrt::comm;

extern "C" int64_t distrt_all_reduce_start(distrt_dtype dtype,
                                           distrt_reduce_op op, void *buf,
                                           int64_t count, int64_t axes_mask) {
  Completion completion;
  allReduce("distrt_all_reduce_start", dtype, op, buf, count, axes_mask,
            &completion);
  return enqueue(std::move(completion));
}

extern "C" int64_t distrt_all_gather_start(distrt_dtype dtype, const void *in,
                                           void *out, int64_t outer,
                                           int64_t inner, int64_t axes_mask) {
  Completion completion;
  allGather("distrt_all_gather_start", dtype, in, out, outer, inner, axes_mask,
            &completion);
  return enqueue(std::move(completion));
}

extern "C" int64_t distrt_reduce_scatter_start(distrt_dtype dtype,
                                               distrt_reduce_op op,
                                               const void *in, void *out,
                                               int64_t outer, int64_t inner,
                                               int64_t axes_mask) {
  Completion completion;
  reduceScatter("distrt_reduce_scatter_start", dtype, op, in, out, outer, inner,
                axes_mask, &completion);
  return enqueue(std::move(completion));
}

extern "C" void distrt_wait(int64_t request) {
  std::vector<Request> &table = requests();
  if (request < 0 || request >= static_cast<int64_t>(table.size()) ||
      !table[request].pending)
    fatal("distrt_wait: request %lld is not pending (%s)",
          static_cast<long long>(request),
          request >= 0 && request < static_cast<int64_t>(table.size())
              ? "already waited for"
              : "no start returned it");
  // Taken out first: the slot is free again whatever the work does.
  Completion completion = std::move(table[request].completion);
  table[request] = Request();
  if (completion.wait)
    completion.wait();
  if (completion.finish)
    completion.finish();
}
