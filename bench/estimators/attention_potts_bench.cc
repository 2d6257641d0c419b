// The observation's factored attention (lib/attention_potts/attention_potts.h) at
// the size of its main configuration on Ras (L = 159, A = 20, H = 256,
// d = 32, batches of 128): one step's loss and gradient (double, or with
// float products), and each of its six products alone, in multiply-adds
// per ns (counter "macs_per_ns"; for the step, the products' count over the
// whole step's time).
#include <malloc.h>

#include <limits>
#include <type_traits>

#include <benchmark/benchmark.h>

#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/attention_potts/attention_potts.h"
#include "lib/linalg/dense_product.h"
#include "lib/linalg/gemm.h"

namespace potts {
namespace {

constexpr arma::uword kL = 159, kA = 20, kH = 256, kD = 32, kB = 128;

arma::mat random_mat(arma::uword r, arma::uword c, std::uint64_t seed) {
  Rng rng(seed, 1);
  arma::mat m(r, c);
  for (auto& v : m) v = rng.uniform() - 0.5;
  return m;
}

// The six products of a step at H = 256 (eq. P1 of attention_potts.h, as
// attention_potts.cc runs them, Bplus and Bminus stored transposed; S = 210
// symmetric and K = 190 antisymmetric entries of a block): 0 Wsym = Sop
// Bplus, 1 Want = Kop Bminus, 2 dSop = dWsym Bplus^T, 3 dKop, 4 dBplus^T =
// dWsym^T Sop, 5 dBminus^T. Arg 1: 0 dense_product in double, 1 in float,
// 2 lib/linalg's gemm in double (the same bits as 0), for comparison.
struct Shape {
  bool ta, tb;
  arma::uword m, n, k;
};

template <class T>
void run_product(const Shape& sh, const arma::Mat<T>& a, const arma::Mat<T>& b, arma::Mat<T>& c, bool use_gemm) {
  const arma::uword lda = sh.ta ? sh.k : sh.m, ldb = sh.tb ? sh.n : sh.k;
  if constexpr (std::is_same_v<T, double>) {
    if (use_gemm) {
      gemm(sh.ta, sh.tb, sh.m, sh.n, sh.k, 1.0, a.memptr(), lda, b.memptr(), ldb, 0.0, c.memptr(), sh.m);
      return;
    }
  }
  dense_product(sh.ta, sh.tb, sh.m, sh.n, sh.k, a.memptr(), lda, b.memptr(), ldb, c.memptr(), sh.m);
}

void BM_AttentionProduct(benchmark::State& state) {
  const arma::uword P = kL * (kL - 1) / 2, S = kA * (kA + 1) / 2, K = kA * (kA - 1) / 2;
  const Shape shapes[] = {{false, true, S, P, kH},  {false, true, K, P, kH}, {false, false, S, kH, P},
                          {false, false, K, kH, P}, {true, false, P, kH, S}, {true, false, P, kH, K}};
  const Shape sh = shapes[state.range(0)];
  // Operands of the shapes' sizes (contents do not change the time).
  const arma::uword ar = sh.ta ? sh.k : sh.m, ac = sh.ta ? sh.m : sh.k;
  const arma::uword br = sh.tb ? sh.n : sh.k, bc = sh.tb ? sh.k : sh.n;
  const arma::mat a = random_mat(ar, ac, 1), b = random_mat(br, bc, 2);
  const arma::fmat af = arma::conv_to<arma::fmat>::from(a), bf = arma::conv_to<arma::fmat>::from(b);
  arma::mat c(sh.m, sh.n);
  arma::fmat cf(sh.m, sh.n);
  for (auto _ : state) {
    if (state.range(1) == 1) {
      run_product(sh, af, bf, cf, false);
      benchmark::DoNotOptimize(cf.memptr());
    } else {
      run_product(sh, a, b, c, state.range(1) == 2);
      benchmark::DoNotOptimize(c.memptr());
    }
  }
  state.counters["macs_per_ns"] = benchmark::Counter(double(sh.m) * double(sh.n) * double(sh.k) * 1e-9,
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AttentionProduct)->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2}})->Unit(benchmark::kMillisecond);

// Args: 0 the double path or 1 float products; H; d; threads (the same
// bits at any count: lib/core/parallel.h). The heap as the stage sets it
// (no fresh mappings for the step's large buffers).
void BM_AttentionStep(benchmark::State& state) {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  AttentionPottsSpec s;
  s.float_products = state.range(0) == 1;
  set_parallel_threads(int(state.range(3)));
  s.L = kL;
  s.C = kA;
  s.heads = arma::uword(state.range(1));
  s.head_dim = arma::uword(state.range(2));
  Rng rng(5, 2);
  arma::imat batch(kB, kL);
  for (auto& v : batch) v = rng.uniform() < 0.1 ? arma::sword(kA) : arma::sword(rng.uniform() * double(kA));
  const arma::vec x = attention_potts_start(s, batch, 1e-3, 1);
  AttentionPottsPenalty pen;
  pen.lambda = 1e-3;
  pen.family_size = 999;
  AttentionPottsWorkspace work;
  arma::vec g;
  // One evaluation first: it allocates the workspace and faults in its pages,
  // which the fit's 5000 steps do once.
  benchmark::DoNotOptimize(attention_potts_loss(s, x, batch, pen, &g, work));
  for (auto _ : state) benchmark::DoNotOptimize(attention_potts_loss(s, x, batch, pen, &g, work));
  set_parallel_threads(1);
  // The six products' multiply-adds (the step's bulk): 3 H A^2 P.
  state.counters["macs_per_ns"] = benchmark::Counter(3.0 * double(kA * kA) * double(s.heads) * double(s.pairs()) * 1e-9,
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AttentionStep)
    ->Args({0, 256, 32, 1})
    ->Args({1, 256, 32, 1})
    ->Args({1, 256, 32, 2})
    ->Args({1, 128, 32, 1})
    ->Args({1, 64, 32, 1})
    ->Args({1, 32, 16, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace potts
