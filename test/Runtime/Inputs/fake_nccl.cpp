//===- fake_nccl.cpp - NCCL's API between processes, on shared memory -----===//
//
// Built as libnccl.so.2 (bin/fake-nccl) and given to distrt with
// DISTRT_NCCL, next to the fake CUDA driver (whose "device" memory is host
// memory), it stands in for NCCL in the tests of distrt's NCCL transport on
// machines without GPUs: communicators of any size across processes, each
// a POSIX shared-memory segment named by the unique id. Every call runs to
// the end when it is made (streams are ignored, as the fake driver's are):
// each rank copies its part into its slot, a barrier, each reads what it
// needs (reductions in rank order, so every rank gets the same bits), a
// barrier. Large operations go in slot-sized chunks. Send/recv use one
// mailbox per ordered pair. Only what distrt calls is here.
//
//===----------------------------------------------------------------------===//

#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sched.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr size_t kSlot = size_t(1) << 20;    // per rank, per chunk
constexpr size_t kMailbox = size_t(1) << 18; // per ordered pair
constexpr size_t kHeader = 4096;

struct Shared {
  std::atomic<uint32_t> arrived, generation;
};

/// The calls made, printed at exit with FAKE_NCCL_COUNTS=1 (so a test
/// sees that the collectives went through NCCL).
struct Counts {
  int comms = 0;
  long allReduce = 0, allGather = 0, reduceScatter = 0, broadcast = 0,
       send = 0, recv = 0;
  ~Counts() {
    const char *print = std::getenv("FAKE_NCCL_COUNTS");
    if (print && std::strcmp(print, "1") == 0 && comms)
      std::fprintf(stderr,
                   "fake NCCL: %d communicators, %ld all-reduce, %ld "
                   "all-gather, %ld reduce-scatter, %ld broadcast, %ld send, "
                   "%ld recv\n",
                   comms, allReduce, allGather, reduceScatter, broadcast, send,
                   recv);
  }
} counts;

struct Mailbox {
  std::atomic<uint32_t> full;
  uint32_t pad;
  uint64_t bytes;
};

} // namespace

struct ncclComm {
  int rank = 0, size = 1;
  char *base = nullptr;
  size_t length = 0;
  Shared *shared() { return reinterpret_cast<Shared *>(base); }
  char *slot(int r) { return base + kHeader + size_t(r) * kSlot; }
  Mailbox *mailbox(int from, int to) {
    return reinterpret_cast<Mailbox *>(base + kHeader + size * kSlot +
                                       (size_t(from) * size + to) *
                                           (kMailbox + 64));
  }
  char *mailData(int from, int to) {
    return reinterpret_cast<char *>(mailbox(from, to)) + 64;
  }
  void barrier() {
    Shared *s = shared();
    uint32_t generation = s->generation.load();
    if (s->arrived.fetch_add(1) + 1 == static_cast<uint32_t>(size)) {
      s->arrived.store(0);
      s->generation.fetch_add(1);
      return;
    }
    while (s->generation.load() == generation)
      sched_yield();
  }
};

namespace {

size_t typeSize(ncclDataType_t type) {
  switch (type) {
  case ncclInt8: case ncclUint8: return 1;
  case ncclFloat16: case ncclBfloat16: return 2;
  case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
  default: return 8;
  }
}

float halfToFloat(ncclDataType_t type, uint16_t bits) {
  uint32_t word;
  if (type == ncclBfloat16) {
    word = uint32_t(bits) << 16;
  } else {
    uint32_t sign = uint32_t(bits & 0x8000) << 16, exponent = bits >> 10 & 31,
             mantissa = bits & 0x3ff;
    if (exponent == 0) {
      float value = std::ldexp(static_cast<float>(mantissa), -24);
      return sign ? -value : value;
    }
    word = sign | (exponent == 31 ? 0xff << 23 : (exponent + 112) << 23) |
           mantissa << 13;
  }
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

uint16_t floatToHalf(ncclDataType_t type, float value) {
  uint32_t word;
  std::memcpy(&word, &value, 4);
  if (type == ncclBfloat16) // round to nearest even
    return static_cast<uint16_t>((word + 0x7fff + (word >> 16 & 1)) >> 16);
  // float16, rounded to nearest even in double arithmetic: the step at the
  // value's binade (2^(e-11), or the subnormal 2^-24), nearbyint in the
  // default rounding mode.
  uint32_t sign = word >> 16 & 0x8000;
  double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= 65520.0) // rounds to 65536 or more
    return static_cast<uint16_t>(sign | 0x7c00);
  int binade;
  std::frexp(magnitude, &binade); // magnitude in [2^(binade-1), 2^binade)
  double step = std::ldexp(1.0, std::max(binade, -13) - 11);
  double rounded = std::nearbyint(magnitude / step) * step;
  if (rounded < std::ldexp(1.0, -14)) // subnormal (or zero)
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(
                                            std::ldexp(rounded, 24)));
  int exponent = std::ilogb(rounded);
  uint32_t mantissa = static_cast<uint32_t>(
      std::ldexp(rounded, 10 - exponent) - 1024.0);
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(exponent + 15)
                                          << 10 | mantissa);
}

