//===- Mesh.cpp - The device mesh of a process ----------------------------===//
//
// distrt_comm_init: which process of the job this is (from the launcher's
// environment), whether the job has as many processes as the mesh has
// devices (checked before any communication, so a wrong `mpirun -np` is a
// clear error on every rank rather than a hang), and the communicators of
// the mesh's groups. A mesh of one device in one process never touches MPI.
//
//===----------------------------------------------------------------------===//

#include "../core/Error.h"
#include "Comm.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace distrt::comm {

namespace {

Mesh &state() {
  static Mesh mesh;
  return mesh;
}

constexpr int64_t kAllAxes = (int64_t(1) << kMaxDims) - 1;

/// What the launcher says about this process; world -1: not said.
struct Launch {
  int32_t rank = 0, world = 1;
  int32_t localSize = -1;         // processes on this machine; -1: not said
  const char *launcher = nullptr; // the variable that gave the rank
};

/// A non-negative decimal environment variable, or -1 (unset, empty or
/// not a number).
int64_t number(const char *variable) {
  const char *value = std::getenv(variable);
  if (!value || !*value)
    return -1;
  int64_t n = 0;
  for (const char *p = value; *p; ++p) {
    if (!std::isdigit(static_cast<unsigned char>(*p)) ||
        n > std::numeric_limits<int32_t>::max() / 10)
      return -1;
    n = n * 10 + (*p - '0');
  }
  return n <= std::numeric_limits<int32_t>::max() ? n : -1;
}

/// Open MPI's variables, then MPICH's (PMI), then torchrun's. The local
/// rank is launcherLocalRank()'s (the GPU's choice reads the same).
Launch fromEnvironment() {
  struct Names {
    const char *rank, *altRank, *world;
  };
  static const Names kLaunchers[] = {
      {"OMPI_COMM_WORLD_RANK", nullptr, "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMIX_RANK", "PMI_SIZE"},
      {"RANK", nullptr, "WORLD_SIZE"}};
  Launch launch;
  for (const Names &names : kLaunchers) {
    const char *variable = names.rank;
    int64_t rank = number(variable);
    if (rank < 0 && names.altRank)
      rank = number(variable = names.altRank);
    if (rank < 0)
      continue;
    int64_t world = number(names.world);
    launch.rank = static_cast<int32_t>(rank);
    launch.world = world > 0 ? static_cast<int32_t>(world) : -1;
    launch.launcher = variable;
    return launch;
  }
  return launch;
}

std::string mismatch(const Mesh &mesh, int32_t world,
                     const char *launcher = nullptr) {
  std::string devices = std::to_string(mesh.devices);
  bool torchrun = launcher && std::string(launcher) == "RANK";
  return "this program was compiled for a mesh of " + mesh.describe() +
         " but runs " +
         (world == 1 ? std::string("as a single process")
                     : "on " + std::to_string(world) + " processes") +
         (torchrun ? ": start " + devices +
                         " processes with WORLD_SIZE=" + devices +
                         " (torchrun: --nnodes times --nproc_per_node)"
          : mesh.devices == 1
              ? ": run it without mpirun (or with mpirun -np 1)"
              : ": run it with mpirun -np " + devices);
}

bool validAxis(int32_t axis) { return axis >= 0 && axis < kMaxDims; }

} // namespace

int64_t Mesh::coordinate(int64_t rank, int32_t axis) const {
  for (int32_t a = kMaxDims - 1; a > axis; --a)
    rank /= shape[a];
  return rank % shape[axis];
}

int64_t Mesh::indexOn(int64_t rank, int64_t mask) const {
  int64_t index = 0;
  for (int32_t axis = 0; axis < kMaxDims; ++axis)
    if (mask >> axis & 1)
      index = index * shape[axis] + coordinate(rank, axis);
  return index;
}

int64_t Mesh::sizeOf(int64_t mask) const {
  int64_t size = 1;
  for (int32_t axis = 0; axis < kMaxDims; ++axis)
    if (mask >> axis & 1)
      size *= shape[axis];
  return size;
}

