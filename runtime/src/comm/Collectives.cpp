//===- Collectives.cpp - Collectives over the groups of the mesh ----------===//
//
// The checks every collective makes (a bad argument ends the job: compiled
// code has no error path), the work done locally (a group of one is a copy;
// a gather or scatter along an inner dimension rearranges through a
// temporary; a mean divides a sum), and the blocking entry points. The
// transport moves the data (Comm.h).
//
//===----------------------------------------------------------------------===//

#include "../core/HalfFloat.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "Comm.h"

#include <cstring>
#include <memory>

namespace distrt::comm {

namespace {

/// The dtype as an enum; fatal if it is not one.
distrt_dtype checkedDtype(const char *what, int32_t dtype) {
  if (dtype < 0 || dtype >= DISTRT_NUM_DTYPES)
    fatal("%s: bad dtype %d", what, dtype);
  return static_cast<distrt_dtype>(dtype);
}

bool isFloat(distrt_dtype dtype) {
  return dtype == DISTRT_F32 || dtype == DISTRT_F64 || dtype == DISTRT_F16 ||
         dtype == DISTRT_BF16;
}

/// The dtype of a reduction with `op`; fatal unless the pair is supported.
distrt_dtype checkedReduction(const char *what, int32_t dtype, int32_t op) {
  distrt_dtype type = checkedDtype(what, dtype);
  if (op < DISTRT_OP_SUM || op > DISTRT_OP_MEAN)
    fatal("%s: op %d is not one of 0 (sum), 1 (max), 2 (min), 3 (mean)", what,
          op);
  if (type == DISTRT_BOOL && op != DISTRT_OP_MAX && op != DISTRT_OP_MIN)
    fatal("%s: bool reduces with op 1 (max) or 2 (min) only, not %d", what, op);
  if (op == DISTRT_OP_MEAN && !isFloat(type))
    fatal("%s: op 3 (mean) needs a float dtype, not %s", what,
          distrt_dtype_name(type));
  return type;
}

void checkSize(const char *what, const char *name, int64_t value) {
  if (value < 0)
    fatal("%s: %s is %lld", what, name, static_cast<long long>(value));
}

/// outer * inner * group, in bytes, if it fits; fatal otherwise.
size_t checkedBytes(const char *what, distrt_dtype dtype, int64_t outer,
                    int64_t inner, int64_t group) {
  checkSize(what, "outer", outer);
  checkSize(what, "inner", inner);
  __int128 bytes = static_cast<__int128>(outer) * inner * group *
                   static_cast<__int128>(distrt_dtype_size(dtype));
  if (bytes > (static_cast<__int128>(1) << 62))
    fatal("%s: %lld x %lld elements of %s per rank is too large", what,
          static_cast<long long>(outer), static_cast<long long>(inner),
          distrt_dtype_name(dtype));
  return static_cast<size_t>(bytes);
}

void checkBuffer(const char *what, const char *name, const void *buffer,
                 size_t bytes) {
  if (!buffer && bytes)
    fatal("%s: %s is NULL", what, name);
}

/// Divides `count` elements by `divisor` (the mean after a sum).
void divide(distrt_dtype dtype, void *buf, int64_t count, int64_t divisor) {
  if (divisor == 1)
    return;
  if (dtype == DISTRT_F32) {
    float *values = static_cast<float *>(buf);
    float by = static_cast<float>(divisor);
    for (int64_t i = 0; i < count; ++i)
      values[i] /= by;
  } else if (dtype == DISTRT_F16 || dtype == DISTRT_BF16) {
    uint16_t *values = static_cast<uint16_t *>(buf);
    float by = static_cast<float>(divisor);
    for (int64_t i = 0; i < count; ++i)
      values[i] = floatToHalf(dtype, halfToFloat(dtype, values[i]) / by);
  } else {
    double *values = static_cast<double *>(buf);
    double by = static_cast<double>(divisor);
    for (int64_t i = 0; i < count; ++i)
      values[i] /= by;
  }
}

/// Copies block g of each row: out[o, i] = in[o, g * inner + i] for
/// `groups` blocks per row of `in` (a [outer, groups * inner] tensor).
void takeBlock(bool device, const char *in, char *out, int64_t outer,
               size_t innerBytes, int64_t groups, int64_t g) {
  memory::copy2D(device, out, innerBytes, in + g * innerBytes,
                 groups * innerBytes, innerBytes, outer);
}

/// [outer, G, inner] <-> [G, outer, inner]: `toGroupMajor` gathers each
/// rank's blocks into one run (for the transport), else back.
void transpose(bool device, const char *in, char *out, int64_t outer,
               size_t innerBytes, int64_t groups, bool toGroupMajor) {
  for (int64_t g = 0; g < groups; ++g) {
    const size_t rowMajor = g * innerBytes, rowPitch = groups * innerBytes;
    const size_t groupMajor = g * outer * innerBytes;
    if (toGroupMajor)
      memory::copy2D(device, out + groupMajor, innerBytes, in + rowMajor,
                     rowPitch, innerBytes, outer);
    else
      memory::copy2D(device, out + rowMajor, rowPitch, in + groupMajor,
                     innerBytes, innerBytes, outer);
  }
}

/// Whether a collective over the group of `mask` (of `group` ranks) goes
/// through the transport: a group of several; a group of one only under
/// DISTRT_COMM_ALWAYS=1, over the mesh's own axes.
bool viaTransport(int64_t group, int64_t mask) {
  const Mesh &m = mesh();
  return group > 1 || (m.alwaysTransport && m.connected &&
                       (mask & ((int64_t(1) << m.ndims) - 1)) != 0);
}

/// Whether the buffers of a collective are on the GPU: both or neither
/// (fatal otherwise), and on the GPU only with a transport that moves
/// device memory (NCCL).
bool onDevice(const char *what, const void *in, const void *out) {
  bool device = memory::onDevice(out);
  if (in && in != out && memory::onDevice(in) != device)
    fatal("%s: its input is in %s memory and its output in %s memory: both "
          "must be on the GPU, or both on the host",
          what, device ? "host" : "GPU", device ? "GPU" : "host");
  const transport::Transport *active = transport::current();
  if (device && active && !active->movesDeviceMemory())
    fatal("%s: a GPU buffer, but the mesh's transport is %s: open the CUDA "
          "device (distrt_cuda_init) before joining the mesh "
          "(distrt_comm_init), so that NCCL carries its collectives",
          what, active->name());
  return device;
}

/// The op the transport gets for `op` on `buf`: a mean is a sum that the
/// collective divides, unless the transport averages itself.
int32_t transportOp(int32_t op, const void *buf) {
  return op == DISTRT_OP_MEAN && !transport::current()->reducesMean(buf)
             ? DISTRT_OP_SUM
             : op;
}

/// Runs `finish` now, or leaves it for distrt_wait.
void complete(Completion *async, std::function<void()> finish) {
  if (async)
    async->finish = std::move(finish);
  else if (finish)
    finish();
}

} // namespace

float halfToFloat(distrt_dtype dtype, uint16_t bits) {
  return dtype == DISTRT_F16 ? model::float16ToFloat(bits)
                             : model::bfloat16ToFloat(bits);
}

uint16_t floatToHalf(distrt_dtype dtype, float value) {
  return dtype == DISTRT_F16 ? model::floatToFloat16(value)
                             : model::floatToBfloat16(value);
}

namespace {

#if defined(__x86_64__)
/// The float16 sum with the F16C conversions, 8 elements at a time (IEEE
/// round-to-nearest-even, as model::floatToFloat16); returns how many it
/// summed (a multiple of 8).
__attribute__((target("avx,f16c"))) int64_t
sumFloat16F16C(const uint16_t *from, uint16_t *to, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 a = _mm256_cvtph_ps(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i)));
    __m256 b = _mm256_cvtph_ps(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(to + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(to + i),
                     _mm256_cvtps_ph(_mm256_add_ps(a, b),
                                     _MM_FROUND_TO_NEAREST_INT));
  }
  return i;
}

