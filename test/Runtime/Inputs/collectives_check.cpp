//===- collectives_check.cpp - distrt's collectives against serial sums ---===//
//
//   distrt-collectives-check MESH [--fatal CASE]
//
// Joins a mesh of shape MESH (`4`, `2x2`, `1`; `none`: no distrt_comm_init,
// a single device), checks its topology (coordinates, sizes, the peers of
// distrt_mesh_peer along each axis), then on every axes mask (and one
// naming an axis beyond the mesh) runs every collective, blocking and
// non-blocking: all_reduce (sum, max, min, mean), all_gather and
// reduce_scatter (a plain [1, n] tensor and one with outer > 1),
// shard_slice, broadcast from every root, a
// barrier, send/recv around a ring, several requests in flight at once, in
// float32, float64, int64, int32, float16 and bfloat16. Every rank's data
// is a formula of its
// rank, so each rank computes what every other rank holds and checks each
// result against the value computed serially (exactly: the values are small
// multiples of 1/2, whose sums are exact in any order, even in float16 and
// bfloat16, which every collective takes too). Prints a line per
// rank and, on rank 0, a summary over all ranks; exits 1 on any mismatch.
// In an MPI build it says whether distrt initialized MPI.
//
// --fatal CASE makes the last rank make one bad call (the others wait in a
// barrier, which must not hang): bad-op, bad-mask, mean-int, bad-root,
// wait-twice, wait-unknown, bad-peer, sum-bool, bad-dtype, negative,
// out-of-step (a valid all-reduce where the others make a barrier: over
// TCP a checked error, not wrong data); it must end the job with
// `error: distrt: ...`.
//
//===----------------------------------------------------------------------===//

