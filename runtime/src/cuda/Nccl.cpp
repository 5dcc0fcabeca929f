//===- Nccl.cpp - The collectives' transport on GPUs: NCCL ----------------===//
//
// With a CUDA device open, a mesh's collectives on device buffers go to
// NCCL (libnccl.so.2, opened with dlopen like cuBLASLt; DISTRT_NCCL names
// the file). The processes start over a bootstrap transport (MPI under an
// MPI launcher, TCP when launched torchrun-style), which also carries
// every collective on host memory (the runtime's own: the progress
// board's address, the trainer's agreement between ranks) and barriers.
//
// One communicator per non-empty set of mesh axes, created once: group
// rank 0 draws its unique id and broadcasts it over the bootstrap to its
// group (every group of that mask at once). The collectives run on a
// communication stream of their own, ordered against the compute stream
// with events: the comm stream waits for what the compute stream has
// queued (the kernels that wrote the buffer), and the compute stream
// waits for the collective where the program waits for it (at once for a
// blocking call, at distrt_wait for a started one). Nothing blocks the
// host, so a started all-reduce overlaps the kernels queued after it.
// Means are NCCL's own (ncclAvg); the checks, the rearranging and the
// watchdog are Collectives.cpp's and Watchdog.cpp's, as for MPI and TCP.
//
//===----------------------------------------------------------------------===//

#include "../comm/Comm.h"
#include "Cuda.h"

#include <cstdlib>
#include <dlfcn.h>
#include <nccl.h>

#define DISTRT_NCCL_STRING2(x) #x
#define DISTRT_NCCL_STRING(x) DISTRT_NCCL_STRING2(x)

namespace distrt::comm::transport {

namespace {

#define DISTRT_NCCL_FUNCTIONS(X)                                               \
  X(ncclGetVersion)                                                            \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommDestroy)                                                           \
  X(ncclCommAbort)                                                             \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclGetErrorString)                                                        \
  X(ncclAllReduce)                                                             \
  X(ncclAllGather)                                                             \
  X(ncclReduceScatter)                                                         \
  X(ncclBroadcast)                                                             \
  X(ncclSend)                                                                  \
  X(ncclRecv)

struct Nccl {
#define DISTRT_NCCL_DECLARE(name) decltype(&::name) name = nullptr;
  DISTRT_NCCL_FUNCTIONS(DISTRT_NCCL_DECLARE)
#undef DISTRT_NCCL_DECLARE
  std::string path;
  int version = 0;
};

/// libnccl.so.2 and its functions; false with `error` set if not there.
bool load(Nccl &nccl, std::string &error) {
  cuda::Library library;
  if (!cuda::openLibrary("libnccl.so.2", "DISTRT_NCCL",
                         {"lib64/libnccl.so.2", "lib/libnccl.so.2"}, library,
                         error))
    return false;
  nccl.path = library.path;
#define DISTRT_NCCL_RESOLVE(name)                                              \
  nccl.name = reinterpret_cast<decltype(nccl.name)>(                           \
      ::dlsym(library.handle, DISTRT_NCCL_STRING(name)));                      \
  if (!nccl.name) {                                                            \
    error = library.path + " has no " DISTRT_NCCL_STRING(name) " (NCCL < 2.7?)"; \
    return false;                                                              \
  }
  DISTRT_NCCL_FUNCTIONS(DISTRT_NCCL_RESOLVE)
#undef DISTRT_NCCL_RESOLVE
  if (nccl.ncclGetVersion(&nccl.version) != ncclSuccess)
    nccl.version = 0;
  // ncclAvg and bfloat16 came with NCCL 2.10 (version code 21000).
  if (nccl.version < 21000) {
    error = library.path + " is NCCL " + std::to_string(nccl.version) +
            ": distrt needs NCCL 2.10 or later";
    return false;
  }
  return true;
}

