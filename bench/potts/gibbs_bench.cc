// Site updates per second of the Gibbs sampler (lib/potts/gibbs.h) at the
// paper's size L = C = 20, for each kind of U, at several inverse
// temperatures. The counter "updates/s" (per CPU second of one core) is the
// figure of merit (the target is >= 2e7). A diagonal U (identity) takes the
// sparse path (2L exponentials per colour change); a dense U recomputes the
// C weights of every site whose fields changed, and costs more the more
// often colours change.
#include <benchmark/benchmark.h>

#include "lib/linalg/vexp.h"
#include "lib/potts/gibbs.h"
#include "lib/potts/model.h"

namespace potts {
namespace {

void BM_Sweep(benchmark::State& state, ColourKind kind, double beta) {
  const arma::uword L = 20, C = 20;
  PottsModel m = make_potts_model(L, C, kind, beta, /*seed=*/1, /*u_scale=*/0.2);
  GibbsSampler g(m, /*seed=*/1, /*stream=*/3);
  g.sweeps(1000);  // burn-in
  const std::uint64_t u0 = g.updates(), c0 = g.changes();
  for (auto _ : state) g.sweep();
  const double n = double(g.updates() - u0);
  state.counters["updates/s"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["change_rate"] = double(g.changes() - c0) / n;
}

// Identity U at the paper's beta, 12.7 (the paper-scale configs,
// stages/sample/configs/paper_*.json, use Gaussian U: the dense cases below).
BENCHMARK_CAPTURE(BM_Sweep, identity_beta12_7_paper, ColourKind::kIdentity, 12.7);
BENCHMARK_CAPTURE(BM_Sweep, identity_beta5, ColourKind::kIdentity, 5.0);
BENCHMARK_CAPTURE(BM_Sweep, identity_beta2, ColourKind::kIdentity, 2.0);
// Dense Gaussian U (this model: seed 1) at the beta where the mean normalised
// Hamming distance between samples is about 0.7: beta = 0.85 (one chain,
// 2000 sweeps burn-in, 1500 samples 200 sweeps apart: 0.69; 0.73 at beta
// 0.8, 0.66 at 0.9; noisy and not monotone in beta). Only ~27% of the
// updates change the colour there, but nearly every visit finds its row
// changed by some other site since the last visit, so all C weights are
// recomputed on almost every update.
BENCHMARK_CAPTURE(BM_Sweep, gaussian_beta0_85_hamming0_7, ColourKind::kGaussian, 0.85);
BENCHMARK_CAPTURE(BM_Sweep, gaussian_beta0_7, ColourKind::kGaussian, 0.7);
BENCHMARK_CAPTURE(BM_Sweep, gaussian_beta0_45, ColourKind::kGaussian, 0.45);
BENCHMARK_CAPTURE(BM_Sweep, gram_beta2, ColourKind::kGram, 2.0);

void BM_FastExp(benchmark::State& state) {
  double x = -0.5, s = 0;
  for (auto _ : state) {
    s += simd::exp1(x);
    x -= 1e-9;
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_FastExp);

}  // namespace
}  // namespace potts
