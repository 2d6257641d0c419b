// The factored-attention fit of the sample-complexity stage (potts_alpha),
// one thread: the full-batch objective with its gradient at M sequences
// (L = C = 20), and one whole L-BFGS fit at the peak experiment's sizes
// (M = 20-40, lambda = 1e-4, gradient tolerance 1e-5, memory 10), and the
// objective on sequences of fewer distinct colours, as in the paper's data.
#include <benchmark/benchmark.h>

#include <cblas.h>

#include "bench/util/sequences.h"
#include "lib/core/rng.h"
#include "lib/factored/factored_fit.h"
#include "lib/nn/factored_attention.h"

namespace {

using namespace potts;

constexpr arma::uword kL = 20, kC = 20;

nn::SequenceSet random_data(arma::uword M) { return bench::uniform_sequences(M, kL, kC, 1); }

// The full-batch objective with its gradient on data, timed per call.
void run_objective(benchmark::State& state, const nn::SequenceSet& data) {
  openblas_set_num_threads(1);
  nn::FactoredAttention model(kL, kC);
  model.initialise(0.1, 1.0, 3);
  nn::FullBatchObjective f(model, data, double(data.M * data.L), 1e-4);  // buffers kept across calls
  const arma::vec theta = nn::pack_parameters(model);
  arma::vec grad;
  for (auto _ : state) benchmark::DoNotOptimize(f(theta, &grad));
  state.SetItemsProcessed(state.iterations() * std::int64_t(data.M));  // sequences
}

void BM_FactoredObjective(benchmark::State& state) { run_objective(state, random_data(arma::uword(state.range(0)))); }
BENCHMARK(BM_FactoredObjective)->ArgName("M")->Arg(30)->Arg(300)->Arg(3000)->Unit(benchmark::kMicrosecond);

// Sequences of about 8.6 distinct colours each (every sequence draws its 20
// positions from 10 consecutive colours, mod C), near the paper's data
// (about 10 of 20): the fused kernel's work follows that number.
nn::SequenceSet few_colour_data(arma::uword M) {
  Rng rng(2, 5);
  nn::SequenceSet s{M, kL, std::vector<int>(M * kL)};
  for (arma::uword m = 0; m < M; ++m) {
    const arma::uword offset = rng.below(kC);
    for (arma::uword i = 0; i < kL; ++i) s.s[m * kL + i] = int((offset + rng.below(10)) % kC);
  }
  return s;
}

void BM_FactoredObjectiveFewColours(benchmark::State& state) {
  run_objective(state, few_colour_data(arma::uword(state.range(0))));
}
BENCHMARK(BM_FactoredObjectiveFewColours)->ArgName("M")->Arg(300)->Unit(benchmark::kMicrosecond);

void BM_FactoredFit(benchmark::State& state) {
  openblas_set_num_threads(1);
  const nn::SequenceSet data = random_data(arma::uword(state.range(0)));
  FactoredFitOptions o;
  o.lambda = 1e-4;
  o.init = "random";
  o.init_std_A = 0.1;
  o.init_std_V = 1.0;
  o.restarts = 1;
  o.lbfgs.max_iterations = 5000;
  o.lbfgs.gradient_tolerance = 1e-5;
  o.lbfgs.memory = 10;
  int evaluations = 0;
  for (auto _ : state) {
    FactoredFit fit = fit_factored_attention(data, kC, o, 7);
    evaluations = fit.optimiser.evaluations;
    benchmark::DoNotOptimize(fit.objective);
  }
  state.counters["evaluations"] = evaluations;
}
BENCHMARK(BM_FactoredFit)->ArgName("M")->Arg(30)->Unit(benchmark::kMillisecond);

}  // namespace