bool hasF16C() {
  static const bool has =
      __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return has;
}
#endif


template <distrt_dtype Dtype>
void combineHalvesOf(int32_t op, uint16_t *to, const uint16_t *from,
                     int64_t count) {
  int64_t start = 0;
#if defined(__x86_64__)
  if (Dtype == DISTRT_F16 && op == DISTRT_OP_SUM && hasF16C())
    start = sumFloat16F16C(from, to, count);
#endif
  auto widen = [](uint16_t bits) {
    return Dtype == DISTRT_F16 ? model::float16ToFloat(bits)
                               : model::bfloat16ToFloat(bits);
  };
  auto narrow = [](float value) {
    return Dtype == DISTRT_F16 ? model::floatToFloat16(value)
                               : model::floatToBfloat16(value);
  };
  for (int64_t i = start; i < count; ++i) {
    float a = widen(to[i]), b = widen(from[i]);
    float r = op == DISTRT_OP_SUM   ? a + b
              : op == DISTRT_OP_MAX ? (a > b ? a : b)
                                    : (a < b ? a : b);
    to[i] = narrow(r);
  }
}

} // namespace

void combineHalves(distrt_dtype dtype, int32_t op, uint16_t *to,
                   const uint16_t *from, int64_t count) {
  if (dtype == DISTRT_F16)
    combineHalvesOf<DISTRT_F16>(op, to, from, count);
  else
    combineHalvesOf<DISTRT_BF16>(op, to, from, count);
}

