// Unit tests of perturbed attention (paper/spec.md §3): the O(L^2) layer
// against the section's formula written with explicit one-hot vectors, the
// reduction to factored attention (eq. 4) at a = 0, finite-difference
// gradients through the training interface, and the L == C == d requirement.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/nn/factored_attention.h"
#include "lib/nn/layers.h"
#include "lib/nn/perturbed_attention.h"
#include "tests/util/test_util.h"

namespace potts {
namespace nn {
namespace {

std::vector<int> random_sequences(arma::uword B, arma::uword L, arma::uword C, std::uint64_t seed) {
  Rng rng(seed, 99);
  std::vector<int> s(B * L);
  for (auto& c : s) c = int(rng.below(C));
  return s;
}

arma::mat random_matrix(arma::uword r, arma::uword c, Rng& rng) {
  arma::mat m(r, c);
  for (arma::uword k = 0; k < m.n_elem; ++k) m(k) = rng.normal();
  return m;
}

arma::vec one_hot(arma::uword n, arma::uword k) {
  arma::vec v(n, arma::fill::zeros);
  v(k) = 1.0;
  return v;
}

// paper/spec.md §3 verbatim: score_ij = (p_i + a e_i)^T W (p_j + a e_j) with
// e_i = 0, value_j = V (e_j + a p_j), logits_i = sum_{j != i} score_ij value_j.
arma::vec reference_logits(const arma::mat& W, const arma::mat& V, double a, const int* s, arma::uword i) {
  const arma::uword d = W.n_rows;
  arma::vec logits(d, arma::fill::zeros);
  const arma::vec query = one_hot(d, i);  // p_i + a * 0
  for (arma::uword j = 0; j < d; ++j) {
    if (j == i) continue;
    const arma::vec key = one_hot(d, j) + a * one_hot(d, s[j]);
    const double score = arma::dot(query, W * key);
    logits += score * (V * (one_hot(d, s[j]) + a * one_hot(d, j)));
  }
  return logits;
}

TEST(PerturbedAttention, LayerMatchesSectionThreeFormula) {
  const arma::uword L = 7, B = 4;
  Rng rng(5, 1);
  for (double a : {0.0, 0.3, 1.0, -0.7}) {
    const arma::mat W = random_matrix(L, L, rng), V = random_matrix(L, L, rng);
    const std::vector<int> s = random_sequences(B, L, L, 11);
    arma::mat Z, H;
    perturbed_attention_forward(Z, H, s, W, V, a, L);
    ASSERT_EQ(Z.n_rows, L);
    ASSERT_EQ(Z.n_cols, B * L);
    for (arma::uword b = 0; b < B; ++b)
      for (arma::uword i = 0; i < L; ++i) {
        const arma::vec ref = reference_logits(W, V, a, &s[b * L], i);
        EXPECT_LT(arma::abs(Z.col(b * L + i) - ref).max(), 1e-12 * (1.0 + arma::abs(ref).max()))
            << "a = " << a << " b = " << b << " i = " << i;
      }
  }
}

TEST(PerturbedAttention, MaskedColourDoesNotEnterItsOwnLogits) {
  const arma::uword L = 6;
  Rng rng(6, 1);
  PerturbedAttention m(L, L, 0.5);
  m.W = random_matrix(L, L, rng);
  m.V = random_matrix(L, L, rng);
  std::vector<int> s = random_sequences(1, L, L, 3);
  const arma::mat before = m.logits(s.data());
  s[2] = (s[2] + 1) % int(L);
  const arma::mat after = m.logits(s.data());
  EXPECT_EQ(arma::abs(before.col(2) - after.col(2)).max(), 0.0);
  EXPECT_GT(arma::abs(before.col(3) - after.col(3)).max(), 0.0);  // the others see it
}

// At a = 0 the logits are factored attention's (eq. 4) with A = W, computed
// by the train stage's own factored-attention layer, to 1e-12.
TEST(PerturbedAttention, AtZeroEqualsFactoredAttention) {
  const arma::uword L = 20, B = 5;
  Rng rng(7, 1);
  const arma::mat W = random_matrix(L, L, rng), V = random_matrix(L, L, rng);
  const std::vector<int> s = random_sequences(B, L, L, 13);
  arma::mat Z, H, Zft, Hft;
  perturbed_attention_forward(Z, H, s, W, V, 0.0, L);
  factored_attention_forward(Zft, Hft, s, W, V, L);  // one row per prediction
  EXPECT_LT(arma::abs(Z - Zft.t()).max(), 1e-12);
  // And the independent direct formula sum_{j != i} A_ij V[:, s_j].
  double worst = 0.0;
  for (arma::uword b = 0; b < B; ++b)
    for (arma::uword i = 0; i < L; ++i) {
      arma::vec direct(L, arma::fill::zeros);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i) direct += W(i, j) * V.col(arma::uword(s[b * L + j]));
      worst = std::max(worst, arma::abs(Z.col(b * L + i) - direct).max());
    }
  EXPECT_LT(worst, 1e-12);
}

// Whole models at a = 0 from the same seed: same loss and same gradients as
// FactoredAttention (dW's diagonal is zero: W_ii does not enter at a = 0).
TEST(PerturbedAttention, ModelAtZeroEqualsFactoredModel) {
  const arma::uword L = 8, M = 6;
  const std::vector<int> s = random_sequences(M, L, L, 23);
  SequenceSet data{M, L, s};
  Batch batch{&data, {0, 3, 5, 2}, {kAllPositions, 4, kAllPositions, 0}};
  PerturbedAttention p(L, L, 0.0);
  FactoredAttention f(L, L);
  p.initialise(0.3, 0.5, 42);
  f.initialise(0.3, 0.5, 42);
  EXPECT_EQ(arma::abs(p.W - f.A).max(), 0.0);
  EXPECT_EQ(arma::abs(p.V - f.V).max(), 0.0);
  p.zero_gradients();
  f.zero_gradients();
  const double lp = p.forward_backward(batch, true), lf = f.forward_backward(batch, true);
  EXPECT_NEAR(lp, lf, 1e-12 * std::abs(lf));
  arma::mat dA = f.dA;
  dA.diag().zeros();
  EXPECT_LT(arma::abs(p.dW - dA).max(), 1e-12);
  EXPECT_LT(arma::abs(p.dV - f.dV).max(), 1e-12);
  EXPECT_NEAR(p.evaluate(data).test_loss, f.evaluate(data).test_loss, 1e-12);
}

// Central differences of the summed cross-entropy through the MlmModel
// interface (with a batch mixing all-position and single-position examples).
// The difference quotient's error is O(h^2) ~ 1e-10 relative, so a relative
// error below 1e-6 leaves room for rounding only; a wrong term gives O(1).
TEST(PerturbedAttention, GradientMatchesFiniteDifferences) {
  const arma::uword L = 6, M = 5;
  const std::vector<int> s = random_sequences(M, L, L, 17);
  SequenceSet data{M, L, s};
  Batch batch{&data, {0, 1, 4, 2}, {kAllPositions, 3, kAllPositions, 5}};
  for (double a : {0.0, 0.25, 1.0}) {
    PerturbedAttention m(L, L, a);
    m.initialise(0.7, 0.7, 3);
    m.W.diag() += 0.5;  // W_ii enters the scores for a != 0
    m.zero_gradients();
    m.forward_backward(batch, true);
    for (auto& p : m.parameters()) {
      const arma::mat analytic = *p.grad;
      arma::mat numeric(arma::size(analytic));
      const double h = 1e-5;
      for (arma::uword k = 0; k < p.value->n_elem; ++k) {
        const double keep = (*p.value)(k);
        (*p.value)(k) = keep + h;
        const double up = m.forward_backward(batch, false);
        (*p.value)(k) = keep - h;
        const double down = m.forward_backward(batch, false);
        (*p.value)(k) = keep;
        numeric(k) = (up - down) / (2 * h);
      }
      const double rel = arma::norm(analytic - numeric, "fro") / arma::norm(numeric, "fro");
      EXPECT_LT(rel, 1e-6) << p.name << " at a = " << a;
    }
  }
}

TEST(PerturbedAttention, BackwardAccumulates) {
  const arma::uword L = 5;
  Rng rng(9, 1);
  const arma::mat W = random_matrix(L, L, rng), V = random_matrix(L, L, rng);
  const std::vector<int> s = random_sequences(2, L, L, 19);
  arma::mat Z, H;
  perturbed_attention_forward(Z, H, s, W, V, 0.4, L);
  const arma::mat dZ = random_matrix(L, 2 * L, rng);
  arma::mat dW1(L, L, arma::fill::zeros), dV1(L, L, arma::fill::zeros);
  perturbed_attention_backward(dW1, dV1, dZ, H, s, V, 0.4, L);
  arma::mat dW2 = dW1, dV2 = dV1;
  perturbed_attention_backward(dW2, dV2, dZ, H, s, V, 0.4, L);
  EXPECT_LT(arma::abs(dW2 - 2 * dW1).max(), 1e-12);
  EXPECT_LT(arma::abs(dV2 - 2 * dV1).max(), 1e-12);
}

using testing_util::error_of;

TEST(PerturbedAttention, RequiresLEqualsCEqualsD) {
  std::string e = error_of([] { PerturbedAttention m(20, 10, 0.1); });
  EXPECT_NE(e.find("L == C == d"), std::string::npos) << e;
  EXPECT_NE(e.find("L = 20, C = 10"), std::string::npos) << e;
  // Sequences of length 4 into a d = 5 layer.
  Rng rng(10, 1);
  const arma::mat W = random_matrix(5, 5, rng), V = random_matrix(5, 5, rng);
  arma::mat Z, H;
  e = error_of([&] { perturbed_attention_forward(Z, H, random_sequences(2, 4, 4, 1), W, V, 0.1, 4); });
  EXPECT_NE(e.find("L == C == d"), std::string::npos) << e;
  EXPECT_NE(e.find("L = 4"), std::string::npos) << e;
  // A colour outside 0..d-1.
  std::vector<int> s = random_sequences(1, 5, 5, 2);
  s[1] = 5;
  e = error_of([&] { perturbed_attention_forward(Z, H, s, W, V, 0.1, 5); });
  EXPECT_NE(e.find("colours must lie in 0..4"), std::string::npos) << e;
  EXPECT_NO_THROW(PerturbedAttention(20, 20, 0.1));
}

}  // namespace
}  // namespace nn
}  // namespace potts