#include "HalfFloat.h" // runtime/src/core
#include "distrt/distrt.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#ifdef DISTRT_CHECK_MPI
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace {

constexpr int kAxes = DISTRT_MAX_MESH_DIMS;

int ndims = 0;
int64_t shape[kAxes] = {1, 1, 1, 1};
int rank = 0, world = 1;
long checks = 0, failures = 0;

//===--- The mesh, as the ABI defines it (independently of distrt) -------===//

int64_t coordOf(int64_t r, int axis) {
  for (int a = kAxes - 1; a > axis; --a)
    r /= shape[a];
  return r % shape[axis];
}

int64_t groupSizeOf(int64_t mask) {
  int64_t size = 1;
  for (int a = 0; a < kAxes; ++a)
    if (mask >> a & 1)
      size *= shape[a];
  return size;
}

int64_t groupRankOf(int64_t r, int64_t mask) {
  int64_t g = 0;
  for (int a = 0; a < kAxes; ++a)
    if (mask >> a & 1)
      g = g * shape[a] + coordOf(r, a);
  return g;
}

/// The world rank of group rank `g` in the group of `r` for `mask`.
int64_t memberOf(int64_t r, int64_t mask, int64_t g) {
  int64_t coords[kAxes];
  for (int a = kAxes - 1; a >= 0; --a) {
    coords[a] = coordOf(r, a);
    if (mask >> a & 1) {
      coords[a] = g % shape[a];
      g /= shape[a];
    }
  }
  int64_t member = 0;
  for (int a = 0; a < kAxes; ++a)
    member = member * shape[a] + coords[a];
  return member;
}

//===--- Values ----------------------------------------------------------===//

const distrt_dtype kDtypes[] = {DISTRT_F32, DISTRT_F64, DISTRT_I64,
                                DISTRT_I32, DISTRT_F16, DISTRT_BF16};

bool isFloat(distrt_dtype dtype) {
  return dtype == DISTRT_F32 || dtype == DISTRT_F64 || dtype == DISTRT_F16 ||
         dtype == DISTRT_BF16;
}

/// Element i of rank r's data for test `tag`: a small integer, halved for
/// floats, scaled past 32 bits for int64.
double value(distrt_dtype dtype, int64_t r, int tag, int64_t i) {
  int64_t v = ((r + 1) * 7 + i * 3 + tag * 11) % 41 - 20;
  switch (dtype) {
  case DISTRT_F32:
  case DISTRT_F64:
  case DISTRT_F16:
  case DISTRT_BF16:
    return v * 0.5;
  case DISTRT_I64:
    return static_cast<double>(v) * 1000000007.0;
  default:
    return static_cast<double>(v * 1000);
  }
}

struct Buffer {
  distrt_dtype dtype;
  std::vector<char> bytes;
  Buffer(distrt_dtype dtype, int64_t n)
      : dtype(dtype), bytes(n * distrt_dtype_size((distrt_dtype)dtype) + 1) {}
  void *data() { return bytes.data(); }
  void set(int64_t i, double v) {
    switch (dtype) {
    case DISTRT_F32:
      reinterpret_cast<float *>(data())[i] = static_cast<float>(v);
      break;
    case DISTRT_F64:
      reinterpret_cast<double *>(data())[i] = v;
      break;
    case DISTRT_I64:
      reinterpret_cast<int64_t *>(data())[i] = static_cast<int64_t>(v);
      break;
    case DISTRT_F16:
      reinterpret_cast<uint16_t *>(data())[i] =
          distrt::model::floatToFloat16(static_cast<float>(v));
      break;
    case DISTRT_BF16:
      reinterpret_cast<uint16_t *>(data())[i] =
          distrt::model::floatToBfloat16(static_cast<float>(v));
      break;
    default:
      reinterpret_cast<int32_t *>(data())[i] = static_cast<int32_t>(v);
    }
  }
  double get(int64_t i) {
    switch (dtype) {
    case DISTRT_F32:
      return reinterpret_cast<float *>(data())[i];
    case DISTRT_F64:
      return reinterpret_cast<double *>(data())[i];
    case DISTRT_I64:
      return static_cast<double>(reinterpret_cast<int64_t *>(data())[i]);
    case DISTRT_F16:
      return distrt::model::float16ToFloat(
          reinterpret_cast<uint16_t *>(data())[i]);
    case DISTRT_BF16:
      return distrt::model::bfloat16ToFloat(
          reinterpret_cast<uint16_t *>(data())[i]);
    default:
      return reinterpret_cast<int32_t *>(data())[i];
    }
  }
};

/// A buffer holding rank r's data for `tag`.
Buffer dataOf(distrt_dtype dtype, int64_t r, int tag, int64_t n) {
  Buffer buffer(dtype, n);
  for (int64_t i = 0; i < n; ++i)
    buffer.set(i, value(dtype, r, tag, i));
  return buffer;
}

/// The reduction of `values` with op (sum, max, min, mean).
double reduce(const std::vector<double> &values, int op) {
  double out = values[0];
  for (size_t k = 1; k < values.size(); ++k)
    out = op == DISTRT_OP_MAX   ? (values[k] > out ? values[k] : out)
          : op == DISTRT_OP_MIN ? (values[k] < out ? values[k] : out)
                                : out + values[k];
  return op == DISTRT_OP_MEAN ? out / values.size() : out;
}

void expect(bool ok, const std::string &what) {
  ++checks;
  if (ok)
    return;
  ++failures;
  if (failures <= 20)
    std::printf("FAIL rank %d: %s\n", rank, what.c_str());
}

/// Compares `got` with `want` element by element.
void compare(Buffer &got, const std::vector<double> &want,
             const std::string &what) {
  bool ok = true;
  std::string first;
  for (size_t i = 0; i < want.size() && ok; ++i)
    if (got.get(static_cast<int64_t>(i)) != want[i]) {
      ok = false;
      first = " (element " + std::to_string(i) + ": got " +
              std::to_string(got.get(static_cast<int64_t>(i))) + ", want " +
              std::to_string(want[i]) + ")";
    }
  expect(ok, what + first);
}

std::string name(const char *call, distrt_dtype dtype, int64_t mask, bool async,
                 const std::string &more = "") {
  char text[160];
  std::snprintf(text, sizeof(text), "%s%s %s mask %lld%s", call,
                async ? "_start" : "", distrt_dtype_name((distrt_dtype)dtype),
                (long long)mask, more.c_str());
  return text;
}

int nextTag = 0;

//===--- The checks ------------------------------------------------------===//

void checkTopology(int64_t mask) {
  expect(distrt_group_size(mask) == groupSizeOf(mask),
         "distrt_group_size mask " + std::to_string(mask));
  expect(distrt_group_rank(mask) == groupRankOf(rank, mask),
         "distrt_group_rank mask " + std::to_string(mask));
}

void checkAllReduce(distrt_dtype dtype, distrt_reduce_op op, int64_t mask,
                    bool async) {
  int tag = ++nextTag;
  const int64_t n = 7;
  int64_t size = groupSizeOf(mask);
  Buffer buf = dataOf(dtype, rank, tag, n);
  if (async)
    distrt_wait(distrt_all_reduce_start(dtype, op, buf.data(), n, mask));
  else
    distrt_all_reduce(dtype, op, buf.data(), n, mask);
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> values;
    for (int64_t g = 0; g < size; ++g)
      values.push_back(value(dtype, memberOf(rank, mask, g), tag, i));
    want[i] = reduce(values, op);
  }
  compare(buf, want,
          name("distrt_all_reduce", dtype, mask, async,
               " op " + std::to_string(op)));
}

