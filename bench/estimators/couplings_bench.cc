// The coupling models' weighted pseudo-likelihood objective (with its
// gradient) at the protein family's size (L = 159, q = 21, M = 999 random
// sequences, random weights), one thread: the data term alone on given
// couplings, and the whole objective of each form (the full model; factored
// attention with H heads; softmax attention, 32 heads of dimension 16,
// values of rank 16), timed per evaluation.
#include <benchmark/benchmark.h>

#include <cblas.h>

#include "lib/core/rng.h"
#include "lib/couplings/coupling_models.h"
#include "lib/optim/adamw.h"

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

// One AdamW step of the observation's main configuration as the couplings
// path computes it today: softmax attention, H = 256 heads of dimension 32,
// full 21 x 21 value matrices, on a batch of 128 sequences. Forming W and
// its gradient with respect to the attention maps and V are three products
// of L^2 x H x q^2 multiply-adds each; "macs_per_ns" is that count over
// the step's time, to set against lib/nn's gemm (train_bench's BM_Gemm).
void BM_AdamwStepH256(benchmark::State& state) {
  openblas_set_num_threads(1);
  const CouplingSpec s = spec(CouplingForm::kSoftmax, 256, 32, 0);
  CouplingInit init;
  arma::vec x = coupling_initial_point(s, init, sequences(), weights(), 4, 0), g;
  BatchStream batches(kM, 128, 4);
  AdamwOptions o;
  o.lr = 5e-3;
  Adamw opt(x.n_elem, o);
  const CouplingPenalty pen{0.0, 0.0, 1e-3};
  for (auto _ : state) {
    const arma::uvec rows = batches.next();
    benchmark::DoNotOptimize(coupling_objective(s, x, sequences().rows(rows), arma::vec(rows.n_elem, arma::fill::ones),
                                                pen, &g, CouplingPath::kCouplings));
    opt.step(x, g);
  }
  const double macs = 3.0 * double(kL * kL) * 256.0 * double(kQ * kQ);
  state.counters["macs_per_ns"] =
      benchmark::Counter(macs * 1e-9 * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["parameters"] = double(s.parameter_count());
}
BENCHMARK(BM_AdamwStepH256)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