std::string Mesh::describe() const {
  std::string text;
  for (int32_t axis = 0; axis < ndims; ++axis)
    text += (axis ? "x" : "") + std::to_string(shape[axis]);
  std::string count =
      std::to_string(devices) + (devices == 1 ? " device" : " devices");
  return ndims > 1 ? text + " = " + count : count;
}

const Mesh &mesh() { return state(); }

int32_t launcherLocalRank() {
  for (const char *variable :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "LOCAL_RANK",
        "SLURM_LOCALID", "PMIX_LOCAL_RANK"})
    if (int64_t local = number(variable); local >= 0)
      return static_cast<int32_t>(local);
  return 0;
}

void fatal(const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  std::fflush(stdout);
  std::fprintf(stderr, "error: distrt: %s\n", message);
  std::fflush(stderr);
  terminate(1);
}

void terminate(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (transport::Transport *active = transport::current())
    active->abort(status);
  std::exit(status);
}

int64_t checkedGroup(const char *what, int64_t mask) {
  if (mask < 0 || mask > kAllAxes)
    fatal("%s: axes_mask 0x%llx names axes beyond the %d a mesh may have", what,
          static_cast<unsigned long long>(mask), kMaxDims);
  int64_t size = state().sizeOf(mask);
  if (size > 1 && !state().connected)
    fatal("%s: a group of %lld devices, but %s", what,
          static_cast<long long>(size),
          state().finalized ? "distrt_comm_finalize has ended the mesh"
                            : "the mesh is not initialized");
  return size;
}

} // namespace distrt::comm

using namespace distrt::comm;

extern "C" int distrt_comm_init(int32_t ndims, const int64_t *mesh_shape) {
  Mesh &mesh = state();
  if (mesh.called)
    return distrt::fail("distrt_comm_init: called twice");
  mesh.called = true;
  if (ndims < 0 || ndims > kMaxDims || (ndims && !mesh_shape))
    return distrt::fail("distrt_comm_init: a mesh has 0 to %d axes, not %d",
                        kMaxDims, ndims);
  Mesh wanted;
  for (int32_t axis = 0; axis < ndims; ++axis) {
    int64_t size = mesh_shape[axis];
    if (size < 1 || size > std::numeric_limits<int32_t>::max() / wanted.devices)
      return distrt::fail("distrt_comm_init: mesh axis %d has size %lld (the "
                          "sizes must be >= 1, with fewer than 2^31 devices "
                          "in all)",
                          axis, static_cast<long long>(size));
    wanted.shape[axis] = size;
    wanted.devices *= size;
  }
  wanted.ndims = ndims;

  Launch launch = fromEnvironment();
  if (launch.world > 0 && launch.world != wanted.devices)
    return distrt::fail(
        "%s", mismatch(wanted, launch.world, launch.launcher).c_str());
  const char *always = std::getenv("DISTRT_COMM_ALWAYS");
  wanted.alwaysTransport = always && std::string(always) == "1" && ndims > 0;
  if (wanted.devices == 1 && !wanted.alwaysTransport) {
    wanted.called = true;
    wanted.localRank = launcherLocalRank();
    mesh = wanted;
    distrt_log(DISTRT_LOG_INFO,
               "mesh of 1 device: a single process, without MPI");
    return 0;
  }
  // Without a launcher's variables, only a program that initialized MPI
  // itself can be one of several processes.
  if (!launch.launcher && !transport::mpiActive())
    return distrt::fail("%s", mismatch(wanted, 1).c_str());

  // torchrun's variables (and no MPI launcher's): TCP; otherwise MPI.
  std::string error;
  std::unique_ptr<transport::Transport> chosen =
      launch.launcher && std::string(launch.launcher) == "RANK"
          ? transport::makeTcp()
          : transport::makeMpi(error);
  // A GPU's buffers go over NCCL, started over that transport.
  if (chosen)
    chosen = transport::withNccl(std::move(chosen), error);
  if (!chosen)
    return distrt::fail("%s", error.c_str());
  transport::use(std::move(chosen));
  transport::Transport &link = *transport::current();
  int32_t rank, world;
  if (!link.start(rank, world, error)) {
    transport::use(nullptr);
    return distrt::fail("%s", error.c_str());
  }
  if (world != wanted.devices) {
    link.finish();
    transport::use(nullptr);
    return distrt::fail("%s",
                        mismatch(wanted, world, launch.launcher).c_str());
  }
  wanted.called = true;
  wanted.rank = rank;
  wanted.localRank = launcherLocalRank();
  if (!link.createGroups(wanted, error)) {
    link.finish();
    transport::use(nullptr);
    return distrt::fail("%s", error.c_str());
  }
  wanted.connected = true;
  mesh = wanted;
  distrt_log(DISTRT_LOG_INFO, "mesh of %s: rank %d (local rank %d), over %s",
             mesh.describe().c_str(), mesh.rank, mesh.localRank,
             link.name());
  distrt::shareGemmThreads(link.localSize());
  watchdog::start();
  return 0;
}

