//===- Comm.h - The device mesh and its collectives (internal) --*- C++ -*-===//
//
// What the files of src/comm share: the mesh this process is a device of
// (Mesh.cpp), the checks and local work of the collectives (Collectives.cpp)
// and the transport that moves the data between processes (MPI or TCP).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_COMM_COMM_H
#define DISTRT_COMM_COMM_H

#include "distrt/distrt.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace distrt::comm {

constexpr int32_t kMaxDims = DISTRT_MAX_MESH_DIMS;

/// The mesh this process is a device of. Before distrt_comm_init, a single
/// device without axes.
struct Mesh {
  int32_t ndims = 0;
  int64_t shape[kMaxDims] = {1, 1, 1, 1}; // 1 beyond ndims
  int64_t devices = 1;
  int32_t rank = 0, localRank = 0;
  bool called = false;    // distrt_comm_init was called (once is allowed)
  bool finalized = false; // distrt_comm_finalize ended it
  bool connected = false; // a transport connects the processes
  /// DISTRT_COMM_ALWAYS=1: even a mesh of one device joins over the
  /// launcher's transport, and groups of one go through it (to test a
  /// transport, e.g. NCCL, on one device).
  bool alwaysTransport = false;

  /// The coordinate of world rank `rank` on `axis` (any of kMaxDims).
  int64_t coordinate(int64_t rank, int32_t axis) const;
  /// The row-major index of `rank`'s coordinates on the axes in `mask`
  /// (its group rank), or on the other axes (`mask` negated: its group).
  int64_t indexOn(int64_t rank, int64_t mask) const;
  /// The product of the sizes of the axes in `mask`.
  int64_t sizeOf(int64_t mask) const;
  /// "2x2 = 4 devices", "4 devices", "1 device".
  std::string describe() const;
};

/// The mesh of this process: with the transport's communicators and the
/// pending requests, the only state of distrt's collectives.
const Mesh &mesh();

/// This process's rank among those of its machine, as the launcher's
/// environment says (0 if it says nothing): which GPU it uses.
int32_t launcherLocalRank();

