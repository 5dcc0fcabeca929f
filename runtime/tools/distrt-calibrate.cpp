//===- distrt-calibrate.cpp - Measure a device description ----------------===//
//
//   mpirun -np N distrt-calibrate --mesh=SHAPE [--name=NAME] [-o FILE]
//   distrt-calibrate [--name=NAME] [-o FILE]          (one process)
//
// Measures what dist-compile's cost model predicts time from, on the
// machine and mesh it runs on, with every rank working at once (as in
// training, the ranks share the memory bandwidth and the cores): the
// float32 and bfloat16 products of distrt_gemm (the best of square
// products of 256 to 1024, and the fraction of it that a linear layer's
// three products reach), the memory bandwidth of a 64 MiB copy, and the
// all-reduce's latency (alpha, from 8-byte messages) and bandwidth (beta,
// from a started 32 MiB all-reduce, as a gradient bucket runs) over each
// mesh axis. Rank 0 writes a device description
// (devices/*.json's format; --device-spec=FILE reads it) to FILE or
// stdout.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

double seconds(uint64_t start) { return (distrt_now_ns() - start) * 1e-9; }

/// The fastest of `repeats` runs of `body`, in seconds, the ranks starting
/// each together.
template <typename F>
double fastest(int repeats, int64_t mask, F body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    if (mask)
      distrt_barrier(mask);
    uint64_t start = distrt_now_ns();
    body();
    best = std::min(best, seconds(start));
  }
  return best;
}

/// The best FLOP/s of distrt_gemm on `dtype` over square products.
double gemmFlops(distrt_dtype dtype, int64_t all, std::string &sizes) {
  double best = 0;
  for (int64_t n : {256, 512, 1024}) {
    size_t in = distrt_dtype_size(dtype) * n * n;
    std::vector<char> a(in), b(in);
    std::vector<float> c(n * n);
    // Small values of either type: 1/64 in bfloat16 and float32 alike.
    if (dtype == DISTRT_F32) {
      std::fill_n(reinterpret_cast<float *>(a.data()), n * n, 1.0f / 64);
      std::fill_n(reinterpret_cast<float *>(b.data()), n * n, 1.0f / 64);
    } else {
      std::fill_n(reinterpret_cast<uint16_t *>(a.data()), n * n, 0x3c80);
      std::fill_n(reinterpret_cast<uint16_t *>(b.data()), n * n, 0x3c80);
    }
    double t = fastest(3, all, [&] {
      if (distrt_gemm(dtype, 0, 0, 1, n, n, n, 1.0, a.data(), n, 0, b.data(),
                      n, 0, 0.0, c.data(), n, 0) != 0) {
        std::fprintf(stderr, "distrt-calibrate: error: %s\n",
                     distrt_last_error());
        std::exit(1);
      }
    });
    double flops = 2.0 * n * n * n / t;
    best = std::max(best, flops);
    char text[64];
    std::snprintf(text, sizeof(text), "%s%lld: %.1f GFLOP/s",
                  sizes.empty() ? "" : ", ", static_cast<long long>(n),
                  flops * 1e-9);
    sizes += text;
  }
  return best;
}

/// The fraction of `peak` FLOP/s that a linear layer's products reach on
/// float32: 256 tokens of width 768 to 3072, forward (tokens x in x out),
/// input gradient (tokens x out x in) and weight gradient (in x tokens x
/// out), as a transformer's MLP runs them, every rank at once.
double linearEfficiency(double peak, int64_t all, std::string &shapes) {
  struct Shape {
    int64_t m, k, n;
  };
  double flops = 0, time = 0;
  for (Shape s : {Shape{256, 768, 3072}, Shape{256, 3072, 768},
                  Shape{768, 256, 3072}}) {
    std::vector<float> a(s.m * s.k, 1.0f / 64), b(s.k * s.n, 1.0f / 64),
        c(s.m * s.n);
    double t = fastest(3, all, [&] {
      distrt_gemm(DISTRT_F32, 0, 0, 1, s.m, s.n, s.k, 1.0, a.data(), s.k, 0,
                  b.data(), s.n, 0, 0.0, c.data(), s.n, 0);
    });
    double f = 2.0 * s.m * s.n * s.k;
    flops += f;
    time += t;
    char text[80];
    std::snprintf(text, sizeof(text), "%s%lldx%lldx%lld: %.1f GFLOP/s",
                  shapes.empty() ? "" : ", ", static_cast<long long>(s.m),
                  static_cast<long long>(s.k), static_cast<long long>(s.n),
                  f / t * 1e-9);
    shapes += text;
  }
  return std::min(1.0, flops / time / peak);
}