/// NCCL's type of a dtype for a reduction; false for 16-bit integers,
/// which NCCL cannot reduce.
bool reduceType(distrt_dtype dtype, ncclDataType_t &type) {
  switch (dtype) {
  case DISTRT_F32: type = ncclFloat32; return true;
  case DISTRT_F64: type = ncclFloat64; return true;
  case DISTRT_F16: type = ncclFloat16; return true;
  case DISTRT_BF16: type = ncclBfloat16; return true;
  case DISTRT_I64: type = ncclInt64; return true;
  case DISTRT_I32: type = ncclInt32; return true;
  case DISTRT_I8: type = ncclInt8; return true;
  case DISTRT_U64: type = ncclUint64; return true;
  case DISTRT_U32: type = ncclUint32; return true;
  case DISTRT_U8:
  case DISTRT_BOOL: type = ncclUint8; return true;
  default: return false; // int16, uint16
  }
}

ncclRedOp_t reduceOp(int32_t op) {
  return op == DISTRT_OP_MAX   ? ncclMax
         : op == DISTRT_OP_MIN ? ncclMin
         : op == DISTRT_OP_MEAN ? ncclAvg
                                : ncclSum;
}

class NcclTransport final : public Transport {
public:
  NcclTransport(std::unique_ptr<Transport> bootstrap, Nccl nccl)
      : bootstrap(std::move(bootstrap)), nccl(std::move(nccl)),
        label("NCCL (started over " + std::string(this->bootstrap->name()) +
              ")") {}
  const char *name() const override { return label.c_str(); }
  bool start(int32_t &rank, int32_t &world, std::string &error) override {
    return bootstrap->start(rank, world, error);
  }
  int32_t localSize() override { return bootstrap->localSize(); }
  bool createGroups(const Mesh &mesh, std::string &error) override;
  void drain() override;
  void finish() override;
  // No NCCL teardown: ncclCommAbort can wait for the other ranks of the
  // node, and the process's end frees the GPU anyway.
  [[noreturn]] void abort(int status) override {
    bootstrap->abort(status);
    std::_Exit(status); // abort() does not return
  }
  bool reducesMean(const void *buf) override { return memory::onDevice(buf); }
  bool movesDeviceMemory() const override { return true; }
  std::string asyncError() override {
    for (size_t mask = 1; mask < comms.size(); ++mask) {
      ncclResult_t error = ncclSuccess;
      if (comms[mask] &&
          nccl.ncclCommGetAsyncError(comms[mask], &error) == ncclSuccess &&
          error != ncclSuccess && error != ncclInProgress)
        return std::string("NCCL reports an error on the communicator of "
                           "mesh axes {") +
               watchdog::axesText(static_cast<int64_t>(mask)) +
               "}: " + nccl.ncclGetErrorString(error) + " (NCCL " +
               std::to_string(nccl.version) + ")";
    }
    return "";
  }

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
  void recv(distrt_dtype dtype, void *buf, int64_t count, int32_t peer,
            int32_t tag) override;
  int32_t recvAny(distrt_dtype dtype, void *buf, int64_t count,
                  int32_t tag) override {
    return bootstrap->recvAny(dtype, buf, count, tag);
  }
  void barrier(int64_t mask) override { bootstrap->barrier(mask); }

private:
  ncclComm_t comm(int64_t mask) const {
    return comms[static_cast<size_t>(mask & meshAxes)];
  }
  /// NCCL's average scales each input by 1/n in the element type before it
  /// sums: for 16-bit floats that is exact only when n is a power of two
  /// (else 1/3 in bfloat16 is off by 0.2%). Fatal for the other groups.
  void checkMean(distrt_dtype dtype, int32_t op, int64_t mask) const {
    int64_t n = mesh().sizeOf(mask & meshAxes);
    if (op == DISTRT_OP_MEAN && (dtype == DISTRT_F16 || dtype == DISTRT_BF16) &&
        (n & (n - 1)) != 0)
      fatal("a mean of %s on the GPU over a group of %lld: NCCL's average "
            "is inexact in 16 bits for a group whose size is not a power of "
            "two; reduce in float32 (--reduce-precision=fp32)",
            distrt_dtype_name(dtype), static_cast<long long>(n));
  }
  /// Fatal unless `result` is ncclSuccess.
  void check(ncclResult_t result, const char *call, int64_t mask) const;
  /// Queues `enqueue` (NCCL calls on the comm stream) after the compute
  /// stream's work; the compute stream waits for it now, or (`wait`) at
  /// distrt_wait.
  void run(const std::function<void(CUstream)> &enqueue, std::string what,
           int64_t mask, int64_t bytes, std::function<void()> *wait);
  /// A send (or receive) of `count` elements to (from) world rank `peer`.
  void message(bool sending, distrt_dtype dtype, void *buf, int64_t count,
               int32_t peer);
  /// The NCCL type of a move of `dtype` elements (any dtype: bytes), and
  /// the count in that type.
  ncclDataType_t moveType(distrt_dtype dtype, int64_t &count) const;

