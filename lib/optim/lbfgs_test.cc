// L-BFGS on problems with known minimisers.
#include "lib/optim/lbfgs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/optim/test_problems.h"

namespace potts {
namespace {

using test_problems::rosenbrock;

TEST(Lbfgs, RosenbrockTwoDimensions) {
  LbfgsOptions o;
  o.gradient_tolerance = 1e-9;
  LbfgsResult r = lbfgs_minimize(rosenbrock, arma::vec{-1.2, 1.0}, o);
  EXPECT_EQ(r.status, LbfgsStatus::kGradientConverged) << to_string(r.status);
  EXPECT_TRUE(r.converged());
  EXPECT_LE(r.gradient_norm, 1e-9);
  EXPECT_NEAR(r.x(0), 1.0, 1e-8);
  EXPECT_NEAR(r.x(1), 1.0, 1e-8);
  EXPECT_LT(r.iterations, 100);
}

TEST(Lbfgs, RosenbrockFortyDimensions) {
  arma::vec x0(40);
  for (arma::uword k = 0; k < 40; ++k) x0(k) = (k % 2 == 0) ? -1.2 : 1.0;
  LbfgsOptions o;
  o.gradient_tolerance = 1e-8;
  LbfgsResult r = lbfgs_minimize(rosenbrock, x0, o);
  EXPECT_TRUE(r.converged()) << to_string(r.status);
  EXPECT_LE(r.gradient_norm, 1e-8);
  EXPECT_LT(arma::abs(r.x - 1.0).max(), 1e-7);
}

// f = 1/2 x'Qx - b'x with Q SPD (condition number ~1e3): minimiser Q^{-1} b.
TEST(Lbfgs, ConvexQuadraticMatchesExactSolution) { test_problems::expect_quadratic_solved(lbfgs_minimize, 2000); }

TEST(Lbfgs, DeterministicBitForBit) {
  test_problems::expect_same_bits_twice(lbfgs_minimize, arma::vec{-1.2, 1.0, 0.3, -0.5}, LbfgsOptions{});
}

TEST(Lbfgs, MaxIterationsIsReportedAsNotConverged) {
  test_problems::expect_stop_at_max_iterations(lbfgs_minimize, LbfgsOptions{});
}

TEST(Lbfgs, RelativeDecreaseStops) {
  LbfgsOptions o;
  o.gradient_tolerance = 0.0;
  o.relative_decrease = 1e-3;
  LbfgsResult r = lbfgs_minimize(rosenbrock, arma::vec{-1.2, 1.0}, o);
  EXPECT_EQ(r.status, LbfgsStatus::kRelativeDecrease);
  EXPECT_TRUE(r.converged());
}

TEST(Lbfgs, NonFiniteStartIsAnError) {
  Objective f = [](const arma::vec& x, arma::vec& g) {
    g = x;
    return std::numeric_limits<double>::quiet_NaN();
  };
  EXPECT_THROW(lbfgs_minimize(f, arma::vec{1.0}, LbfgsOptions{}), StageError);
}

TEST(Lbfgs, NonFiniteTrialPointsAreShortened) { test_problems::expect_barrier_minimised(lbfgs_minimize); }

TEST(Lbfgs, NonFiniteEverywhereAlongTheLineIsAnError) { test_problems::expect_nan_line_is_error(lbfgs_minimize); }

}  // namespace
}  // namespace potts

namespace potts {
namespace {

// The reductions sum in index order: a case where the order matters.
TEST(OrderedReductions, SumInIndexOrder) {
  arma::vec a = {1e16, 1.0, -1e16, 1.0};
  arma::vec ones(4, arma::fill::ones);
  // ((1e16 + 1) - 1e16) + 1 = 1 in doubles; (1e16 - 1e16) + (1 + 1) would be 2.
  EXPECT_EQ(ordered_dot(a, ones), 1.0);
  EXPECT_EQ(ordered_norm(arma::vec{3.0, 4.0}), 5.0);
  EXPECT_THROW(ordered_dot(a, arma::vec(3, arma::fill::ones)), std::logic_error);
}

}  // namespace
}  // namespace potts
