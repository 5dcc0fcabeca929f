//===- Mpi.cpp - The collectives' transport over MPI ----------------------===//
//
// One communicator per non-empty set of mesh axes, split from
// MPI_COMM_WORLD once by distrt_comm_init (color: the coordinates on the
// other axes, key: the group rank, so a rank's rank in the communicator is
// its group rank) and cached here: the group of a mask is then a lookup.
// The communicators return errors instead of aborting, so a failure is
// reported as `error: distrt: ...` before the job ends.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

// The C API only: the C++ bindings some mpi.h pull in are not linked.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace distrt::comm::transport {

namespace {

/// The communicator cache: one per set of axes of the mesh, by mask (the
/// mask 0, a group of one, has none).
struct Groups {
  std::vector<MPI_Comm> comms;
  /// Sum, max and min of float16 and bfloat16, which MPI lacks.
  MPI_Op halfOps[2][3] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                          {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
  int64_t meshAxes = 0; // the masks of the mesh's own axes
  bool ownsMpi = false; // start() initialized MPI, so finish() finalizes it
};

Groups &groups() {
  static Groups cache;
  return cache;
}

/// Elements per MPI call: counts are ints.
constexpr int64_t kChunk = int64_t(1) << 30;

void check(int status, const char *call, int64_t mask) {
  if (status == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(status, text, &length) != MPI_SUCCESS)
    length = std::snprintf(text, sizeof(text), "MPI error %d", status);
  fatal("%s over mesh axes 0x%llx failed: %.*s", call,
        static_cast<unsigned long long>(mask), length, text);
}

MPI_Comm group(int64_t mask) {
  // Axes beyond the mesh have size 1: they change no group.
  return groups().comms[static_cast<size_t>(mask & groups().meshAxes)];
}

/// A type of the element's size, for moving data of any dtype.
MPI_Datatype moveType(distrt_dtype dtype) {
  switch (distrt_dtype_size(dtype)) {
  case 1:
    return MPI_UINT8_T;
  case 2:
    return MPI_UINT16_T;
  case 4:
    return MPI_UINT32_T;
  default:
    return MPI_UINT64_T;
  }
}

/// An MPI_Op of 16-bit floats, reducing in float (combineHalves).
template <distrt_dtype Dtype, int32_t Op>
void reduceHalves(void *in, void *inout, int *length, MPI_Datatype *) {
  combineHalves(Dtype, Op, static_cast<uint16_t *>(inout),
                static_cast<const uint16_t *>(in), *length);
}

bool createHalfOps(Groups &cache) {
  MPI_User_function *functions[2][3] = {
      {reduceHalves<DISTRT_F16, DISTRT_OP_SUM>,
       reduceHalves<DISTRT_F16, DISTRT_OP_MAX>,
       reduceHalves<DISTRT_F16, DISTRT_OP_MIN>},
      {reduceHalves<DISTRT_BF16, DISTRT_OP_SUM>,
       reduceHalves<DISTRT_BF16, DISTRT_OP_MAX>,
       reduceHalves<DISTRT_BF16, DISTRT_OP_MIN>}};
  for (int type = 0; type < 2; ++type)
    for (int op = 0; op < 3; ++op)
      if (MPI_Op_create(functions[type][op], 1, &cache.halfOps[type][op]) !=
          MPI_SUCCESS)
        return false;
  return true;
}

/// The type a reduction computes in (the dtype was checked reducible).
MPI_Datatype reduceType(distrt_dtype dtype) {
  switch (dtype) {
  case DISTRT_F16:
  case DISTRT_BF16:
    return MPI_UINT16_T; // with the ops of reduceHalves
  case DISTRT_F32:
    return MPI_FLOAT;
  case DISTRT_F64:
    return MPI_DOUBLE;
  case DISTRT_I64:
    return MPI_INT64_T;
  case DISTRT_I32:
    return MPI_INT32_T;
  case DISTRT_I16:
    return MPI_INT16_T;
  case DISTRT_I8:
    return MPI_INT8_T;
  case DISTRT_U64:
    return MPI_UINT64_T;
  case DISTRT_U32:
    return MPI_UINT32_T;
  case DISTRT_U16:
    return MPI_UINT16_T;
  default: // uint8, bool
    return MPI_UINT8_T;
  }
}

MPI_Op reduceOp(distrt_dtype dtype, int32_t op) {
  if (dtype == DISTRT_F16 || dtype == DISTRT_BF16)
    return groups().halfOps[dtype == DISTRT_BF16][op];
  return op == DISTRT_OP_MAX   ? MPI_MAX
         : op == DISTRT_OP_MIN ? MPI_MIN
                               : MPI_SUM;
}

/// The count of one call; fatal above INT_MAX (no chunking there).
int singleCount(int64_t count, const char *call) {
  if (count > INT_MAX)
    fatal("%s: %lld elements per rank, more than 2^31 - 1", call,
          static_cast<long long>(count));
  return static_cast<int>(count);
}

int64_t bytesOf(distrt_dtype dtype, int64_t count) {
  return count * distrt_dtype_size(dtype);
}

/// distrt_wait's part of started MPI requests.
std::function<void()> waitAll(std::vector<MPI_Request> requests, int64_t mask,
                              std::string what, int64_t bytes) {
  return tracedWait(
      [requests, mask]() mutable {
        check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                          MPI_STATUSES_IGNORE),
              "MPI_Waitall", mask);
      },
      mask, std::move(what), bytes);
}

