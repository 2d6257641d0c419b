// Site updates per second of the Gibbs sampler (lib/potts/gibbs.h) at the
// paper's size L = C = 20, for each kind of U, at several inverse
// temperatures. The counter "updates/s" (per CPU second of one core) is the
// figure of merit (issue 3 asks >= 2e7). A diagonal U (identity) takes the
// sparse path (2L exponentials per colour change); a dense U recomputes the
// C weights of every site whose fields changed, and costs more the more
// often colours change.
#include <benchmark/benchmark.h>

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

// The paper configuration (stages/sample/configs/paper.json calibrates to beta ~12.7).
BENCHMARK_CAPTURE(BM_Sweep, identity_beta12_7_paper, ColourKind::kIdentity, 12.7);
BENCHMARK_CAPTURE(BM_Sweep, identity_beta5, ColourKind::kIdentity, 5.0);
BENCHMARK_CAPTURE(BM_Sweep, identity_beta2, ColourKind::kIdentity, 2.0);
BENCHMARK_CAPTURE(BM_Sweep, gaussian_beta0_7, ColourKind::kGaussian, 0.7);
BENCHMARK_CAPTURE(BM_Sweep, gaussian_beta0_45, ColourKind::kGaussian, 0.45);
BENCHMARK_CAPTURE(BM_Sweep, gram_beta2, ColourKind::kGram, 2.0);

void BM_FastExp(benchmark::State& state) {
  double x = -0.5, s = 0;
  for (auto _ : state) {
    s += fast_exp(x);
    x -= 1e-9;
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_FastExp);

}  // namespace
}  // namespace potts