void checkAllGather(distrt_dtype dtype, int64_t outer, int64_t inner,
                    int64_t mask, bool async) {
  int tag = ++nextTag;
  int64_t size = groupSizeOf(mask);
  Buffer in = dataOf(dtype, rank, tag, outer * inner);
  Buffer out(dtype, outer * size * inner);
  if (async)
    distrt_wait(distrt_all_gather_start(dtype, in.data(), out.data(), outer,
                                        inner, mask));
  else
    distrt_all_gather(dtype, in.data(), out.data(), outer, inner, mask);
  std::vector<double> want(outer * size * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t g = 0; g < size; ++g)
      for (int64_t i = 0; i < inner; ++i)
        want[(o * size + g) * inner + i] =
            value(dtype, memberOf(rank, mask, g), tag, o * inner + i);
  compare(out, want,
          name("distrt_all_gather", dtype, mask, async,
               " outer " + std::to_string(outer)));
}

void checkReduceScatter(distrt_dtype dtype, distrt_reduce_op op, int64_t outer,
                        int64_t inner, int64_t mask, bool async) {
  int tag = ++nextTag;
  int64_t size = groupSizeOf(mask), me = groupRankOf(rank, mask);
  Buffer in = dataOf(dtype, rank, tag, outer * size * inner);
  Buffer out(dtype, outer * inner);
  if (async)
    distrt_wait(distrt_reduce_scatter_start(dtype, op, in.data(), out.data(),
                                            outer, inner, mask));
  else
    distrt_reduce_scatter(dtype, op, in.data(), out.data(), outer, inner, mask);
  std::vector<double> want(outer * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<double> values;
      for (int64_t g = 0; g < size; ++g)
        values.push_back(value(dtype, memberOf(rank, mask, g), tag,
                               (o * size + me) * inner + i));
      want[o * inner + i] = reduce(values, op);
    }
  compare(
      out, want,
      name("distrt_reduce_scatter", dtype, mask, async,
           " op " + std::to_string(op) + " outer " + std::to_string(outer)));
}