char *at(void *buf, int64_t offset, distrt_dtype dtype) {
  return static_cast<char *>(buf) + offset * distrt_dtype_size(dtype);
}

/// The transport under an MPI launcher.
class MpiTransport final : public Transport {
public:
  const char *name() const override { return "MPI"; }
  bool start(int32_t &rank, int32_t &world, std::string &error) override;
  int32_t localSize() override;
  bool createGroups(const Mesh &mesh, std::string &error) override;
  void finish() override;
  [[noreturn]] void abort(int status) override;
  void allReduce(distrt_dtype dtype, int32_t op, void *buf, int64_t count,
                 int64_t mask, std::function<void()> *wait) override;
  void allGather(distrt_dtype dtype, const void *in, void *out, int64_t count,
                 int64_t mask, std::function<void()> *wait) override;
  void reduceScatter(distrt_dtype dtype, int32_t op, const void *in, void *out,
                     int64_t count, int64_t mask,
                     std::function<void()> *wait) override;
  void broadcast(distrt_dtype dtype, void *buf, int64_t count, int64_t root,
                 int64_t mask) override;
  void send(distrt_dtype dtype, const void *buf, int64_t count, int32_t peer,
            int32_t tag) override;
  int32_t recvAny(distrt_dtype dtype, void *buf, int64_t count,
                  int32_t tag) override;
  void recv(distrt_dtype dtype, void *buf, int64_t count, int32_t peer,
            int32_t tag) override;
  void barrier(int64_t mask) override;
  void drain() override { completeSends(/*wait=*/true); }

private:
  /// A send under way: its copy of the data and its requests.
  struct PendingSend {
    std::unique_ptr<char[]> data;
    std::vector<MPI_Request> requests;
    std::string what;
  };
  /// Frees the sends that completed; with `wait`, waits for all of them
  /// (under the watchdog).
  void completeSends(bool wait);
  std::vector<PendingSend> pendingSends;
};

} // namespace

bool MpiTransport::start(int32_t &rank, int32_t &world, std::string &error) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    error = "distrt_comm_init: MPI is already finalized";
    return false;
  }
  if (!initialized) {
#ifdef OPEN_MPI
    // The started all-reduce (gradient buckets) is in place, and for an in
    // place MPI_Iallreduce Open MPI's libnbc picks the binomial algorithm
    // (reduce to one rank, then broadcast it: every byte twice, one pass
    // after the other): 2.2x the ring's time for a 27-147 MiB bucket on 2
    // ranks (docs/decisions.md). The ring is bandwidth-optimal, what the
    // blocking MPI_Allreduce takes for such sizes and what the cost model
    // predicts; a user's own choice (the environment) stays.
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1",
           /*overwrite=*/0);
#endif
    int provided;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS) {
      error = "distrt_comm_init: MPI_Init failed";
      return false;
    }
    groups().ownsMpi = true;
  }
  int size, me;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  world = size;
  rank = me;
  return true;
}

int32_t MpiTransport::localSize() {
  MPI_Comm local;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                          MPI_INFO_NULL, &local) != MPI_SUCCESS)
    return 1;
  int size = 1;
  MPI_Comm_size(local, &size);
  MPI_Comm_free(&local);
  return size;
}

