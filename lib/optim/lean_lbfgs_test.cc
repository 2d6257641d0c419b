// The memory-lean L-BFGS on problems with known minimisers, its stopping
// rules and errors, and its lane reduction.
#include "lib/optim/lean_lbfgs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "lib/core/error.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/optim/test_problems.h"

namespace potts {
namespace {

using test_problems::expect_quadratic_solved;
using test_problems::rosenbrock;

arma::vec rosenbrock_start(arma::uword n) {
  arma::vec x0(n);
  for (arma::uword k = 0; k < n; ++k) x0(k) = (k % 2 == 0) ? -1.2 : 1.0;
  return x0;
}

TEST(LeanLbfgs, RosenbrockConverges) {
  for (arma::uword n : {2u, 40u}) {
    LbfgsOptions o;
    o.gradient_tolerance = 1e-8;
    o.memory = 5;
    const LbfgsResult r = lean_lbfgs_minimize(rosenbrock, rosenbrock_start(n), o);
    EXPECT_EQ(r.status, LbfgsStatus::kGradientConverged) << to_string(r.status) << ", n = " << n;
    EXPECT_LE(r.gradient_norm, 1e-8);
    // Near x = 1 the Hessian's smallest eigenvalue is about 0.4: ||x - 1|| <= ||g|| / 0.4.
    EXPECT_LT(arma::abs(r.x - 1.0).max(), 1e-7) << "n = " << n;
    EXPECT_LT(r.iterations, 500);
  }
}

// f = 1/2 x'Qx - b'x, Q SPD with condition number 1e3: the minimiser Q^-1 b,
// as lbfgs_minimize finds it.
TEST(LeanLbfgs, ConvexQuadraticMatchesExactSolutionAndTheFullLbfgs) {
  const arma::vec x = expect_quadratic_solved(lean_lbfgs_minimize, 5000).x;
  EXPECT_LT(arma::norm(x - expect_quadratic_solved(lbfgs_minimize, 5000).x), 2e-9);
}

TEST(LeanLbfgs, DeterministicBitForBit) {
  LbfgsOptions o;
  o.memory = 3;
  test_problems::expect_same_bits_twice(lean_lbfgs_minimize, rosenbrock_start(10), o);
}

TEST(LeanLbfgs, StoppingRulesAndTheirStatuses) {
  test_problems::expect_stop_at_max_iterations(lean_lbfgs_minimize, LbfgsOptions{});
  LbfgsOptions o;
  o.gradient_tolerance = 0.0;
  o.relative_decrease = 1e-3;
  std::vector<double> values;
  o.on_iteration = [&](int, double f, double) { values.push_back(f); };
  const LbfgsResult r = lean_lbfgs_minimize(rosenbrock, arma::vec{-1.2, 1.0}, o);
  EXPECT_EQ(r.status, LbfgsStatus::kRelativeDecrease);
  ASSERT_GE(values.size(), 2u);
  EXPECT_EQ(values.back(), r.value);
  const double prev = values[values.size() - 2];
  EXPECT_LE(prev - r.value, 1e-3 * std::max({std::abs(r.value), std::abs(prev), 1.0}));
  for (std::size_t k = 1; k < values.size(); ++k) EXPECT_LT(values[k], values[k - 1]) << "iteration " << k + 1;
}

TEST(LeanLbfgs, NonFiniteValuesAreShortenedOrAnError) {
  test_problems::expect_barrier_minimised(lean_lbfgs_minimize);

  Objective nan_start = [](const arma::vec& x, arma::vec& g) {
    g = x;
    return std::numeric_limits<double>::quiet_NaN();
  };
  EXPECT_THROW(lean_lbfgs_minimize(nan_start, arma::vec{1.0}, LbfgsOptions{}), StageError);
  test_problems::expect_nan_line_is_error(lean_lbfgs_minimize);
}

// Element k goes to lane k mod 8: here 1e16 and -1e16 cancel in lane 0 and
// the 1 of lane 1 survives; summed in index order the 1 is lost.
TEST(LeanLbfgs, LaneDotSumsInFixedLanes) {
  const arma::vec a = {1e16, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1e16};
  const arma::vec ones(a.n_elem, arma::fill::ones);
  EXPECT_EQ(lane_dot(a, ones), 1.0);
  EXPECT_EQ(ordered_dot(a, ones), 0.0);
  EXPECT_THROW(lane_dot(a, arma::vec(3, arma::fill::ones)), std::logic_error);
}

// The lane sums kept in registers (lane_sums) against lane k mod 8 written
// out, bit for bit, at lengths with every remainder mod 8.
TEST(LeanLbfgs, LaneDotIsTheLaneFormulaBitForBit) {
  Rng rng(7, 0);
  for (arma::uword n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 1001u, 100003u}) {
    arma::vec a(n), b(n);
    for (arma::uword k = 0; k < n; ++k) {
      a(k) = rng.normal() * std::exp(10.0 * rng.uniform());
      b(k) = rng.normal();
    }
    double s[8] = {};
    for (arma::uword k = 0; k < n; ++k) s[k % 8] += a(k) * b(k);
    const double want = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    const double got = lane_dot(a, b);
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "n = " << n << ": " << got << " vs " << want;
  }
}

// The elementwise passes run on parallel_ranges: the iterates are the same
// bits at 1, 2 and 3 threads, on a problem long enough (200 000 parameters)
// that every pass is cut into ranges.
TEST(LeanLbfgs, SameBitsAtEveryThreadCount) {
  LbfgsOptions o;
  o.memory = 4;
  o.max_iterations = 25;
  o.gradient_tolerance = 0.0;
  const arma::vec x0 = rosenbrock_start(200000);
  std::vector<LbfgsResult> runs;
  for (int threads : {1, 2, 3}) {
    set_parallel_threads(threads);
    runs.push_back(lean_lbfgs_minimize(rosenbrock, x0, o));
  }
  set_parallel_threads(1);
  ASSERT_EQ(runs[0].iterations, 25);
  for (std::size_t t = 1; t < runs.size(); ++t) {
    EXPECT_EQ(runs[t].evaluations, runs[0].evaluations) << t + 1 << " threads";
    EXPECT_EQ(std::memcmp(&runs[t].value, &runs[0].value, sizeof(double)), 0) << t + 1 << " threads";
    ASSERT_EQ(runs[t].x.n_elem, runs[0].x.n_elem);
    EXPECT_EQ(std::memcmp(runs[t].x.memptr(), runs[0].x.memptr(), runs[0].x.n_elem * sizeof(double)), 0)
        << t + 1 << " threads";
  }
}

}  // namespace
}  // namespace potts