void checkShardSlice(distrt_dtype dtype, int64_t outer, int64_t inner,
                     int64_t mask) {
  int tag = ++nextTag;
  int64_t size = groupSizeOf(mask), me = groupRankOf(rank, mask);
  Buffer in = dataOf(dtype, 0, tag, outer * size * inner);
  Buffer out(dtype, outer * inner);
  distrt_shard_slice(dtype, in.data(), out.data(), outer, inner, mask);
  std::vector<double> want(outer * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      want[o * inner + i] = value(dtype, 0, tag, (o * size + me) * inner + i);
  compare(out, want, name("distrt_shard_slice", dtype, mask, false));
}

void checkBroadcast(distrt_dtype dtype, int64_t mask) {
  int64_t size = groupSizeOf(mask);
  for (int64_t root = 0; root < size; ++root) {
    int tag = ++nextTag;
    const int64_t n = 5;
    bool isRoot = groupRankOf(rank, mask) == root;
    Buffer buf = dataOf(dtype, rank, isRoot ? tag : tag + 1000, n);
    distrt_broadcast(dtype, buf.data(), n, root, mask);
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i)
      want[i] = value(dtype, memberOf(rank, mask, root), tag, i);
    compare(buf, want,
            name("distrt_broadcast", dtype, mask, false,
                 " root " + std::to_string(root)));
  }
}

/// Several requests in flight at once, waited for in reverse order; their
/// handles are then free again.
void checkInFlight(int64_t mask) {
  int tag = ++nextTag;
  int64_t size = groupSizeOf(mask), me = groupRankOf(rank, mask);
  const int64_t n = 6, outer = 2, inner = 3;
  Buffer sum = dataOf(DISTRT_F64, rank, tag, n);
  Buffer in = dataOf(DISTRT_F32, rank, tag + 1, outer * inner);
  Buffer gathered(DISTRT_F32, outer * size * inner);
  Buffer scatterIn = dataOf(DISTRT_I64, rank, tag + 2, outer * size * inner);
  Buffer scattered(DISTRT_I64, outer * inner);
  int64_t handles[3] = {
      distrt_all_reduce_start(DISTRT_F64, DISTRT_OP_MEAN, sum.data(), n, mask),
      distrt_all_gather_start(DISTRT_F32, in.data(), gathered.data(), outer,
                              inner, mask),
      distrt_reduce_scatter_start(DISTRT_I64, DISTRT_OP_MAX, scatterIn.data(),
                                  scattered.data(), outer, inner, mask)};
  expect(handles[0] >= 0 && handles[1] >= 0 && handles[2] >= 0 &&
             handles[0] != handles[1] && handles[1] != handles[2] &&
             handles[0] != handles[2],
         "three requests in flight have three handles");
  for (int k = 2; k >= 0; --k)
    distrt_wait(handles[k]);
  std::vector<double> wantSum(n), wantGather(outer * size * inner),
      wantScatter(outer * inner);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> values;
    for (int64_t g = 0; g < size; ++g)
      values.push_back(value(DISTRT_F64, memberOf(rank, mask, g), tag, i));
    wantSum[i] = reduce(values, DISTRT_OP_MEAN);
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t g = 0; g < size; ++g)
      for (int64_t i = 0; i < inner; ++i) {
        wantGather[(o * size + g) * inner + i] =
            value(DISTRT_F32, memberOf(rank, mask, g), tag + 1, o * inner + i);
        if (g == 0) {
          std::vector<double> values;
          for (int64_t h = 0; h < size; ++h)
            values.push_back(value(DISTRT_I64, memberOf(rank, mask, h), tag + 2,
                                   (o * size + me) * inner + i));
          wantScatter[o * inner + i] = reduce(values, DISTRT_OP_MAX);
        }
      }
  std::string where = " mask " + std::to_string(mask) + " (in flight)";
  compare(sum, wantSum, "all_reduce mean float64" + where);
  compare(gathered, wantGather, "all_gather float32" + where);
  compare(scattered, wantScatter, "reduce_scatter max int64" + where);
  int64_t again =
      distrt_all_reduce_start(DISTRT_F64, DISTRT_OP_SUM, sum.data(), 0, mask);
  expect(again >= 0 && again <= 2, "a completed request's handle is reused");
  distrt_wait(again);
}