void allReduce(const char *what, int32_t dtype, int32_t op, void *buf,
               int64_t count, int64_t mask, Completion *async) {
  distrt_dtype type = checkedReduction(what, dtype, op);
  int64_t group = checkedGroup(what, mask);
  checkBuffer(what, "buf", buf, checkedBytes(what, type, 1, count, 1));
  if (!viaTransport(group, mask) || count == 0)
    return;
  onDevice(what, buf, buf);
  int32_t sent = transportOp(op, buf);
  transport::allReduce(type, sent, buf, count, mask,
                       async ? &async->wait : nullptr);
  if (sent != op)
    complete(async, [=] { divide(type, buf, count, group); });
}

void allGather(const char *what, int32_t dtype, const void *in, void *out,
               int64_t outer, int64_t inner, int64_t mask, Completion *async) {
  distrt_dtype type = checkedDtype(what, dtype);
  int64_t group = checkedGroup(what, mask);
  size_t bytes = checkedBytes(what, type, outer, inner, group);
  checkBuffer(what, "in", in, bytes / group);
  checkBuffer(what, "out", out, bytes);
  bool device = onDevice(what, in, out);
  if (!viaTransport(group, mask)) {
    if (in != out)
      memory::copy(device, out, in, bytes);
    return;
  }
  if (bytes == 0)
    return;
  if (outer == 1) {
    transport::allGather(type, in, out, inner, mask,
                         async ? &async->wait : nullptr);
    return;
  }
  // Each rank's [outer, inner] lands as one run of a temporary, then moves
  // to its columns of `out`.
  std::shared_ptr<char> gathered = memory::scratch(device, bytes);
  transport::allGather(type, in, gathered.get(), outer * inner, mask,
                       async ? &async->wait : nullptr);
  size_t innerBytes = static_cast<size_t>(inner) * distrt_dtype_size(type);
  complete(async, [=] {
    transpose(device, gathered.get(), static_cast<char *>(out), outer,
              innerBytes, group, false);
  });
}

void reduceScatter(const char *what, int32_t dtype, int32_t op, const void *in,
                   void *out, int64_t outer, int64_t inner, int64_t mask,
                   Completion *async) {
  distrt_dtype type = checkedReduction(what, dtype, op);
  int64_t group = checkedGroup(what, mask);
  size_t bytes = checkedBytes(what, type, outer, inner, group);
  checkBuffer(what, "in", in, bytes);
  checkBuffer(what, "out", out, bytes / group);
  bool device = onDevice(what, in, out);
  if (!viaTransport(group, mask)) {
    if (in != out)
      memory::copy(device, out, in, bytes);
    return;
  }
  if (bytes == 0)
    return;
  int64_t count = outer * inner;
  std::function<void()> *wait = async ? &async->wait : nullptr;
  int32_t sent = transportOp(op, out);
  if (outer == 1) {
    transport::reduceScatter(type, sent, in, out, count, mask, wait);
  } else {
    // The blocks of each group rank, made one run each.
    std::shared_ptr<char> blocks = memory::scratch(device, bytes);
    size_t innerBytes = static_cast<size_t>(inner) * distrt_dtype_size(type);
    transpose(device, static_cast<const char *>(in), blocks.get(), outer,
              innerBytes, group, true);
    transport::reduceScatter(type, sent, blocks.get(), out, count, mask, wait);
    if (wait) // keep the blocks until the wait
      *wait = [blocks, started = *wait] { started(); };
  }
  if (sent != op)
    complete(async, [=] { divide(type, out, count, group); });
}

} // namespace distrt::comm

using namespace distrt::comm;

extern "C" void distrt_all_reduce(distrt_dtype dtype, distrt_reduce_op op,
                                  void *buf, int64_t count, int64_t axes_mask) {
  allReduce("distrt_all_reduce", dtype, op, buf, count, axes_mask, nullptr);
}

extern "C" void distrt_all_gather(distrt_dtype dtype, const void *in, void *out,
                                  int64_t outer, int64_t inner,
                                  int64_t axes_mask) {
  allGather("distrt_all_gather", dtype, in, out, outer, inner, axes_mask,
            nullptr);
}