bool MpiTransport::createGroups(const Mesh &mesh, std::string &error) {
  Groups &cache = groups();
  int64_t axes = (int64_t(1) << mesh.ndims) - 1, all = (1 << kMaxDims) - 1;
  cache.meshAxes = axes;
  cache.comms.assign(static_cast<size_t>(axes + 1), MPI_COMM_NULL);
  if (!createHalfOps(cache)) {
    error = "distrt_comm_init: cannot create the float16 reductions "
            "(MPI_Op_create)";
    return false;
  }
  for (int64_t mask = 1; mask <= axes; ++mask) {
    int color = static_cast<int>(mesh.indexOn(mesh.rank, all & ~mask));
    int key = static_cast<int>(mesh.indexOn(mesh.rank, mask));
    MPI_Comm &comm = cache.comms[static_cast<size_t>(mask)];
    int size = 0, rank = -1;
    if (MPI_Comm_split(MPI_COMM_WORLD, color, key, &comm) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        MPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
        size != mesh.sizeOf(mask) || rank != key) {
      char text[128];
      std::snprintf(text, sizeof(text),
                    "distrt_comm_init: cannot create the communicator of "
                    "mesh axes 0x%llx (MPI_Comm_split)",
                    static_cast<unsigned long long>(mask));
      error = text;
      return false;
    }
  }
  return true;
}

void MpiTransport::finish() {
  Groups &cache = groups();
  for (MPI_Comm &comm : cache.comms)
    if (comm != MPI_COMM_NULL)
      MPI_Comm_free(&comm);
  cache.comms.clear();
  for (auto &ops : cache.halfOps)
    for (MPI_Op &op : ops)
      if (op != MPI_OP_NULL)
        MPI_Op_free(&op);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (cache.ownsMpi && !finalized)
    MPI_Finalize();
  cache.ownsMpi = false;
}

bool mpiActive() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void MpiTransport::abort(int status) {
  if (mpiActive())
    MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status); // MPI_Abort should not return
}

void MpiTransport::allReduce(distrt_dtype dtype, int32_t op, void *buf, int64_t count,
               int64_t mask, std::function<void()> *wait) {
  std::vector<MPI_Request> requests;
  std::string what = waitText(wait ? "MPI_Iallreduce" : "MPI_Allreduce",
                              dtype, count, mask);
  std::optional<watchdog::Waiting> waiting;
  if (!wait)
    waiting.emplace(what, mask, bytesOf(dtype, count));
  for (int64_t done = 0; done < count; done += kChunk) {
    int n = static_cast<int>(std::min(kChunk, count - done));
    void *chunk = at(buf, done, dtype);
    if (!wait) {
      check(MPI_Allreduce(MPI_IN_PLACE, chunk, n, reduceType(dtype),
                          reduceOp(dtype, op), group(mask)),
            "MPI_Allreduce", mask);
      continue;
    }
    requests.emplace_back();
    check(MPI_Iallreduce(MPI_IN_PLACE, chunk, n, reduceType(dtype),
                         reduceOp(dtype, op), group(mask), &requests.back()),
          "MPI_Iallreduce", mask);
  }
  if (wait)
    *wait = waitAll(std::move(requests), mask, what, bytesOf(dtype, count));
}

void MpiTransport::allGather(distrt_dtype dtype, const void *in, void *out, int64_t count,
               int64_t mask, std::function<void()> *wait) {
  int n = singleCount(count, "distrt_all_gather");
  MPI_Datatype type = moveType(dtype);
  if (!wait) {
    watchdog::Waiting waiting(waitText("MPI_Allgather", dtype, count, mask),
                              mask, bytesOf(dtype, count));
    check(MPI_Allgather(in, n, type, out, n, type, group(mask)),
          "MPI_Allgather", mask);
    return;
  }
  std::vector<MPI_Request> requests(1);
  check(MPI_Iallgather(in, n, type, out, n, type, group(mask), &requests[0]),
        "MPI_Iallgather", mask);
  *wait = waitAll(std::move(requests), mask,
                  waitText("MPI_Iallgather", dtype, count, mask),
                  bytesOf(dtype, count));
}

void MpiTransport::reduceScatter(distrt_dtype dtype, int32_t op, const void *in, void *out,
                   int64_t count, int64_t mask, std::function<void()> *wait) {
  int n = singleCount(count, "distrt_reduce_scatter");
  if (!wait) {
    watchdog::Waiting waiting(
        waitText("MPI_Reduce_scatter_block", dtype, count, mask), mask,
        bytesOf(dtype, count));
    check(MPI_Reduce_scatter_block(in, out, n, reduceType(dtype),
                                   reduceOp(dtype, op), group(mask)),
          "MPI_Reduce_scatter_block", mask);
    return;
  }
  std::vector<MPI_Request> requests(1);
  check(MPI_Ireduce_scatter_block(in, out, n, reduceType(dtype),
                                  reduceOp(dtype, op), group(mask),
                                  &requests[0]),
        "MPI_Ireduce_scatter_block", mask);
  *wait = waitAll(std::move(requests), mask,
                  waitText("MPI_Ireduce_scatter_block", dtype, count, mask),
                  bytesOf(dtype, count));
}

