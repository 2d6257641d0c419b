// One training epoch (M = 3000 sequences, L = C = d = 20, mini-batches of
// 100, SGD step included, no evaluation) per model, on one thread, in double
// (the reference path; /0) and in float (/1; parameters and the SGD step in
// double, the passes in float).
// Reference (bench/train/pytorch_reference.py): PyTorch 1.13 on this
// machine's CPU, one thread:
// 42 ms factored, 390 ms vanilla one layer, 880 ms vanilla three layers.
#include <benchmark/benchmark.h>

#include <iterator>
#include <numeric>
#include <type_traits>

#include <cblas.h>

#include "bench/util/sequences.h"
#include "lib/core/rng.h"
#include "lib/nn/factored_attention.h"
#include "lib/nn/layers.h"
#include "lib/nn/transformer.h"

namespace {

using namespace potts;

constexpr arma::uword kM = 3000, kL = 20, kC = 20, kBatch = 100;

nn::SequenceSet random_data() { return bench::uniform_sequences(kM, kL, kC, 1); }

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

// Kernel level: nn::gemm against OpenBLAS (one thread) on the products of
// one training batch (d = 20, feed-forward width 40, 100 sequences x 20
// tokens = 2000 columns); /float:0 double, /float:1 float, /blas:1 OpenBLAS.
namespace {

struct GemmShape {
  const char* what;
  bool ta, tb;
  arma::uword m, n, k;
};
constexpr GemmShape kGemmShapes[] = {
    {"linear_fwd_W_X", false, false, 20, 2000, 20},
    {"ffn1_fwd", false, false, 40, 2000, 20},
    {"ffn2_fwd", false, false, 20, 2000, 40},
    {"linear_dW_dY_Xt", false, true, 20, 20, 2000},
    {"ffn1_dW", false, true, 40, 20, 2000},
    {"ffn2_dW", false, true, 20, 40, 2000},
    {"linear_dX_Wt_dY", true, false, 20, 2000, 20},
    {"ffn2_dX", true, false, 40, 2000, 20},
    {"factored_Zt_Ht_Vt", false, true, 2000, 20, 20},
    {"factored_dV_dZtt_Ht", true, false, 20, 20, 2000},
    {"factored_dHt_dZt_V", false, false, 2000, 20, 20},
    {"last_block_fwd", false, false, 20, 100, 20},
};

template <class T>
void gemm_pass(benchmark::State& state, const GemmShape& s, bool blas) {
  Rng rng(5, 5);
  nn::Mat<T> A(s.ta ? s.k : s.m, s.ta ? s.m : s.k), B(s.tb ? s.n : s.k, s.tb ? s.k : s.n), C(s.m, s.n);
  for (auto& x : A) x = T(rng.normal());
  for (auto& x : B) x = T(rng.normal());
  C.zeros();
  for (auto _ : state) {
    if (!blas)
      gemm(s.ta, s.tb, s.m, s.n, s.k, T(1), A.memptr(), A.n_rows, B.memptr(), B.n_rows, T(1), C.memptr(), s.m);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dgemm(CblasColMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, int(s.m), int(s.n),
                  int(s.k), 1.0, A.memptr(), int(A.n_rows), B.memptr(), int(B.n_rows), 1.0, C.memptr(), int(s.m));
    else
      cblas_sgemm(CblasColMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, int(s.m), int(s.n),
                  int(s.k), 1.0f, A.memptr(), int(A.n_rows), B.memptr(), int(B.n_rows), 1.0f, C.memptr(), int(s.m));
    benchmark::DoNotOptimize(C.memptr());
  }
  // Achieved multiply-adds (m n k per product) per second: "madd=31G/s" is
  // 31 per ns, to set against the core's peak (docs/performance.md).
  state.counters["madd"] =
      benchmark::Counter(double(s.m) * double(s.n) * double(s.k), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Gemm(benchmark::State& state) {
  openblas_set_num_threads(1);
  const GemmShape& s = kGemmShapes[state.range(0)];
  state.SetLabel(s.what);
  if (state.range(1))
    gemm_pass<float>(state, s, state.range(2));
  else
    gemm_pass<double>(state, s, state.range(2));
}
BENCHMARK(BM_Gemm)
    ->ArgNames({"shape", "float", "blas"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, std::size(kGemmShapes) - 1, 1), {0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

// Kernel level: the attention kernels (softmax(Q^T K / sqrt(d)) and V P,
// forward alone (/backward:0) or forward then backward) over one batch of 100 sequences, d = 20, at the
// synthetic length (L = 20) and the protein family's (L = 159), all
// positions queries (the inner blocks); /float:0 double, /float:1 float.
template <class T>
void attention_pass(benchmark::State& state, arma::uword L, bool backward) {
  const arma::uword d = 20, B = 100, n = B * L;
  Rng rng(6, 6);
  nn::Mat<T> Q(d, n), K(d, n), V(d, n), dO(d, n), O, P, dQ, dK, dV;
  for (auto* m : {&Q, &K, &V})
    for (auto& x : *m) x = T(rng.normal());
  for (auto& x : dO) x = T(0.01 * rng.normal());
  for (auto _ : state) {
    nn::attention_forward(O, P, Q, K, V, L, L);
    if (backward) nn::attention_backward(dQ, dK, dV, dO, P, Q, K, V, L, L, nn::Grad::kOverwrite);
    benchmark::DoNotOptimize(dQ.memptr());
    benchmark::DoNotOptimize(O.memptr());
  }
  // Multiply-adds of the two L x L x d products forward and four backward.
  state.counters["madd"] = benchmark::Counter((backward ? 6.0 : 2.0) * double(B) * double(L) * double(L) * double(d),
                                              benchmark::Counter::kIsIterationInvariantRate);
}
void BM_Attention(benchmark::State& state) {
  const arma::uword L = arma::uword(state.range(0));
  if (state.range(1))
    attention_pass<float>(state, L, state.range(2));
  else
    attention_pass<double>(state, L, state.range(2));
}
BENCHMARK(BM_Attention)
    ->ArgNames({"L", "float", "backward"})
    ->ArgsProduct({{20, 159}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