  std::unique_ptr<Transport> bootstrap;
  Nccl nccl;
  std::string label;
  std::vector<ncclComm_t> comms; // by mask; null for mask 0
  int64_t meshAxes = 0;
  CUstream stream = nullptr; // the communication stream
};

void NcclTransport::check(ncclResult_t result, const char *call,
                          int64_t mask) const {
  if (result == ncclSuccess)
    return;
  fatal("%s over mesh axes {%s} failed: %s (NCCL %d, %s)", call,
        watchdog::axesText(mask).c_str(), nccl.ncclGetErrorString(result),
        nccl.version, nccl.path.c_str());
}

bool NcclTransport::createGroups(const Mesh &mesh, std::string &error) {
  if (!bootstrap->createGroups(mesh, error))
    return false;
  cuda::Device &device = cuda::require();
  if (CUresult result =
          device.driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
      result != CUDA_SUCCESS) {
    error = "cannot create NCCL's communication stream: cuStreamCreate: " +
            cuda::errorText(result);
    return false;
  }
  meshAxes = (int64_t(1) << mesh.ndims) - 1;
  comms.assign(static_cast<size_t>(meshAxes + 1), nullptr);
  for (int64_t mask = 1; mask <= meshAxes; ++mask) {
    int64_t groupRank = mesh.indexOn(mesh.rank, mask);
    ncclUniqueId id{};
    if (groupRank == 0) {
      if (ncclResult_t result = nccl.ncclGetUniqueId(&id);
          result != ncclSuccess) {
        error = std::string("ncclGetUniqueId failed: ") +
                nccl.ncclGetErrorString(result) + " (" + nccl.path + ")";
        return false;
      }
    }
    // The id's bytes go over the bootstrap, from each group's rank 0.
    bootstrap->broadcast(DISTRT_U8, &id, sizeof(id), 0, mask);
    ncclResult_t result = nccl.ncclCommInitRank(
        &comms[static_cast<size_t>(mask)],
        static_cast<int>(mesh.sizeOf(mask)), id, static_cast<int>(groupRank));
    if (result != ncclSuccess) {
      error = "ncclCommInitRank of mesh axes {" + watchdog::axesText(mask) +
              "} failed: " + nccl.ncclGetErrorString(result) + " (" +
              nccl.path + ")";
      return false;
    }
  }
  distrt_log(DISTRT_LOG_INFO, "NCCL %d (%s): %lld communicators",
             nccl.version, nccl.path.c_str(),
             static_cast<long long>(meshAxes));
  return true;
}

void NcclTransport::drain() {
  bootstrap->drain();
  if (!stream)
    return;
  watchdog::Waiting waiting("the NCCL communication stream, at the end of the "
                            "mesh",
                            meshAxes);
  cuda::Device &device = cuda::require();
  cuda::check(device.driver.cuStreamSynchronize(stream), "cuStreamSynchronize",
              "the NCCL communication stream");
}