extern "C" void distrt_reduce_scatter(distrt_dtype dtype, distrt_reduce_op op,
                                      const void *in, void *out, int64_t outer,
                                      int64_t inner, int64_t axes_mask) {
  reduceScatter("distrt_reduce_scatter", dtype, op, in, out, outer, inner,
                axes_mask, nullptr);
}

extern "C" void distrt_shard_slice(distrt_dtype dtype, const void *in,
                                   void *out, int64_t outer, int64_t inner,
                                   int64_t axes_mask) {
  const char *what = "distrt_shard_slice";
  distrt_dtype type = checkedDtype(what, dtype);
  if (axes_mask < 0 || axes_mask >= (int64_t(1) << kMaxDims))
    checkedGroup(what, axes_mask); // fatal
  // No communication: a finalized or uninitialized mesh is fine here.
  int64_t group = mesh().sizeOf(axes_mask);
  size_t bytes = checkedBytes(what, type, outer, inner, group);
  checkBuffer(what, "in", in, bytes);
  checkBuffer(what, "out", out, bytes / group);
  bool device = memory::onDevice(out);
  if (in != out && memory::onDevice(in) != device)
    fatal("%s: its input and output must both be on the GPU, or both on the "
          "host",
          what);
  if (group == 1) {
    if (in != out)
      memory::copy(device, out, in, bytes);
    return;
  }
  takeBlock(device, static_cast<const char *>(in), static_cast<char *>(out),
            outer,
            static_cast<size_t>(inner) * distrt_dtype_size(type), group,
            mesh().indexOn(mesh().rank, axes_mask));
}

extern "C" void distrt_broadcast(distrt_dtype dtype, void *buf, int64_t count,
                                 int64_t root_group_rank, int64_t axes_mask) {
  const char *what = "distrt_broadcast";
  distrt_dtype type = checkedDtype(what, dtype);
  int64_t group = checkedGroup(what, axes_mask);
  if (root_group_rank < 0 || root_group_rank >= group)
    fatal("%s: root %lld is not a rank of a group of %lld", what,
          static_cast<long long>(root_group_rank),
          static_cast<long long>(group));
  checkBuffer(what, "buf", buf, checkedBytes(what, type, 1, count, 1));
  if (viaTransport(group, axes_mask) && count > 0)
    transport::broadcast(type, buf, count, root_group_rank, axes_mask);
}

namespace {

/// Checks a send or recv; false when there is nothing to move.
bool checkPeer(const char *what, int32_t dtype, const void *buf, int64_t count,
               int32_t peer, int32_t tag) {
  distrt_dtype type = checkedDtype(what, dtype);
  checkBuffer(what, "buf", buf, checkedBytes(what, type, 1, count, 1));
  const Mesh &m = mesh();
  if (peer < 0 || peer >= m.devices || peer == m.rank)
    fatal("%s: peer %d is not another rank of the job (this is rank %d of "
          "%lld)",
          what, peer, m.rank, static_cast<long long>(m.devices));
  if (tag < 0)
    fatal("%s: tag %d is negative", what, tag);
  if (!m.connected)
    checkedGroup(what, (int64_t(1) << kMaxDims) - 1); // fatal: no mesh
  return count > 0;
}

} // namespace

extern "C" void distrt_send(distrt_dtype dtype, const void *buf, int64_t count,
                            int32_t peer_world_rank, int32_t tag) {
  if (checkPeer("distrt_send", dtype, buf, count, peer_world_rank, tag))
    transport::send(static_cast<distrt_dtype>(dtype), buf, count,
                    peer_world_rank, tag);
}

extern "C" void distrt_recv(distrt_dtype dtype, void *buf, int64_t count,
                            int32_t peer_world_rank, int32_t tag) {
  if (checkPeer("distrt_recv", dtype, buf, count, peer_world_rank, tag))
    transport::recv(static_cast<distrt_dtype>(dtype), buf, count,
                    peer_world_rank, tag);
}

extern "C" int32_t distrt_recv_any(distrt_dtype dtype, void *buf,
                                   int64_t count, int32_t tag) {
  const char *what = "distrt_recv_any";
  distrt_dtype type = checkedDtype(what, dtype);
  checkBuffer(what, "buf", buf, checkedBytes(what, type, 1, count, 1));
  if (tag < 0)
    fatal("%s: tag %d is negative", what, tag);
  if (mesh().devices < 2 || !mesh().connected)
    fatal("%s: no other rank (a mesh of %lld)", what,
          static_cast<long long>(mesh().devices));
  return transport::recvAny(type, buf, count, tag);
}

extern "C" void distrt_barrier(int64_t axes_mask) {
  if (viaTransport(checkedGroup("distrt_barrier", axes_mask), axes_mask))
    transport::barrier(axes_mask);
}