/// Prints `error: distrt: <message>` on stderr and ends the whole job.
[[noreturn]] void fatal(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// Ends the whole job with `status` (MPI_Abort if MPI is initialized).
[[noreturn]] void terminate(int status);

/// Whether `mask` selects only axes among kMaxDims; fatal otherwise, naming
/// the call `what`. Returns the size of its group.
int64_t checkedGroup(const char *what, int64_t mask);

/// A float16 or bfloat16 (`dtype`) as a float, and back (rounding to
/// nearest even): reductions of 16-bit floats compute in float.
float halfToFloat(distrt_dtype dtype, uint16_t bits);
uint16_t floatToHalf(distrt_dtype dtype, float value);
/// to[i] = to[i] op from[i] over `count` float16 or bfloat16 elements,
/// computed in float and rounded once: the 16-bit reductions of the MPI and
/// TCP transports (compressed gradient buckets run it over every element,
/// so the conversions are inline, and float16 sums use F16C on x86).
void combineHalves(distrt_dtype dtype, int32_t op, uint16_t *to,
                   const uint16_t *from, int64_t count);

//===--- Buffers on a GPU: src/cuda/DeviceMemory.cpp (NoCuda.cpp: none) ---===//
//
// The local work of a collective (a group of one's copy, the rearranging
// of an inner-dimension gather or scatter, temporaries) on the memory its
// buffers are in: host memory with memcpy, the open CUDA device's with
// copies ordered on its compute stream.

namespace memory {

/// Whether `pointer` is memory of distrt's open CUDA device.
bool onDevice(const void *pointer);
/// `height` rows of `width` bytes, `srcPitch` and `dstPitch` bytes apart:
/// memcpy on the host, a 2-D copy on the compute stream on the device.
void copy2D(bool device, void *dst, size_t dstPitch, const void *src,
            size_t srcPitch, size_t width, size_t height);
inline void copy(bool device, void *dst, const void *src, size_t bytes) {
  copy2D(device, dst, bytes, src, bytes, bytes, 1);
}
/// A temporary of `bytes` in host or device memory, freed (in stream
/// order) when the last copy of the pointer goes.
std::shared_ptr<char> scratch(bool device, size_t bytes);

/// The device's side of copy2D and scratch.
void deviceCopy2D(void *dst, size_t dstPitch, const void *src, size_t srcPitch,
                  size_t width, size_t height);
std::shared_ptr<char> deviceScratch(size_t bytes);

} // namespace memory

/// What a non-blocking collective leaves for distrt_wait: the transport's
/// wait, then the local work (rearranging the result, dividing a mean).
struct Completion {
  std::function<void()> wait, finish;
};

/// The collectives, checked and run: to the end when `async` is null, or
/// started with the rest of the work left in `*async` (Collectives.cpp).
void allReduce(const char *what, int32_t dtype, int32_t op, void *buf,
               int64_t count, int64_t mask, Completion *async);
void allGather(const char *what, int32_t dtype, const void *in, void *out,
               int64_t outer, int64_t inner, int64_t mask, Completion *async);
void reduceScatter(const char *what, int32_t dtype, int32_t op, const void *in,
                   void *out, int64_t outer, int64_t inner, int64_t mask,
                   Completion *async);

//===--- The watchdog: Watchdog.cpp ---------------------------------------===//

namespace watchdog {

/// The exit status of a process whose collective timed out.
constexpr int kTimeoutStatus = 4;

/// Starts (distrt_comm_init, several processes) and stops
/// (distrt_comm_finalize) the thread that ends the process when one wait
/// lasts longer than the collective timeout.
void start();
void stop();

/// The collective timeout in effect, in seconds (0: none).
double timeoutSeconds();

/// The axes of `mask`: "0, 1".
std::string axesText(int64_t mask);

/// The trace's arguments of a collective: "\"mesh_axes\": [0], \"bytes\": 8".
std::string traceArgs(int64_t mask, int64_t bytes);

/// Marks this process as waiting in `what` (e.g. "all-reduce of 1.5 MiB of
/// float32 over mesh axes {0}") for the group of `mask`, for its lifetime.
class Waiting {
public:
  /// `bytes`: what this rank sends or receives, for the trace.
  Waiting(std::string what, int64_t mask, int64_t bytes = -1);
  ~Waiting();
  Waiting(const Waiting &) = delete;
  Waiting &operator=(const Waiting &) = delete;

private:
  uint64_t startNs = 0; // when traced
  int64_t mask, bytes;
  std::string what;
};

} // namespace watchdog

/// Rank 0's board of every rank's progress (ProgressBoard.cpp), so that a
/// rank whose collective timed out can name the ranks it waits for.
namespace board {

/// What the board knows of one rank.
struct Entry {
  bool known = false; // it reported at least once
  bool gone = false;  // its connection closed: the process ended
  int64_t count = 0;  // waits it has started
  std::string step;   // at the latest of them
  double ageSeconds = -1; // since it was last heard from
  double frozenSeconds = 0; // its longest recent stop (its process did not run)
};

/// Opens (rank 0) or connects to the board: a collective call of every
/// rank, after the transport's groups exist. Without it, timeouts still
/// work but name no rank.
void open(int32_t rank, int32_t world, int64_t allMask);
void close();
/// This rank's progress; sent by the watchdog thread.
void report(int32_t rank, int64_t count, double frozenSeconds,
            const std::string &step);
/// Every rank's progress as rank 0 has it; false if rank 0 does not answer
/// within 3 s.
bool query(int32_t rank, std::vector<Entry> &table);

} // namespace board

//===--- The transport: Transport.cpp, with Mpi.cpp and Tcp.cpp ------------===//
//
// The transport moves the data between the processes: MPI under an MPI
// launcher (Mpi.cpp; NoMpi.cpp in a build without MPI), TCP sockets when
// the processes were started torchrun-style (Tcp.cpp). Each call below
// names a group of more than one rank by its mask; it runs or (with a
// non-null `wait`) starts the operation, and ends the job through fatal()
// when the transport fails. Counts are in elements of `dtype`.

namespace transport {

/// One way of moving data; the mesh uses one, chosen from the launcher.
class Transport {
public:
  virtual ~Transport() = default;
  /// "MPI", "TCP".
  virtual const char *name() const = 0;
  /// Connects this process to the others and says which rank it is of
  /// how many; false with `error` set if it cannot.
  virtual bool start(int32_t &rank, int32_t &world, std::string &error) = 0;
  /// How many processes of the job share this machine; a collective call.
  virtual int32_t localSize() = 0;
  /// Prepares the group of every non-empty set of axes of `mesh`.
  virtual bool createGroups(const Mesh &mesh, std::string &error) = 0;
  /// Completes what was started and never waited for (under the watchdog),
  /// before the mesh ends.
  virtual void drain() {}
  /// Whether a reduction of the buffer at `buf` takes DISTRT_OP_MEAN itself
  /// (else it gets a sum, and the collective divides).
  virtual bool reducesMean(const void *buf) { return false; }
  /// Whether it moves GPU buffers (NCCL); the others move host memory.
  virtual bool movesDeviceMemory() const { return false; }
  /// An error the transport found on its own (NCCL's asynchronous errors),
  /// polled by the watchdog twice a second; empty if none.
  virtual std::string asyncError() { return ""; }
  /// Disconnects (finalizes MPI if start() initialized it).
  virtual void finish() = 0;
  /// Ends every process of the job with `status`, as far as it can.
  [[noreturn]] virtual void abort(int status) = 0;

  /// Reductions take sum, max or min (the mean is a sum, then a division).
  virtual void allReduce(distrt_dtype dtype, int32_t op, void *buf,
                         int64_t count, int64_t mask,
                         std::function<void()> *wait) = 0;
  /// `out` receives `count` elements of each rank, in group rank order.
  virtual void allGather(distrt_dtype dtype, const void *in, void *out,
                         int64_t count, int64_t mask,
                         std::function<void()> *wait) = 0;
  /// `in` holds `count` elements per group rank; `out` gets this rank's.
  virtual void reduceScatter(distrt_dtype dtype, int32_t op, const void *in,
                             void *out, int64_t count, int64_t mask,
                             std::function<void()> *wait) = 0;
  virtual void broadcast(distrt_dtype dtype, void *buf, int64_t count,
                         int64_t root, int64_t mask) = 0;
  virtual void send(distrt_dtype dtype, const void *buf, int64_t count,
                    int32_t peer, int32_t tag) = 0;
  virtual void recv(distrt_dtype dtype, void *buf, int64_t count,
                    int32_t peer, int32_t tag) = 0;
  /// Receives from whichever rank sends first with `tag`; returns its
  /// rank. Only MPI can (the others end the job saying so).
  virtual int32_t recvAny(distrt_dtype dtype, void *buf, int64_t count,
                          int32_t tag);
  virtual void barrier(int64_t mask) = 0;
};

/// The MPI transport (null in a build without MPI, `error` saying so).
std::unique_ptr<Transport> makeMpi(std::string &error);
/// The TCP transport of a torchrun-style launch: rank and world from
/// RANK and WORLD_SIZE, rank 0's store at MASTER_ADDR:MASTER_PORT.
std::unique_ptr<Transport> makeTcp();
/// Whether MPI is initialized and not finalized (by anyone; false without
/// MPI).
bool mpiActive();
/// With a CUDA device open, the NCCL transport over `bootstrap` (which it
/// uses to start and for host buffers); without one, `bootstrap` itself;
/// null with `error` set if NCCL cannot be loaded.
std::unique_ptr<Transport> withNccl(std::unique_ptr<Transport> bootstrap,
                                    std::string &error);

/// Makes `transport` the mesh's (before its start()), or drops it (null).
void use(std::unique_ptr<Transport> transport);
/// The mesh's transport; null before use().
Transport *current();

/// What a wait is for, as the watchdog reports it: "MPI_Allreduce of 1.50
/// MiB of float32 over mesh axes {0}".
std::string waitText(const char *call, distrt_dtype dtype, int64_t count,
                     int64_t mask);
/// distrt_wait's part of a collective started now: `block` (which waits
/// for it) under the watchdog; traced, the collective is a span in flight
/// from now to the end of the wait.
std::function<void()> tracedWait(std::function<void()> block, int64_t mask,
                                 std::string what, int64_t bytes);

// The calls of the mesh's collectives, on current().
void allReduce(distrt_dtype dtype, int32_t op, void *buf, int64_t count,
               int64_t mask, std::function<void()> *wait);
void allGather(distrt_dtype dtype, const void *in, void *out, int64_t count,
               int64_t mask, std::function<void()> *wait);
void reduceScatter(distrt_dtype dtype, int32_t op, const void *in, void *out,
                   int64_t count, int64_t mask, std::function<void()> *wait);
void broadcast(distrt_dtype dtype, void *buf, int64_t count, int64_t root,
               int64_t mask);
void send(distrt_dtype dtype, const void *buf, int64_t count, int32_t peer,
          int32_t tag);
void recv(distrt_dtype dtype, void *buf, int64_t count, int32_t peer,
          int32_t tag);
int32_t recvAny(distrt_dtype dtype, void *buf, int64_t count, int32_t tag);
void barrier(int64_t mask);

} // namespace transport

} // namespace distrt::comm

#endif // DISTRT_COMM_COMM_H