void NcclTransport::finish() {
  for (ncclComm_t &c : comms)
    if (c) {
      nccl.ncclCommDestroy(c);
      c = nullptr;
    }
  bootstrap->finish();
}

void NcclTransport::run(const std::function<void(CUstream)> &enqueue,
                        std::string what, int64_t mask, int64_t bytes,
                        std::function<void()> *wait) {
  cuda::Device &device = cuda::require();
  cuda::Driver &d = device.driver;
  CUevent queued = nullptr, done = nullptr;
  cuda::check(d.cuEventCreate(&queued, CU_EVENT_DISABLE_TIMING),
              "cuEventCreate", what);
  cuda::check(d.cuEventCreate(&done, CU_EVENT_DISABLE_TIMING),
              "cuEventCreate", what);
  cuda::check(d.cuEventRecord(queued, device.stream), "cuEventRecord", what);
  cuda::check(d.cuStreamWaitEvent(stream, queued, 0), "cuStreamWaitEvent",
              what);
  {
    // Queuing returns at once, unless NCCL's queue is full (then it waits
    // for earlier collectives, as a stand-in NCCL that runs them at once
    // does): under the watchdog.
    watchdog::Waiting waiting(what + " (queuing it)", mask, bytes);
    cuda::DeviceSpan span(device, stream);
    enqueue(stream);
    if (span.active())
      span.end(trace::Track::DeviceComm, what,
               watchdog::traceArgs(mask, bytes));
  }
  cuda::check(d.cuEventRecord(done, stream), "cuEventRecord", what);
  d.cuEventDestroy(queued); // released once recorded work completes
  auto join = [done, what] {
    cuda::Device &device = cuda::require();
    cuda::check(device.driver.cuStreamWaitEvent(device.stream, done, 0),
                "cuStreamWaitEvent", what);
    device.driver.cuEventDestroy(done);
  };
  if (wait) {
    *wait = tracedWait(join, mask, std::move(what), bytes);
    return;
  }
  join();
  cuda::syncIfAsked(device, "NCCL", what);
}

ncclDataType_t NcclTransport::moveType(distrt_dtype dtype,
                                       int64_t &count) const {
  ncclDataType_t type;
  if (reduceType(dtype, type))
    return type;
  count *= distrt_dtype_size(dtype); // 16-bit integers move as bytes
  return ncclUint8;
}

void NcclTransport::allReduce(distrt_dtype dtype, int32_t op, void *buf,
                              int64_t count, int64_t mask,
                              std::function<void()> *wait) {
  if (!memory::onDevice(buf))
    return bootstrap->allReduce(dtype, op == DISTRT_OP_MEAN ? DISTRT_OP_SUM : op,
                                buf, count, mask, wait);
  ncclDataType_t type;
  if (!reduceType(dtype, type))
    fatal("an all-reduce of %s on the GPU: NCCL cannot reduce it",
          distrt_dtype_name(dtype));
  checkMean(dtype, op, mask);
  run(
      [&](CUstream s) {
        check(nccl.ncclAllReduce(buf, buf, static_cast<size_t>(count), type,
                                 reduceOp(op), comm(mask), s),
              "ncclAllReduce", mask);
      },
      waitText("ncclAllReduce", dtype, count, mask), mask,
      count * distrt_dtype_size(dtype), wait);
}

void NcclTransport::allGather(distrt_dtype dtype, const void *in, void *out,
                              int64_t count, int64_t mask,
                              std::function<void()> *wait) {
  if (!memory::onDevice(out))
    return bootstrap->allGather(dtype, in, out, count, mask, wait);
  int64_t n = count;
  ncclDataType_t type = moveType(dtype, n);
  run(
      [&](CUstream s) {
        check(nccl.ncclAllGather(in, out, static_cast<size_t>(n), type,
                                 comm(mask), s),
              "ncclAllGather", mask);
      },
      waitText("ncclAllGather", dtype, count, mask), mask,
      count * distrt_dtype_size(dtype), wait);
}