void MpiTransport::broadcast(distrt_dtype dtype, void *buf, int64_t count, int64_t root,
               int64_t mask) {
  watchdog::Waiting waiting(waitText("MPI_Bcast", dtype, count, mask), mask,
                            bytesOf(dtype, count));
  for (int64_t done = 0; done < count; done += kChunk)
    check(MPI_Bcast(at(buf, done, dtype),
                    static_cast<int>(std::min(kChunk, count - done)),
                    moveType(dtype), static_cast<int>(root), group(mask)),
          "MPI_Bcast", mask);
}

// The communicator of all the mesh's axes numbers its ranks as the world.
// Sends are buffered: the data is copied and sent in the background, so a
// send never waits for its receive (pipeline stages send to each other at
// the same time, 1F1B's forward activations one way and gradients the
// other). The copies are freed as the sends complete, at the latest when
// the mesh ends (drain).
void MpiTransport::send(distrt_dtype dtype, const void *buf, int64_t count,
                        int32_t peer, int32_t tag) {
  completeSends(/*wait=*/false);
  size_t bytes = static_cast<size_t>(count) * distrt_dtype_size(dtype);
  PendingSend pending;
  pending.data.reset(new char[bytes ? bytes : 1]);
  std::memcpy(pending.data.get(), buf, bytes);
  pending.what = waitText("MPI_Isend", dtype, count, 0) + " to rank " +
                 std::to_string(peer);
  for (int64_t done = 0; done < count; done += kChunk) {
    MPI_Request request;
    check(MPI_Isend(at(pending.data.get(), done, dtype),
                    static_cast<int>(std::min(kChunk, count - done)),
                    moveType(dtype), peer, tag, group(groups().meshAxes),
                    &request),
          "MPI_Isend", groups().meshAxes);
    pending.requests.push_back(request);
  }
  pendingSends.push_back(std::move(pending));
}

void MpiTransport::completeSends(bool wait) {
  std::vector<PendingSend> open;
  for (PendingSend &pending : pendingSends) {
    int done = 0;
    if (wait) {
      watchdog::Waiting waiting(pending.what + " (completing)",
                                groups().meshAxes, -1);
      check(MPI_Waitall(static_cast<int>(pending.requests.size()),
                        pending.requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall", groups().meshAxes);
      continue;
    }
    check(MPI_Testall(static_cast<int>(pending.requests.size()),
                      pending.requests.data(), &done, MPI_STATUSES_IGNORE),
          "MPI_Testall", groups().meshAxes);
    if (!done)
      open.push_back(std::move(pending));
  }
  pendingSends = std::move(open);
}

void MpiTransport::recv(distrt_dtype dtype, void *buf, int64_t count, int32_t peer,
          int32_t tag) {
  watchdog::Waiting waiting(waitText("MPI_Recv", dtype, count, 0) +
                                " from rank " + std::to_string(peer),
                            groups().meshAxes, bytesOf(dtype, count));
  for (int64_t done = 0; done < count; done += kChunk)
    check(MPI_Recv(at(buf, done, dtype),
                   static_cast<int>(std::min(kChunk, count - done)),
                   moveType(dtype), peer, tag, group(groups().meshAxes),
                   MPI_STATUS_IGNORE),
          "MPI_Recv", groups().meshAxes);
}

int32_t MpiTransport::recvAny(distrt_dtype dtype, void *buf, int64_t count,
                              int32_t tag) {
  if (count > kChunk)
    fatal("distrt_recv_any: %lld elements is more than one message takes",
          static_cast<long long>(count));
  watchdog::Waiting waiting(waitText("MPI_Recv", dtype, count, 0) +
                                " from any rank",
                            groups().meshAxes, bytesOf(dtype, count));
  MPI_Status status;
  check(MPI_Recv(buf, static_cast<int>(count), moveType(dtype),
                 MPI_ANY_SOURCE, tag, group(groups().meshAxes), &status),
        "MPI_Recv", groups().meshAxes);
  return status.MPI_SOURCE;
}

void MpiTransport::barrier(int64_t mask) {
  watchdog::Waiting waiting("MPI_Barrier", mask);
  check(MPI_Barrier(group(mask)), "MPI_Barrier", mask);
}

} // namespace distrt::comm::transport

namespace distrt::comm::transport {

std::unique_ptr<Transport> makeMpi(std::string &) {
  return std::make_unique<MpiTransport>();
}

} // namespace distrt::comm::transport
