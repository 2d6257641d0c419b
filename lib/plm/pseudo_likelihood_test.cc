// The full pseudo-likelihood baseline (lib/plm/pseudo_likelihood.h): gradient, eq. 5 at the
// true couplings, projection onto U, and convergence of the convex fit.
#include "lib/plm/pseudo_likelihood.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "tests/util/test_util.h"
#include "lib/potts/model.h"

namespace potts {
namespace {

arma::imat random_sequences(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed) {
  return testing_util::random_states(M, L, C, seed, 99);
}

arma::vec random_vector(arma::uword n, double scale, std::uint64_t seed) {
  Rng rng(seed, 98);
  arma::vec x(n);
  for (auto& v : x) v = scale * rng.normal();
  return x;
}

TEST(Plm, PackUnpackRoundTripAndSymmetry) {
  const arma::uword L = 5, C = 3;
  arma::vec x = random_vector(make_plm_model(L, C).parameter_count(), 1.0, 1);
  PlmModel m = unpack_plm(x, L, C);
  EXPECT_TRUE(arma::all(pack_plm(m) == x));
  EXPECT_TRUE(arma::approx_equal(m.couplings_W, m.couplings_W.t(), "absdiff", 0.0));
  EXPECT_EQ(arma::accu(arma::abs(m.couplings_W.submat(C, C, 2 * C - 1, 2 * C - 1))), 0.0);
}

// Central finite differences, step 1e-5: truncation error ~1e-10, far below
// the 1e-6 relative tolerance; a wrong factor (e.g. a missing symmetrisation)
// gives an O(1) error.
TEST(Plm, GradientMatchesFiniteDifferences) {
  const arma::uword L = 5, C = 3;
  arma::imat s = random_sequences(40, L, C, 2);
  PlmPenalty pen{0.03, 0.05};
  arma::vec x = random_vector(make_plm_model(L, C).parameter_count(), 0.7, 3);
  arma::vec g;
  plm_objective(unpack_plm(x, L, C), s, pen, &g);
  arma::vec fd(x.n_elem);
  const double h = 1e-5;
  for (arma::uword k = 0; k < x.n_elem; ++k) {
    arma::vec xp = x, xm = x;
    xp(k) += h;
    xm(k) -= h;
    fd(k) =
        (plm_objective(unpack_plm(xp, L, C), s, pen, nullptr) - plm_objective(unpack_plm(xm, L, C), s, pen, nullptr)) /
        (2 * h);
  }
  EXPECT_LT(arma::norm(fd - g) / arma::norm(g), 1e-6);
}

// W_ij(a, b) = beta J_ij U[a, b], h = 0 gives eq. 5 to machine precision.
TEST(Plm, TrueCouplingsGiveEquationFive) {
  PottsModel p = make_potts_model(7, 4, ColourKind::kGaussian, 0.6, 11);
  PlmModel m = plm_from_potts(p);
  arma::imat s = random_sequences(20, 7, 4, 4);
  for (arma::uword mu = 0; mu < s.n_rows; ++mu) {
    arma::irowvec row = s.row(mu);
    arma::mat P = plm_conditionals(m, row);
    for (arma::uword i = 0; i < 7; ++i) EXPECT_LT(arma::abs(P.col(i) - conditional(p, row, i)).max(), 1e-12);
  }
  EXPECT_NEAR(plm_test_loss(m, s), optimal_test_loss(p, s), 1e-12);
  // The projection onto U returns beta J exactly (both variants).
  EXPECT_LT(arma::abs(project_couplings_onto(m, p.colour_similarity_U) - p.beta * p.couplings_J).max(), 1e-12);
  EXPECT_LT(arma::abs(project_couplings_onto_zero_sum(m, p.colour_similarity_U) - p.beta * p.couplings_J).max(), 1e-12);
  EXPECT_LT(reconstruction_error(p.couplings_J, project_couplings_onto(m, p.colour_similarity_U)), 1e-14);
}

// The zero-sum projection ignores gauge terms u(a) + v(b) of a block.
TEST(Plm, ZeroSumProjectionIsGaugeInvariant) {
  PottsModel p = make_potts_model(4, 3, ColourKind::kGaussian, 1.0, 5);
  PlmModel m = plm_from_potts(p);
  arma::vec u = random_vector(3, 1.0, 6), v = random_vector(3, 1.0, 7);
  arma::mat gauge = u * arma::ones<arma::rowvec>(3) + arma::ones<arma::vec>(3) * v.t();
  m.couplings_W.submat(0, 3, 2, 5) += gauge;
  m.couplings_W.submat(3, 0, 5, 2) += gauge.t();
  arma::mat A = project_couplings_onto_zero_sum(m, p.colour_similarity_U);
  EXPECT_LT(arma::abs(A - p.beta * p.couplings_J).max(), 1e-12);
}

TEST(Plm, ColoursOutOfRangeAreAnError) {
  PlmModel m = make_plm_model(3, 2);
  arma::imat s = {{0, 1, 2}};
  EXPECT_THROW(plm_test_loss(m, s), StageError);
}

// The regularised objective is strictly convex: L-BFGS reaches a gradient
// norm below 1e-7 (the stationary point), and more data of the true model
// brings the test loss towards eps*.
TEST(Plm, FitConvergesToTheStationaryPoint) {
  const arma::uword L = 5, C = 3;
  arma::imat s = random_sequences(60, L, C, 8);
  LbfgsOptions o;
  o.gradient_tolerance = 1e-7;
  o.max_iterations = 2000;
  PlmFit fit = fit_plm(s, C, PlmPenalty{1e-3, 1e-3}, o);
  EXPECT_TRUE(fit.optimiser.converged()) << to_string(fit.optimiser.status);
  arma::vec g;
  plm_objective(fit.model, s, PlmPenalty{1e-3, 1e-3}, &g);
  EXPECT_LT(arma::norm(g), 1e-7);
  EXPECT_LT(fit.train_loss, std::log(double(C)));
}

}  // namespace
}  // namespace potts