void NcclTransport::reduceScatter(distrt_dtype dtype, int32_t op,
                                  const void *in, void *out, int64_t count,
                                  int64_t mask, std::function<void()> *wait) {
  if (!memory::onDevice(out))
    return bootstrap->reduceScatter(
        dtype, op == DISTRT_OP_MEAN ? DISTRT_OP_SUM : op, in, out, count, mask,
        wait);
  ncclDataType_t type;
  if (!reduceType(dtype, type))
    fatal("a reduce-scatter of %s on the GPU: NCCL cannot reduce it",
          distrt_dtype_name(dtype));
  checkMean(dtype, op, mask);
  run(
      [&](CUstream s) {
        check(nccl.ncclReduceScatter(in, out, static_cast<size_t>(count), type,
                                     reduceOp(op), comm(mask), s),
              "ncclReduceScatter", mask);
      },
      waitText("ncclReduceScatter", dtype, count, mask), mask,
      count * distrt_dtype_size(dtype), wait);
}

void NcclTransport::broadcast(distrt_dtype dtype, void *buf, int64_t count,
                              int64_t root, int64_t mask) {
  if (!memory::onDevice(buf))
    return bootstrap->broadcast(dtype, buf, count, root, mask);
  int64_t n = count;
  ncclDataType_t type = moveType(dtype, n);
  run(
      [&](CUstream s) {
        check(nccl.ncclBroadcast(buf, buf, static_cast<size_t>(n), type,
                                 static_cast<int>(root), comm(mask), s),
              "ncclBroadcast", mask);
      },
      waitText("ncclBroadcast", dtype, count, mask), mask,
      count * distrt_dtype_size(dtype), nullptr);
}

// The communicator of all the mesh's axes numbers its ranks as the world.
// NCCL has no tags: messages between two ranks arrive in the order sent.
void NcclTransport::message(bool sending, distrt_dtype dtype, void *buf,
                            int64_t count, int32_t peer) {
  int64_t n = count;
  ncclDataType_t type = moveType(dtype, n);
  const char *call = sending ? "ncclSend" : "ncclRecv";
  run(
      [&](CUstream s) {
        check(sending ? nccl.ncclSend(buf, static_cast<size_t>(n), type, peer,
                                      comm(meshAxes), s)
                      : nccl.ncclRecv(buf, static_cast<size_t>(n), type, peer,
                                      comm(meshAxes), s),
              call, meshAxes);
      },
      waitText(call, dtype, count, 0) + (sending ? " to rank " : " from rank ") +
          std::to_string(peer),
      meshAxes, count * distrt_dtype_size(dtype), nullptr);
}

void NcclTransport::send(distrt_dtype dtype, const void *buf, int64_t count,
                         int32_t peer, int32_t tag) {
  if (!memory::onDevice(buf))
    return bootstrap->send(dtype, buf, count, peer, tag);
  message(true, dtype, const_cast<void *>(buf), count, peer);
}

void NcclTransport::recv(distrt_dtype dtype, void *buf, int64_t count,
                         int32_t peer, int32_t tag) {
  if (!memory::onDevice(buf))
    return bootstrap->recv(dtype, buf, count, peer, tag);
  message(false, dtype, buf, count, peer);
}

} // namespace

std::unique_ptr<Transport> withNccl(std::unique_ptr<Transport> bootstrap,
                                    std::string &error) {
  if (!cuda::opened())
    return bootstrap;
  Nccl nccl;
  if (!load(nccl, error)) {
    error = "this program runs on a GPU, and a mesh of GPUs needs NCCL: " +
            error +
            " (install NCCL, e.g. pip install nvidia-nccl-cu13, or set "
            "DISTRT_NCCL to its libnccl.so.2)";
    return nullptr;
  }
  return std::make_unique<NcclTransport>(std::move(bootstrap),
                                         std::move(nccl));
}

} // namespace distrt::comm::transport