/// Around the ring of world ranks: even ranks send first, odd ones receive
/// first, so blocking sends cannot deadlock.
void checkSendRecv(distrt_dtype dtype) {
  if (world == 1)
    return;
  int tag = ++nextTag;
  const int64_t n = 9;
  int next = (rank + 1) % world, previous = (rank + world - 1) % world;
  Buffer out = dataOf(dtype, rank, tag, n), in(dtype, n);
  if (rank % 2 == 0) {
    distrt_send(dtype, out.data(), n, next, tag);
    distrt_recv(dtype, in.data(), n, previous, tag);
  } else {
    distrt_recv(dtype, in.data(), n, previous, tag);
    distrt_send(dtype, out.data(), n, next, tag);
  }
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = value(dtype, previous, tag, i);
  compare(in, want, name("distrt_recv", dtype, -1, false));
}

/// distrt_mesh_peer: along each axis, the member of this rank's group of
/// that axis alone at each coordinate; a bad axis or coordinate is -1 with
/// an error, not fatal.
void checkPeers() {
  for (int a = 0; a < kAxes; ++a)
    for (int64_t c = 0; c < shape[a]; ++c)
      expect(distrt_mesh_peer(a, c) == memberOf(rank, int64_t(1) << a, c),
             "distrt_mesh_peer axis " + std::to_string(a) + " coordinate " +
                 std::to_string(c));
  expect(distrt_mesh_peer(0, coordOf(rank, 0)) == rank,
         "distrt_mesh_peer of this rank's own coordinate");
  for (auto [axis, coord] : {std::pair<int, int64_t>{-1, 0}, {kAxes, 0},
                             {0, -1}, {0, shape[0]}, {kAxes - 1, 1}}) {
    if (axis == kAxes - 1 && shape[axis] > 1)
      continue; // an axis beyond the mesh (size 1) has no coordinate 1
    expect(distrt_mesh_peer(axis, coord) == -1 &&
               std::strstr(distrt_last_error(), "distrt_mesh_peer: "),
           "distrt_mesh_peer(" + std::to_string(axis) + ", " +
               std::to_string(coord) + ") fails");
  }
}

/// A sum of 16-bit floats over a group of two rounds once: the result is
/// narrow(widen(a) + widen(b)), bit for bit, for every finite input,
/// subnormals and overflow to infinity included (the sums of compressed
/// gradients, --grad-compression; 1003 elements, so that vectorized
/// reductions have a tail).
void checkHalfRounding(distrt_dtype dtype, int64_t mask, bool async) {
  if (groupSizeOf(mask) != 2)
    return;
  const int64_t n = 1003;
  bool f16 = dtype == DISTRT_F16;
  auto bitsOf = [&](int64_t r, int64_t i) {
    // Spread over every exponent; NaN patterns (all-ones exponent) skipped.
    uint32_t h = static_cast<uint32_t>((r + 1) * 2654435761u ^ i * 40503u);
    h = (h ^ h >> 13) * 0x5bd1e995u;
    uint16_t bits = static_cast<uint16_t>(h ^ h >> 15);
    uint16_t exponent = f16 ? 0x7c00 : 0x7f80;
    if ((bits & exponent) == exponent)
      bits &= static_cast<uint16_t>(~0x4000);
    return bits;
  };
  auto widen = [&](uint16_t b) {
    return f16 ? distrt::model::float16ToFloat(b)
               : distrt::model::bfloat16ToFloat(b);
  };
  auto narrow = [&](float v) {
    return f16 ? distrt::model::floatToFloat16(v)
               : distrt::model::floatToBfloat16(v);
  };
  std::vector<uint16_t> buffer(n), want(n);
  int64_t other = memberOf(rank, mask, 1 - groupRankOf(rank, mask));
  for (int64_t i = 0; i < n; ++i) {
    buffer[i] = bitsOf(rank, i);
    want[i] = narrow(widen(bitsOf(rank, i)) + widen(bitsOf(other, i)));
  }
  if (async)
    distrt_wait(distrt_all_reduce_start(dtype, DISTRT_OP_SUM, buffer.data(),
                                        n, mask));
  else
    distrt_all_reduce(dtype, DISTRT_OP_SUM, buffer.data(), n, mask);
  int64_t wrong = 0, first = -1;
  for (int64_t i = 0; i < n; ++i)
    if (buffer[i] != want[i] && wrong++ == 0)
      first = i;
  expect(wrong == 0,
         name("distrt_all_reduce", dtype, mask, async,
              " rounding of 16-bit sums: " + std::to_string(wrong) +
                  " wrong, first at " + std::to_string(first)));
}

