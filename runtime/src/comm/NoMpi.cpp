//===- NoMpi.cpp - No MPI transport in a build without MPI ----------------===//
//
// distrt built with DIST_ENABLE_MPI=OFF (libdistrt_cuda.a, for machines
// without MPI): processes started by an MPI launcher cannot form a mesh;
// a torchrun-style launch (the TCP transport) still can.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"

namespace distrt::comm::transport {

std::unique_ptr<Transport> makeMpi(std::string &error) {
  error = "this distrt was built without MPI (DIST_ENABLE_MPI=OFF): launch "
          "the processes torchrun-style (RANK, WORLD_SIZE, MASTER_ADDR, "
          "MASTER_PORT) instead of with mpirun";
  return nullptr;
}

bool mpiActive() { return false; }

} // namespace distrt::comm::transport