extern "C" void distrt_comm_finalize(void) {
  Mesh &mesh = state();
  if (!mesh.called || mesh.finalized)
    return;
  if (mesh.connected)
    transport::current()->drain();
  watchdog::stop();
  if (mesh.connected) {
    transport::current()->finish();
    transport::use(nullptr);
  }
  mesh.connected = false;
  mesh.finalized = true;
}

extern "C" int32_t distrt_comm_rank(void) { return state().rank; }

extern "C" int32_t distrt_comm_world(void) {
  return static_cast<int32_t>(state().devices);
}

extern "C" int32_t distrt_comm_local_rank(void) { return state().localRank; }

extern "C" const char *distrt_comm_transport(void) {
  transport::Transport *link = transport::current();
  return link ? link->name() : "";
}

extern "C" int32_t distrt_mesh_ndims(void) { return state().ndims; }

extern "C" int64_t distrt_mesh_size(int32_t axis) {
  if (!validAxis(axis))
    return distrt::fail("distrt_mesh_size: no mesh axis %d", axis);
  return state().shape[axis];
}

extern "C" int64_t distrt_mesh_coord(int32_t axis) {
  if (!validAxis(axis))
    return distrt::fail("distrt_mesh_coord: no mesh axis %d", axis);
  return state().coordinate(state().rank, axis);
}

extern "C" int32_t distrt_mesh_peer(int32_t axis, int64_t coord) {
  if (!validAxis(axis))
    return distrt::fail("distrt_mesh_peer: no mesh axis %d", axis);
  const Mesh &mesh = state();
  if (coord < 0 || coord >= mesh.shape[axis])
    return distrt::fail("distrt_mesh_peer: coordinate %lld is not on mesh "
                        "axis %d of size %lld",
                        static_cast<long long>(coord), axis,
                        static_cast<long long>(mesh.shape[axis]));
  // Row-major: a step of one along `axis` is the product of the sizes of
  // the axes after it.
  int64_t stride = 1;
  for (int32_t a = axis + 1; a < kMaxDims; ++a)
    stride *= mesh.shape[a];
  return static_cast<int32_t>(
      mesh.rank + (coord - mesh.coordinate(mesh.rank, axis)) * stride);
}

extern "C" int64_t distrt_group_rank(int64_t axes_mask) {
  if (axes_mask < 0 || axes_mask > kAllAxes)
    return distrt::fail("distrt_group_rank: bad axes_mask 0x%llx",
                        static_cast<unsigned long long>(axes_mask));
  return state().indexOn(state().rank, axes_mask);
}

extern "C" int64_t distrt_group_size(int64_t axes_mask) {
  if (axes_mask < 0 || axes_mask > kAllAxes)
    return distrt::fail("distrt_group_size: bad axes_mask 0x%llx",
                        static_cast<unsigned long long>(axes_mask));
  return state().sizeOf(axes_mask);
}

extern "C" void distrt_comm_abort(int32_t status) { terminate(status); }