void checkAll(int64_t masks) {
  for (int a = 0; a < kAxes; ++a)
    expect(distrt_mesh_coord(a) == coordOf(rank, a) &&
               distrt_mesh_size(a) == shape[a],
           "distrt_mesh_coord/size axis " + std::to_string(a));
  expect(distrt_mesh_ndims() == ndims, "distrt_mesh_ndims");
  checkPeers();
  for (int64_t mask = 0; mask < masks; ++mask) {
    checkTopology(mask);
    for (distrt_dtype dtype : kDtypes) {
      for (bool async : {false, true}) {
        for (int o = 0; o <= (isFloat(dtype) ? 3 : 2); ++o) {
          auto op = static_cast<distrt_reduce_op>(o);
          checkAllReduce(dtype, op, mask, async);
          checkReduceScatter(dtype, op, 1, 3, mask, async);
          checkReduceScatter(dtype, op, 3, 2, mask, async);
        }
        checkAllGather(dtype, 1, 5, mask, async);
        checkAllGather(dtype, 3, 2, mask, async);
        checkAllGather(dtype, 2, 1, mask, async);
      }
      checkShardSlice(dtype, 1, 4, mask);
      checkShardSlice(dtype, 3, 2, mask);
      checkBroadcast(dtype, mask);
    }
    for (distrt_dtype dtype : {DISTRT_F16, DISTRT_BF16})
      for (bool async : {false, true})
        checkHalfRounding(dtype, mask, async);
    checkInFlight(mask);
    distrt_barrier(mask);
  }
  for (distrt_dtype dtype : kDtypes)
    checkSendRecv(dtype);
}

//===--- Bad calls -------------------------------------------------------===//

int badCall(const std::string &which) {
  float buf[4] = {0};
  if (which == "bad-op")
    // Compiled code passes plain integers: out-of-range values are caught.
    distrt_all_reduce(DISTRT_F32, static_cast<distrt_reduce_op>(7), buf, 4, 0);
  else if (which == "bad-mask")
    distrt_all_reduce(DISTRT_F32, DISTRT_OP_SUM, buf, 4, int64_t(1) << 5);
  else if (which == "mean-int")
    distrt_all_reduce(DISTRT_I64, DISTRT_OP_MEAN, buf, 2, 0);
  else if (which == "bad-root")
    distrt_broadcast(DISTRT_F32, buf, 4, groupSizeOf(1), 1);
  else if (which == "wait-twice") {
    int64_t handle =
        distrt_all_reduce_start(DISTRT_F32, DISTRT_OP_SUM, buf, 4, 0);
    distrt_wait(handle);
    distrt_wait(handle);
  } else if (which == "wait-unknown")
    distrt_wait(12345);
  else if (which == "bad-peer")
    distrt_send(DISTRT_F32, buf, 4, rank, 0);
  else if (which == "sum-bool")
    distrt_all_reduce_start(DISTRT_BOOL, DISTRT_OP_SUM, buf, 4, 0);
  else if (which == "bad-dtype")
    distrt_all_gather(static_cast<distrt_dtype>(42), buf, buf + 2, 1, 2, 0);
  else if (which == "negative")
    distrt_reduce_scatter(DISTRT_F32, DISTRT_OP_SUM, buf, buf, 1, -3, 0);
  else if (which == "out-of-step")
    // A valid call, but not the barrier the others make.
    distrt_all_reduce(DISTRT_F32, DISTRT_OP_SUM, buf, 4,
                      (int64_t(1) << kAxes) - 1);
  else {
    std::fprintf(stderr, "unknown --fatal case '%s'\n", which.c_str());
    return 2;
  }
  std::printf("FAIL: the bad call %s returned\n", which.c_str());
  return 1;
}

