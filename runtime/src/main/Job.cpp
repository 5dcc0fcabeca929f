//===- Job.cpp - The processes of one run under a mesh --------------------===//

#include "Job.h"

#include <algorithm>
#include <cstring>

namespace distrt::model {

namespace {

/// Every axis a mesh may have: the group of the whole job.
constexpr int64_t kAllAxes = (int64_t(1) << DISTRT_MAX_MESH_DIMS) - 1;

} // namespace

bool joinMesh(const Interface &model, std::string &error) {
  if (distrt_comm_init(static_cast<int32_t>(model.mesh.size()),
                       model.mesh.data()) != 0) {
    error = distrt_last_error();
    return false;
  }
  // Pipeline stages send to each other without waiting for the receiver
  // (1F1B's stages would otherwise wait on each other's sends), which the
  // MPI transport buffers and NCCL queues on its stream; the TCP one (host
  // buffers of a torchrun-style launch) does not.
  bool stages = std::any_of(
      model.arguments.begin(), model.arguments.end(),
      [](const TensorSpec &spec) { return spec.placeAxis >= 0; });
  if (stages && std::strcmp(distrt_comm_transport(), "TCP") == 0) {
    error = "this program runs pipeline stages, whose sends between stages "
            "need the MPI transport: launch it with mpirun (over TCP, from a "
            "torchrun-style launch, a send waits for its receiver and the "
            "stages could wait on each other)";
    distrt_comm_finalize();
    return false;
  }
  return true;
}

bool isMainRank() { return distrt_comm_rank() == 0; }

bool everyRank(bool ok, std::string &error) {
  int32_t all = ok ? 1 : 0;
  distrt_all_reduce(DISTRT_I32, DISTRT_OP_MIN, &all, 1, kAllAxes);
  if (ok && !all)
    error = "stopping: another process of the job failed (see its error)";
  return all != 0;
}

void maxOverRanks(int32_t *values, int64_t count) {
  distrt_all_reduce(DISTRT_I32, DISTRT_OP_MAX, values, count, kAllAxes);
}

int leaveMesh(int status) {
  distrt_comm_finalize();
  return status;
}

} // namespace distrt::model
