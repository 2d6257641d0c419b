// One training epoch (M = 3000 sequences, L = C = d = 20, mini-batches of
// 100, SGD step included, no evaluation) per model, on one thread, in double
// (the reference path; /0) and in float (/1; parameters and the SGD step in
// double, the passes in float).
// Reference (issue 4): PyTorch 1.13 on this machine's CPU, one thread:
// 42 ms factored, 390 ms vanilla one layer, 880 ms vanilla three layers.
#include <benchmark/benchmark.h>

#include <numeric>

#include <cblas.h>

#include "lib/core/rng.h"
#include "lib/nn/factored_attention.h"
#include "lib/nn/layers.h"
#include "lib/nn/transformer.h"

namespace {

using namespace potts;

constexpr arma::uword kM = 3000, kL = 20, kC = 20, kBatch = 100;

nn::SequenceSet random_data() {
  Rng rng(1, 5);
  nn::SequenceSet s;
  s.M = kM;
  s.L = kL;
  s.s.resize(kM * kL);
  for (auto& x : s.s) x = int(rng.below(kC));
  return s;
}

// One epoch: 30 batches of forward, backward and SGD step.
void epoch(nn::MlmModel& model, const nn::SequenceSet& data, bool all_positions, Rng& rng) {
  std::vector<nn::Param> params = model.parameters();
  for (arma::uword b0 = 0; b0 < kM; b0 += kBatch) {
    nn::Batch batch;
    batch.data = &data;
    for (arma::uword m = b0; m < b0 + kBatch; ++m) {
      batch.rows.push_back(m);
      batch.masked.push_back(all_positions ? nn::kAllPositions : int(rng.below(kL)));
    }
    model.zero_gradients();
    model.forward_backward(batch, true);
    const double lr = 0.01 / double(batch.predictions());
    for (auto& p : params) *p.value -= lr * *p.grad;
  }
}

nn::Precision precision(const benchmark::State& state, int arg) {
  return state.range(arg) ? nn::Precision::kFloat : nn::Precision::kDouble;
}

void BM_FactoredEpoch(benchmark::State& state) {
  openblas_set_num_threads(1);  // one thread, as the reference
  nn::SequenceSet data = random_data();
  nn::FactoredAttention m(kL, kC, precision(state, 0));
  m.initialise(0.1, 0.1, 1);
  Rng rng(2, 3);
  for (auto _ : state) epoch(m, data, true, rng);
}
BENCHMARK(BM_FactoredEpoch)->ArgName("float")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_VanillaEpoch(benchmark::State& state) {
  openblas_set_num_threads(1);
  nn::SequenceSet data = random_data();
  nn::TransformerOptions o;
  o.layers = state.range(0);
  nn::VanillaTransformer m(o, precision(state, 1));
  m.initialise(1);
  Rng rng(2, 3);
  for (auto _ : state) epoch(m, data, false, rng);
}
BENCHMARK(BM_VanillaEpoch)
    ->ArgNames({"layers", "float"})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({3, 0})
    ->Args({3, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

// Kernel level: LayerNorm forward and backward over one batch's tokens
// (d = 20, 2000 columns), float (/1) and double (/0).
template <class T>
void layer_norm_pass(benchmark::State& state) {
  const arma::uword d = 20, n = 2000;
  Rng rng(4, 4);
  nn::Mat<T> X(d, n), dY(d, n), Y, dX, gamma(d, 1, arma::fill::ones), beta(d, 1, arma::fill::zeros);
  for (auto& x : X) x = T(rng.normal());
  for (auto& x : dY) x = T(0.01 * rng.normal());
  nn::Mat<T> dg(d, 1, arma::fill::zeros), db(d, 1, arma::fill::zeros);
  nn::LayerNormCacheT<T> cache;
  for (auto _ : state) {
    nn::layernorm_forward(Y, cache, X, gamma, beta, 1e-6);
    nn::layernorm_backward(dX, dg, db, dY, cache, gamma, nn::Grad::kOverwrite);
    benchmark::DoNotOptimize(dX.memptr());
  }
}
void BM_LayerNorm(benchmark::State& state) {
  if (state.range(0))
    layer_norm_pass<float>(state);
  else
    layer_norm_pass<double>(state);
}
BENCHMARK(BM_LayerNorm)->ArgName("float")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