bool parseMesh(const char *text) {
  if (std::strcmp(text, "none") == 0)
    return true;
  const char *p = text;
  while (*p) {
    char *end;
    long size = std::strtol(p, &end, 10);
    if (end == p || size < 1 || ndims == kAxes)
      return false;
    shape[ndims++] = size;
    if (*end == 'x')
      ++end;
    else if (*end)
      return false;
    p = end;
  }
  return ndims > 0;
}

bool mpiInitialized() {
#ifdef DISTRT_CHECK_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
#else
  return false;
#endif
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !parseMesh(argv[1]) ||
      (argc > 2 && (argc != 4 || std::strcmp(argv[2], "--fatal") != 0))) {
    std::fprintf(stderr, "usage: %s MESH|none [--fatal CASE]\n", argv[0]);
    return 2;
  }
  bool init = std::strcmp(argv[1], "none") != 0;
  // COLLECTIVES_CHECK_CUDA=1: the CUDA device first, so that the mesh's
  // transport is NCCL (on the fake driver and fake NCCL of the tests);
  // =after: after joining the mesh (the mistake distrt must catch).
  const char *cuda = std::getenv("COLLECTIVES_CHECK_CUDA");
  std::string when = cuda ? cuda : "";
  if (when == "1" && distrt_cuda_init() != 0) {
    std::fprintf(stderr, "error: %s\n", distrt_last_error());
    return 1;
  }
  if (init && distrt_comm_init(ndims, shape) != 0) {
    std::fprintf(stderr, "error: %s\n", distrt_last_error());
    return 1;
  }
  if (when == "after" && distrt_cuda_init() != 0) {
    std::fprintf(stderr, "error: %s\n", distrt_last_error());
    return 1;
  }
  rank = distrt_comm_rank();
  world = distrt_comm_world();
  if (argc == 4) {
    if (rank == world - 1)
      return badCall(argv[3]);
    distrt_barrier((1 << kAxes) - 1);
    std::printf("FAIL: rank %d got past the barrier\n", rank);
    return 1;
  }
  if (rank == 0)
    std::printf("MPI initialized: %s\n", mpiInitialized() ? "yes" : "no");
  // Every mask of the mesh's axes, and one more naming an axis beyond it
  // (size 1); without a mesh, every mask.
  checkAll(init ? int64_t(1) << (ndims < kAxes ? ndims + 1 : ndims)
                : int64_t(1) << kAxes);
  std::printf("rank %d: %ld checks, %ld failures\n", rank, checks, failures);
  std::fflush(stdout);
  int64_t totals[2] = {checks, failures};
  distrt_all_reduce(DISTRT_I64, DISTRT_OP_SUM, totals, 2, (1 << kAxes) - 1);
  if (rank == 0)
    std::printf("%s mesh %s: %d ranks, %lld checks, %lld failures\n",
                totals[1] ? "FAIL" : "ok", argv[1], world, (long long)totals[0],
                (long long)totals[1]);
  distrt_comm_finalize();
  if (rank == 0 && init && world > 1)
    std::printf("MPI finalized: %s\n", mpiInitialized() ? "no" : "yes");
  return totals[1] ? 1 : 0;
}