template <typename T>
void combine(ncclRedOp_t op, T *to, const T *from, size_t n) {
  for (size_t i = 0; i < n; ++i)
    to[i] = op == ncclMax   ? std::max(to[i], from[i])
            : op == ncclMin ? std::min(to[i], from[i])
                            : static_cast<T>(to[i] + from[i]);
}

template <typename T> void scale(T *values, size_t n, int by) {
  for (size_t i = 0; i < n; ++i)
    values[i] = static_cast<T>(values[i] / by);
}

/// to = to (op) from, for `n` elements of `type`.
void reduce(ncclDataType_t type, ncclRedOp_t op, void *to, const void *from,
            size_t n) {
  switch (type) {
  case ncclFloat32:
    return combine(op, static_cast<float *>(to), static_cast<const float *>(from), n);
  case ncclFloat64:
    return combine(op, static_cast<double *>(to), static_cast<const double *>(from), n);
  case ncclInt64:
    return combine(op, static_cast<int64_t *>(to), static_cast<const int64_t *>(from), n);
  case ncclUint64:
    return combine(op, static_cast<uint64_t *>(to), static_cast<const uint64_t *>(from), n);
  case ncclInt32:
    return combine(op, static_cast<int32_t *>(to), static_cast<const int32_t *>(from), n);
  case ncclUint32:
    return combine(op, static_cast<uint32_t *>(to), static_cast<const uint32_t *>(from), n);
  case ncclInt8:
    return combine(op, static_cast<int8_t *>(to), static_cast<const int8_t *>(from), n);
  case ncclUint8:
    return combine(op, static_cast<uint8_t *>(to), static_cast<const uint8_t *>(from), n);
  default: { // 16-bit floats, in float
    uint16_t *t = static_cast<uint16_t *>(to);
    const uint16_t *f = static_cast<const uint16_t *>(from);
    for (size_t i = 0; i < n; ++i) {
      float a = halfToFloat(type, t[i]), b = halfToFloat(type, f[i]);
      t[i] = floatToHalf(type, op == ncclMax   ? std::max(a, b)
                               : op == ncclMin ? std::min(a, b)
                                               : a + b);
    }
  }
  }
}

/// The mean after a sum (ncclAvg), for float types.
void average(ncclDataType_t type, void *values, size_t n, int by) {
  if (type == ncclFloat32)
    return scale(static_cast<float *>(values), n, by);
  if (type == ncclFloat64)
    return scale(static_cast<double *>(values), n, by);
  uint16_t *v = static_cast<uint16_t *>(values);
  for (size_t i = 0; i < n; ++i)
    v[i] = floatToHalf(type, halfToFloat(type, v[i]) / by);
}

/// The reduction over the ranks' slots of `n` elements at `offset`, in
/// rank order, into `out`.
void reduceSlots(ncclComm *comm, ncclDataType_t type, ncclRedOp_t op,
                 size_t offset, size_t n, void *out) {
  size_t bytes = n * typeSize(type);
  std::memcpy(out, comm->slot(0) + offset, bytes);
  for (int r = 1; r < comm->size; ++r)
    reduce(type, op == ncclAvg ? ncclSum : op, out, comm->slot(r) + offset, n);
  if (op == ncclAvg)
    average(type, out, n, comm->size);
}

} // namespace

extern "C" {

ncclResult_t ncclGetVersion(int *version) {
  *version = 22800;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  return result == ncclSuccess       ? "no error"
         : result == ncclRemoteError ? "remote process exited or there was "
                                       "a network error (fake NCCL)"
                                     : "fake NCCL error";
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  std::random_device random;
  std::memset(id->internal, 0, sizeof(id->internal));
  std::snprintf(id->internal, sizeof(id->internal), "/fake-nccl-%d-%08x%08x",
                static_cast<int>(::getpid()), random(), random());
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *out, int nranks, ncclUniqueId id,
                              int rank) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return ncclInvalidArgument;
  auto *comm = new ncclComm;
  comm->rank = rank;
  comm->size = nranks;
  comm->length = kHeader + size_t(nranks) * kSlot +
                 size_t(nranks) * nranks * (kMailbox + 64);
  int fd = ::shm_open(id.internal, O_CREAT | O_RDWR, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(comm->length)) != 0)
    return ncclSystemError;
  void *base = ::mmap(nullptr, comm->length, PROT_READ | PROT_WRITE,
                      MAP_SHARED, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED)
    return ncclSystemError;
  comm->base = static_cast<char *>(base);
  comm->barrier(); // everyone has it mapped: the name may go
  if (rank == 0)
    ::shm_unlink(id.internal);
  *out = comm;
  ++counts.comms;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  ::munmap(comm->base, comm->length);
  delete comm;
  return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
