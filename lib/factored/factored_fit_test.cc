// Factored attention with an L2 penalty trained full batch by L-BFGS
// (lib/factored/factored_fit.h).
#include "lib/factored/factored_fit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "tests/util/test_util.h"
#include "lib/nn/factored_attention.h"
#include "lib/potts/model.h"

namespace potts {
namespace {

nn::SequenceSet random_set(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed) {
  return nn::to_sequence_set(testing_util::random_states(M, L, C, seed, 77), C, "test data");
}

// Gradient of data term + penalty against central differences (step 1e-5:
// error ~1e-10, tolerance 1e-6 relative).
TEST(FactoredFit, ObjectiveGradientMatchesFiniteDifferences) {
  const arma::uword L = 4, C = 3;
  nn::SequenceSet d = random_set(25, L, C, 1);
  Rng rng(2, 0);
  arma::mat A(L, L), V(C, C);
  for (auto& v : A) v = rng.normal();
  for (auto& v : V) v = rng.normal();
  A.diag().zeros();
  const double lambda = 0.07;
  arma::vec g;
  factored_objective(A, V, d, C, lambda, &g);
  arma::vec x = arma::join_cols(arma::vectorise(A), arma::vectorise(V)), fd(x.n_elem);
  const double h = 1e-5;
  for (arma::uword k = 0; k < x.n_elem; ++k) {
    auto eval = [&](double dx) {
      arma::vec y = x;
      y(k) += dx;
      arma::mat Ay = arma::reshape(y.head(L * L), L, L);
      Ay.diag().zeros();  // A_ii never enters the model
      return factored_objective(Ay, arma::reshape(y.tail(C * C), C, C), d, C, lambda, nullptr);
    };
    fd(k) = (eval(h) - eval(-h)) / (2 * h);
  }
  EXPECT_LT(arma::norm(fd - g) / arma::norm(g), 1e-6);
  for (arma::uword i = 0; i < L; ++i) EXPECT_EQ(g(i + L * i), 0.0);  // diagonal of A
}

// The test: with lambda > 0 on a tiny problem L-BFGS converges to a
// stationary point, checked by recomputing the gradient independently.
TEST(FactoredFit, ConvergesToAStationaryPointWithPenalty) {
  const arma::uword L = 5, C = 3;
  nn::SequenceSet d = random_set(40, L, C, 3);
  FactoredFitOptions o;
  o.lambda = 1e-2;
  o.init_std_A = 0.1;
  o.init_std_V = 1.0;
  o.lbfgs.gradient_tolerance = 1e-8;
  o.lbfgs.max_iterations = 5000;
  FactoredFit fit = fit_factored_attention(d, C, o, 4);
  EXPECT_TRUE(fit.optimiser.converged()) << to_string(fit.optimiser.status);
  arma::vec g;
  const double obj = factored_objective(fit.A, fit.V, d, C, o.lambda, &g);
  EXPECT_LT(arma::norm(g), 1e-8);
  EXPECT_NEAR(obj, fit.objective, 1e-12);
  EXPECT_LT(obj, std::log(double(C)));  // better than the uniform predictor at A = 0
  EXPECT_EQ(arma::accu(arma::abs(fit.A.diag())), 0.0);
}

// Restarts are ranked by the training objective: the kept one is the minimum.
TEST(FactoredFit, RestartsKeepTheLowestTrainingObjective) {
  nn::SequenceSet d = random_set(30, 5, 3, 5);
  FactoredFitOptions o;
  o.lambda = 1e-3;
  o.restarts = 4;
  o.lbfgs.gradient_tolerance = 1e-7;
  FactoredFit fit = fit_factored_attention(d, 3, o, 6);
  ASSERT_EQ(fit.restarts.size(), 4u);
  for (auto& r : fit.restarts) EXPECT_LE(fit.objective, r.objective);
  EXPECT_EQ(fit.objective, fit.restarts[fit.best_restart].objective);
}

// The leading-singular-pair split of W = beta J (x) U returns A ∝ J, V ∝ U
// with A V = beta J U exactly (e_rec = 0).
TEST(FactoredFit, PlmSplitOfTrueCouplingsRecoversJ) {
  PottsModel p = make_potts_model(6, 4, ColourKind::kGaussian, 0.8, 9);
  arma::mat A, V;
  split_plm_into_factored(plm_from_potts(p), A, V);
  EXPECT_LT(reconstruction_error(p.couplings_J, A), 1e-12);
  for (arma::uword i = 0; i < 6; ++i)
    for (arma::uword j = 0; j < 6; ++j)
      if (i != j) {
        EXPECT_LT(arma::abs(A(i, j) * V - p.beta * p.couplings_J(i, j) * p.colour_similarity_U).max(), 1e-10);
      }
}

}  // namespace
}  // namespace potts