/// Bytes per second read and written by a 64 MiB copy.
double copyBandwidth(int64_t all) {
  size_t bytes = size_t(64) << 20;
  std::vector<char> from(bytes, 1), to(bytes, 0);
  double t = fastest(5, all, [&] { std::memcpy(to.data(), from.data(), bytes); });
  return 2.0 * bytes / t;
}

struct LinkFit {
  double latency = 0, bandwidth = 0;
};

/// Alpha and beta of the ring all-reduce over `mask` (n ranks):
/// t(S) = 2 (n - 1) alpha + 2 (n - 1) / n * S / B, alpha from a blocking
/// 8-byte all-reduce, beta from a started one of 32 MiB waited for at once
/// (a gradient bucket of dist-overlap-collectives' 25 MiB default or more:
/// what moves most bytes in training; out of the caches, it runs at about
/// half the bandwidth of 16 MiB here).
LinkFit allReduceFit(int64_t mask, int64_t n) {
  std::vector<float> small(2, 1.0f);
  double tSmall = fastest(50, mask, [&] {
    distrt_all_reduce(DISTRT_F32, DISTRT_OP_SUM, small.data(), 2, mask);
  });
  int64_t count = int64_t(8) << 20; // 32 MiB
  std::vector<float> large(count, 1.0f);
  double tLarge = fastest(5, mask, [&] {
    distrt_wait(distrt_all_reduce_start(DISTRT_F32, DISTRT_OP_SUM,
                                        large.data(), count, mask));
  });
  LinkFit fit;
  double steps = 2.0 * (n - 1);
  fit.latency = tSmall / steps;
  double moved = steps / n * count * sizeof(float);
  fit.bandwidth = moved / std::max(tLarge - tSmall, 1e-9);
  return fit;
}

