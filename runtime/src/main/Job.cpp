//===- Job.cpp - The processes of one run under a mesh --------------------===//

#include "Job.h"

namespace distrt::model {

namespace {

/// Every axis a mesh may have: the group of the whole job.
constexpr int64_t kAllAxes = (int64_t(1) << DISTRT_MAX_MESH_DIMS) - 1;

} // namespace

bool joinMesh(const Interface &model, std::string &error) {
  if (distrt_comm_init(static_cast<int32_t>(model.mesh.size()),
                       model.mesh.data()) == 0)
    return true;
  error = distrt_last_error();
  return false;
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
