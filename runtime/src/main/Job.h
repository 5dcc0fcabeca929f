//===- Job.h - The processes of one run under a mesh ------------*- C++ -*-===//
//
// A model compiled for a mesh of several devices runs as one process per
// device (`mpirun -np N`), each running the same driver on its shards
// (Sharding.h). Rank 0 alone prints and writes files; every rank reads and
// checks its inputs, and the ranks agree on failures at the points where
// one rank's error would otherwise leave the others waiting.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_JOB_H
#define DISTRT_MAIN_JOB_H

#include "ModelInterface.h"

#include <string>

namespace distrt::model {

/// Joins the job as a device of `model`'s mesh (distrt_comm_init): checks
/// the number of processes before any communication. On failure returns
/// false and sets `error`.
bool joinMesh(const Interface &model, std::string &error);

/// Whether this process is rank 0, the one that prints and writes.
bool isMainRank();

/// Whether `ok` holds on every rank: a collective (every rank calls it at
/// the same point). When it does not hold everywhere, a rank whose own `ok`
/// is true gets `error` set to say another rank failed.
bool everyRank(bool ok, std::string &error);

/// Replaces each of the `count` values by its maximum over the ranks: a
/// collective (every rank calls it at the same point).
void maxOverRanks(int32_t *values, int64_t count);

/// Leaves the mesh (distrt_comm_finalize) and returns `status`.
int leaveMesh(int status);

} // namespace distrt::model

#endif // DISTRT_MAIN_JOB_H
