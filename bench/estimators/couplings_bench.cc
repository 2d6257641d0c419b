// The coupling models' weighted pseudo-likelihood objective (with its
// gradient) at the protein family's size (L = 159, q = 21, M = 999 random
// sequences, random weights), one thread: the data term alone on given
// couplings, and the whole objective of each form (the full model; factored
// attention with H heads; softmax attention, 32 heads of dimension 16,
// values of rank 16), timed per evaluation.
#include <benchmark/benchmark.h>

#include <cblas.h>

#include "lib/core/rng.h"
#include "lib/estimators/coupling_models.h"

namespace {

using namespace potts;

constexpr arma::uword kL = 159, kQ = 21, kM = 999;

const arma::imat& sequences() {
  static const arma::imat s = [] {
    Rng rng(1, 5);
    arma::imat x(kM, kL);
    for (auto& v : x) v = arma::sword(rng.below(kQ));
    return x;
  }();
  return s;
}

const arma::vec& weights() {
  static const arma::vec w = [] {
    Rng rng(2, 5);
    arma::vec x(kM);
    for (auto& v : x) v = 0.2 + rng.uniform();
    return x;
  }();
  return w;
}

void BM_PlDataTerm(benchmark::State& state) {
  openblas_set_num_threads(1);
  Rng rng(3, 5);
  arma::mat W(kL * kQ, kL * kQ), h(kQ, kL, arma::fill::zeros), dW, dh;
  for (auto& v : W) v = 0.01 * rng.normal();
  for (arma::uword i = 0; i < kL; ++i) W.submat(i * kQ, i * kQ, i * kQ + kQ - 1, i * kQ + kQ - 1).zeros();
  for (auto _ : state) benchmark::DoNotOptimize(weighted_pl_data_term(W, h, sequences(), weights(), &dW, &dh));
  state.SetItemsProcessed(state.iterations() * std::int64_t(kM));  // sequences
}
BENCHMARK(BM_PlDataTerm)->Unit(benchmark::kMillisecond);

void run_objective(benchmark::State& state, const CouplingSpec& spec) {
  openblas_set_num_threads(1);
  CouplingInit init;
  const arma::vec x = coupling_initial_point(spec, init, sequences(), weights(), 4, 0);
  arma::vec g;
  const CouplingPenalty pen{1e-4, 1e-4};
  for (auto _ : state) benchmark::DoNotOptimize(coupling_objective(spec, x, sequences(), weights(), pen, &g));
  state.counters["parameters"] = double(spec.parameter_count());
}

CouplingSpec spec(CouplingForm form, arma::uword heads, arma::uword d, arma::uword rank) {
  CouplingSpec s;
  s.form = form;
  s.L = kL;
  s.C = kQ;
  s.heads = heads;
  s.head_dim = d;
  s.value_rank = rank;
  s.fields = true;
  s.symmetrise = form == CouplingForm::kSoftmax;
  return s;
}

void BM_FullObjective(benchmark::State& state) { run_objective(state, spec(CouplingForm::kFull, 1, 0, 0)); }
BENCHMARK(BM_FullObjective)->Unit(benchmark::kMillisecond);

void BM_FactoredObjective(benchmark::State& state) {
  run_objective(state, spec(CouplingForm::kFactored, arma::uword(state.range(0)), 0, 0));
}
BENCHMARK(BM_FactoredObjective)->ArgName("H")->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_SoftmaxObjective(benchmark::State& state) { run_objective(state, spec(CouplingForm::kSoftmax, 32, 16, 16)); }
BENCHMARK(BM_SoftmaxObjective)->Unit(benchmark::kMillisecond);

}  // namespace