/// The fraction of a started all-reduce (16 MiB over `mask`) that runs
/// while the rank computes: products of about the all-reduce's time run
/// between its start and its wait, and what the pair saves over the two
/// one after the other, over the shorter of the two.
double overlapFraction(int64_t mask) {
  int64_t count = int64_t(4) << 20;
  std::vector<float> buffer(count, 1.0f);
  double reduce = fastest(5, mask, [&] {
    distrt_all_reduce(DISTRT_F32, DISTRT_OP_SUM, buffer.data(), count, mask);
  });
  int64_t n = 384;
  std::vector<float> a(n * n, 1.0f), b(n * n, 1.0f), c(n * n);
  auto gemm = [&] {
    distrt_gemm(DISTRT_F32, 0, 0, 1, n, n, n, 1.0, a.data(), n, 0, b.data(),
                n, 0, 0.0, c.data(), n, 0);
  };
  double one = fastest(3, mask, gemm);
  int repeats = std::max(1, static_cast<int>(reduce / std::max(one, 1e-9)));
  auto compute = [&] {
    for (int r = 0; r < repeats; ++r)
      gemm();
  };
  double computing = fastest(3, mask, compute);
  double both = fastest(5, mask, [&] {
    int64_t request = distrt_all_reduce_start(DISTRT_F32, DISTRT_OP_SUM,
                                              buffer.data(), count, mask);
    compute();
    distrt_wait(request);
  });
  double hidden = reduce + computing - both;
  return std::clamp(hidden / std::min(reduce, computing), 0.0, 1.0);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> mesh;
  std::string name = "calibrated", output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--mesh=", 0) == 0) {
      const char *p = arg.c_str() + 7;
      while (*p) {
        char *end;
        long long size = std::strtoll(p, &end, 10);
        if (end == p || size < 1 || (*end && *end != 'x')) {
          std::fprintf(stderr, "distrt-calibrate: error: --mesh=%s: sizes >= "
                               "1 joined by 'x', e.g. 2 or 2x2\n",
                       arg.c_str() + 7);
          return 2;
        }
        mesh.push_back(size);
        p = *end ? end + 1 : end;
      }
    } else if (arg.rfind("--name=", 0) == 0) {
      name = arg.substr(7);
    } else if (arg == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: [mpirun -np N] distrt-calibrate [--mesh=SHAPE] "
                   "[--name=NAME] [-o FILE]\n");
      return 2;
    }
  }
  if (mesh.empty())
    mesh.push_back(1);
  if (distrt_comm_init(static_cast<int32_t>(mesh.size()), mesh.data()) != 0) {
    std::fprintf(stderr, "distrt-calibrate: error: %s\n", distrt_last_error());
    return 1;
  }
  int64_t all = 0;
  int64_t devices = 1;
  for (size_t a = 0; a < mesh.size(); ++a) {
    devices *= mesh[a];
    if (mesh[a] > 1)
      all |= int64_t(1) << a;
  }
  std::string fp32Sizes, bf16Sizes;
  double fp32 = gemmFlops(DISTRT_F32, all, fp32Sizes);
  std::string linearShapes;
  double gemmEfficiency = linearEfficiency(fp32, all, linearShapes);
  double bf16 = gemmFlops(DISTRT_BF16, all, bf16Sizes);
  double bandwidth = copyBandwidth(all);
  // Each axis's link; the slowest is the one the cost model uses for all.
  LinkFit link{0, 0};
  std::string axes;
  double overlap = 1; // the least over the axes
  std::string overlaps;
  for (size_t a = 0; a < mesh.size(); ++a) {
    if (mesh[a] == 1)
      continue;
    LinkFit fit = allReduceFit(int64_t(1) << a, mesh[a]);
    double f = overlapFraction(int64_t(1) << a);
    overlap = std::min(overlap, f);
    char fraction[64];
    std::snprintf(fraction, sizeof(fraction), "%saxis %zu: %.2f",
                  overlaps.empty() ? "" : "; ", a, f);
    overlaps += fraction;
    if (!link.bandwidth || fit.bandwidth < link.bandwidth)
      link.bandwidth = fit.bandwidth;
    link.latency = std::max(link.latency, fit.latency);
    char text[128];
    std::snprintf(text, sizeof(text),
                  "%saxis %zu (%lld ranks): alpha %.2f us, beta %.2f GB/s",
                  axes.empty() ? "" : "; ", a,
                  static_cast<long long>(mesh[a]), fit.latency * 1e6,
                  fit.bandwidth * 1e-9);
    axes += text;
  }
  // The ranks' figures differ a little; rank 0's are written.
  if (distrt_comm_rank() == 0) {
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    char date[32];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
    FILE *out = output.empty() ? stdout : std::fopen(output.c_str(), "w");
    if (!out) {
      std::fprintf(stderr, "distrt-calibrate: error: cannot write %s: %s\n",
                   output.c_str(), std::strerror(errno));
      distrt_comm_finalize();
      return 1;
    }
    std::string shape;
    for (int64_t size : mesh)
      shape += (shape.empty() ? "" : "x") + std::to_string(size);
    // Without a link measured (one process), a placeholder link keeps
    // the description valid: nothing crosses it.
    if (!link.bandwidth)
      link = {1e-6, bandwidth};
    std::fprintf(out,
                 "{\n"
                 "  \"name\": \"%s\",\n"
                 "  \"description\": \"measured by distrt-calibrate on %s, "
                 "%lld process(es) on mesh %s, %s\",\n"
                 "  \"peak_flops\": {\"fp32\": %.4g, \"bf16\": %.4g},\n"
                 "  \"memory_bandwidth\": %.4g,\n"
                 "  \"memory_bytes\": %.4g,\n"
                 "  \"achievable\": {\"gemm\": %.2f, \"memory\": 1.0},\n"
                 "  \"devices_per_host\": %lld,\n"
                 "  \"overlap\": %.2f,\n"
                 "  \"intra_host\": {\"bandwidth\": %.4g, \"latency\": %.4g},\n"
                 "  \"sources\": {\n"
                 "    \"peak_flops\": \"the best distrt_gemm of square "
                 "products, every rank at once: float32 %s; bfloat16 %s\",\n"
                 "    \"memory\": \"a 64 MiB memcpy on every rank at once "
                 "(bytes read and written); memory_bytes: the host's memory "
                 "over its processes\",\n"
                 "    \"intra_host\": \"ring all-reduce fits, 8 B for alpha "
                 "and a started 32 MiB for beta: %s\",\n"
                 "    \"achievable\": \"gemm: a linear layer's float32 "
                 "products (tokens x in x out) against the best square: %s; "
                 "memory 1: the copy above is what the kernels reach\",\n"
                 "    \"overlap\": \"a 16 MiB all_reduce_start, products of "
                 "about its time, then its wait, against the two one after "
                 "the other: %s\"\n"
                 "  }\n"
                 "}\n",
                 name.c_str(), host, static_cast<long long>(devices),
                 shape.c_str(), date, fp32, bf16, bandwidth,
                 static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                     sysconf(_SC_PAGESIZE) / devices,
                 gemmEfficiency,
                 static_cast<long long>(devices), overlap, link.bandwidth,
                 link.latency, fp32Sizes.c_str(), bf16Sizes.c_str(),
                 axes.empty() ? "none (one process)" : axes.c_str(),
                 linearShapes.c_str(),
                 overlaps.empty() ? "none (one process)" : overlaps.c_str());
    if (out != stdout)
      std::fclose(out);
  }
  distrt_comm_finalize();
  return 0;
}
