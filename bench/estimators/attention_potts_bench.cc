// The observation's factored attention (lib/estimators/attention_potts.h) at
// the size of its main configuration on Ras (L = 159, A = 20, H = 256,
// d = 32, batches of 128): one step's loss and gradient (double, or with
// float products), and each of its three products alone, in multiply-adds
// per ns (counter "macs_per_ns"; for the step, the products' count over the
// whole step's time).
#include <malloc.h>

#include <limits>

#include <benchmark/benchmark.h>

#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/estimators/attention_potts.h"
#include "lib/estimators/dense_product.h"
#include "lib/nn/layers.h"

namespace potts {
namespace {

constexpr arma::uword kL = 159, kA = 20, kH = 256, kD = 32, kB = 128;

arma::mat random_mat(arma::uword r, arma::uword c, std::uint64_t seed) {
  Rng rng(seed, 1);
  arma::mat m(r, c);
  for (auto& v : m) v = rng.uniform() - 0.5;
  return m;
}

// Which product (as attention_potts.cc runs them, Bop stored transposed):
// 0 Ws = Vop Bop, 1 dVop = dWs Bop^T, 2 dBop^T = dWs^T Vop; 3-5 the same
// shapes through lib/nn's gemm (the same bits), for comparison.
void BM_AttentionProduct(benchmark::State& state) {
  const arma::uword P = kL * (kL - 1) / 2, A2 = kA * kA, K2 = 2 * kH;
  const arma::mat vop = random_mat(A2, K2, 1), bop_t = random_mat(P, K2, 2), dws = random_mat(A2, P, 3);
  arma::mat out;
  for (auto _ : state) {
    switch (state.range(0)) {
      case 0:
        out.set_size(A2, P);
        dense_product(false, true, A2, P, K2, vop.memptr(), A2, bop_t.memptr(), P, out.memptr(), A2);
        break;
      case 1:
        out.set_size(A2, K2);
        dense_product(false, false, A2, K2, P, dws.memptr(), A2, bop_t.memptr(), P, out.memptr(), A2);
        break;
      case 2:
        out.set_size(P, K2);
        dense_product(true, false, P, K2, A2, dws.memptr(), A2, vop.memptr(), A2, out.memptr(), P);
        break;
      case 3:
        out.set_size(A2, P);
        nn::gemm(false, true, A2, P, K2, 1.0, vop.memptr(), A2, bop_t.memptr(), P, 0.0, out.memptr(), A2);
        break;
      case 4:
        out.set_size(A2, K2);
        nn::gemm(false, false, A2, K2, P, 1.0, dws.memptr(), A2, bop_t.memptr(), P, 0.0, out.memptr(), A2);
        break;
      default:
        out.set_size(P, K2);
        nn::gemm(true, false, P, K2, A2, 1.0, dws.memptr(), A2, vop.memptr(), A2, 0.0, out.memptr(), P);
    }
    benchmark::DoNotOptimize(out.memptr());
  }
  state.counters["macs_per_ns"] =
      benchmark::Counter(double(A2) * double(K2) * double(P) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AttentionProduct)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

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
  s.A = kA;
  s.heads = arma::uword(state.range(1));
  s.head_dim = arma::uword(state.range(2));
  Rng rng(5, 2);
  arma::imat batch(kB, kL);
  for (auto& v : batch) v = rng.uniform() < 0.1 ? arma::sword(kA) : arma::sword(rng.uniform() * double(kA));
  const arma::vec x = attention_potts_start(s, batch, 1e-3, 1);
  AttentionPottsPenalty pen;
  pen.lambda = 1e-3;
  pen.family_size = 999;
  AttentionPottsWorkspace ws;
  arma::vec g;
  // One evaluation first: it allocates the workspace and faults in its pages,
  // which the fit's 5000 steps do once.
  benchmark::DoNotOptimize(attention_potts_loss(s, x, batch, pen, &g, ws));
  for (auto _ : state) benchmark::DoNotOptimize(attention_potts_loss(s, x, batch, pen, &g, ws));
  set_parallel_threads(1);
  // The three products' multiply-adds (the step's bulk).
  state.counters["macs_per_ns"] =
      benchmark::Counter(3.0 * double(kA * kA) * double(2 * s.heads) * double(s.pairs()) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AttentionStep)->Args({0, 256, 32, 1})->Args({1, 256, 32, 1})->Args({1, 256, 32, 2})->Args({1, 128, 32, 1})->Args({1, 64, 32, 1})->Args({1, 32, 16, 1})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace potts
