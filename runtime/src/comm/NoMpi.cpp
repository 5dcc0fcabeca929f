//===- NoMpi.cpp - The collectives' transport in a build without MPI ------===//
//
// distrt built with DIST_ENABLE_MPI=OFF runs a mesh of one device in one
// process only: distrt_comm_init refuses anything else, so no collective
// ever reaches the calls below over a group of more than one.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"

#include <cstdlib>

namespace distrt::comm::transport {

namespace {

[[noreturn]] void unavailable() {
  fatal("this distrt was built without MPI (DIST_ENABLE_MPI=OFF)");
}

} // namespace

bool start(int32_t &, int32_t &, std::string &error) {
  error = "this distrt was built without MPI (DIST_ENABLE_MPI=OFF): it runs "
          "only a mesh of one device, in a single process";
  return false;
}

bool createGroups(const Mesh &, std::string &) { unavailable(); }
int32_t localSize() { return 1; }
void finish() {}
bool active() { return false; }
void abort(int status) { std::exit(status); }

void allReduce(distrt_dtype, int32_t, void *, int64_t, int64_t,
               std::function<void()> *) {
  unavailable();
}
void allGather(distrt_dtype, const void *, void *, int64_t, int64_t,
               std::function<void()> *) {
  unavailable();
}
void reduceScatter(distrt_dtype, int32_t, const void *, void *, int64_t,
                   int64_t, std::function<void()> *) {
  unavailable();
}
void broadcast(distrt_dtype, void *, int64_t, int64_t, int64_t) {
  unavailable();
}
void send(distrt_dtype, const void *, int64_t, int32_t, int32_t) {
  unavailable();
}
void recv(distrt_dtype, void *, int64_t, int32_t, int32_t) { unavailable(); }
void barrier(int64_t) { unavailable(); }

} // namespace distrt::comm::transport
