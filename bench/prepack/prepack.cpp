// gpt2-small's products (batch 4 x 128 rows) three ways, one thread, best of
// 5 after a warm-up: oneDNN's matmul on the weights as distrt passes them
// (W^T, strided: what OneDnnGemm.cpp does), oneDNN's matmul on weights
// reordered once into the layout it prefers (format_tag::any: "pre-packed",
// the reorder timed apart), and OpenBLAS's sgemm. bench/cpu-prepack.sh builds
// and runs it.
#include <oneapi/dnnl/dnnl.hpp>
#include <cblas.h>
#include <chrono>
#include <cstdio>
#include <vector>
using namespace dnnl;
using dt = memory::data_type;
double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F> double best(F f, int reps = 5) { f(); double b = 1e30; for (int i = 0; i < reps; ++i) { double t = now(); f(); b = std::min(b, now() - t); } return b; }
int main() {
  engine eng(engine::kind::cpu, 0); stream s(eng);
  int shapes[][3] = {{512, 768, 768}, {512, 3072, 768}, {512, 768, 3072}, {512, 2304, 768}, {512, 50257, 768}};
  for (auto &sh : shapes) {
    int64_t M = sh[0], N = sh[1], K = sh[2];
    for (dt t : {dt::f32, dt::bf16}) {
      memory::desc a({M, K}, t, memory::format_tag::ab);
      memory::desc bplain({K, N}, t, memory::dims{1, K}); // B given as W^T (N x K row-major): strides (1, K)
      memory::desc bany({K, N}, t, memory::format_tag::any);
      memory::desc c({M, N}, dt::f32, memory::format_tag::ab);
      memory am(a, eng), cm(c, eng), bm(bplain, eng);
      // fill
      if (t == dt::f32) { float *p = (float *)am.get_data_handle(); for (int64_t i = 0; i < M * K; ++i) p[i] = (i % 7) * 0.1f; float *q = (float *)bm.get_data_handle(); for (int64_t i = 0; i < K * N; ++i) q[i] = (i % 5) * 0.1f; }
      auto pd1 = matmul::primitive_desc(matmul::desc(a, bplain, c), eng);
      matmul m1(pd1);
      double t1 = best([&] { m1.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}}); s.wait(); });
      auto pd2 = matmul::primitive_desc(matmul::desc(a, bany, c), eng);
      matmul m2(pd2);
      memory packed(pd2.weights_desc(), eng);
      double tr = best([&] { reorder(bm, packed).execute(s, bm, packed); s.wait(); }, 2);
      double t2 = best([&] { m2.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_DST, cm}}); s.wait(); });
      double tb = -1;
      if (t == dt::f32) { std::vector<float> A(M * K, 0.1f), B(K * N, 0.2f), C(M * N); tb = best([&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, A.data(), K, B.data(), K, 0, C.data(), N); }); }
      std::printf("%s m %ld n %ld k %ld: plain %.2f ms (%s) packed %.2f ms (%s) reorder %.2f ms openblas %.2f ms\n", t == dt::f32 ? "f32 " : "bf16", M, N, K, t1, pd1.impl_info_str(), t2, pd2.impl_info_str(), tr, tb);
    }
  }
}