// FAKE_NCCL_ASYNC_ERROR_AFTER=N: a remote error once N all-reduces ran.
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *error) {
  const char *after = std::getenv("FAKE_NCCL_ASYNC_ERROR_AFTER");
  *error = after && counts.allReduce >= std::atol(after) ? ncclRemoteError
                                                         : ncclSuccess;
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
                           ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t) {
  ++counts.allReduce;
  size_t size = typeSize(type), chunk = kSlot / size;
  for (size_t at = 0; at < count; at += chunk) {
    size_t n = std::min(chunk, count - at);
    std::memcpy(comm->slot(comm->rank),
                static_cast<const char *>(send) + at * size, n * size);
    comm->barrier();
    reduceSlots(comm, type, op, 0, n, static_cast<char *>(recv) + at * size);
    comm->barrier();
  }
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
                           ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t) {
  ++counts.allGather;
  size_t size = typeSize(type), chunk = kSlot / size;
  for (size_t at = 0; at < count; at += chunk) {
    size_t n = std::min(chunk, count - at);
    std::memcpy(comm->slot(comm->rank),
                static_cast<const char *>(send) + at * size, n * size);
    comm->barrier();
    for (int r = 0; r < comm->size; ++r)
      std::memcpy(static_cast<char *>(recv) + (r * count + at) * size,
                  comm->slot(r), n * size);
    comm->barrier();
  }
  return ncclSuccess;
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count,
                               ncclDataType_t type, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t) {
  ++counts.reduceScatter;
  // Each slot holds, per chunk, this rank's piece of every rank's block.
  size_t size = typeSize(type), chunk = kSlot / size / comm->size;
  for (size_t at = 0; at < count; at += chunk) {
    size_t n = std::min(chunk, count - at);
    for (int b = 0; b < comm->size; ++b)
      std::memcpy(comm->slot(comm->rank) + b * chunk * size,
                  static_cast<const char *>(send) + (b * count + at) * size,
                  n * size);
    comm->barrier();
    reduceSlots(comm, type, op, comm->rank * chunk * size, n,
                static_cast<char *>(recv) + at * size);
    comm->barrier();
  }
  return ncclSuccess;
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count,
                           ncclDataType_t type, int root, ncclComm_t comm,
                           cudaStream_t) {
  ++counts.broadcast;
  size_t size = typeSize(type), chunk = kSlot / size;
  for (size_t at = 0; at < count; at += chunk) {
    size_t n = std::min(chunk, count - at);
    if (comm->rank == root)
      std::memcpy(comm->slot(root), static_cast<const char *>(send) + at * size,
                  n * size);
    comm->barrier();
    std::memcpy(static_cast<char *>(recv) + at * size, comm->slot(root),
                n * size);
    comm->barrier();
  }
  return ncclSuccess;
}

ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t type,
                      int peer, ncclComm_t comm, cudaStream_t) {
  ++counts.send;
  size_t bytes = count * typeSize(type);
  Mailbox *box = comm->mailbox(comm->rank, peer);
  for (size_t at = 0; at < bytes || at == 0; at += kMailbox) {
    while (box->full.load())
      sched_yield();
    size_t n = std::min(kMailbox, bytes - at);
    std::memcpy(comm->mailData(comm->rank, peer),
                static_cast<const char *>(send) + at, n);
    box->bytes = n;
    box->full.store(1);
    if (bytes == 0)
      break;
  }
  return ncclSuccess;
}

ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t) {
  ++counts.recv;
  size_t bytes = count * typeSize(type);
  Mailbox *box = comm->mailbox(peer, comm->rank);
  for (size_t at = 0; at < bytes || at == 0; at += kMailbox) {
    while (!box->full.load())
      sched_yield();
    if (box->bytes != std::min(kMailbox, bytes - at))
      return ncclInvalidUsage; // the sizes of send and recv differ
    std::memcpy(static_cast<char *>(recv) + at,
                comm->mailData(peer, comm->rank), box->bytes);
    box->full.store(0);
    if (bytes == 0)
      break;
  }
  return ncclSuccess;
}

} // extern "C"
