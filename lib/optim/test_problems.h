// Problems with known minimisers for the optimisers' tests (lbfgs_test,
// lean_lbfgs_test).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include <armadillo>
#include <gtest/gtest.h>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/optim/lbfgs.h"

namespace potts::test_problems {

// Extended Rosenbrock: sum_k 100 (x_{2k+1} - x_{2k}^2)^2 + (1 - x_{2k})^2,
// minimum 0 at x = 1.
inline double rosenbrock(const arma::vec& x, arma::vec& g) {
  g.zeros(x.n_elem);
  double f = 0.0;
  for (arma::uword k = 0; k + 1 < x.n_elem; k += 2) {
    const double a = x(k + 1) - x(k) * x(k), b = 1.0 - x(k);
    f += 100.0 * a * a + b * b;
    g(k) += -400.0 * a * x(k) - 2.0 * b;
    g(k + 1) += 200.0 * a;
  }
  return f;
}

// f = 1/2 x'Qx - b'x with Q symmetric positive definite, eigenvalues
// logspace(0, 3, n) (condition number 1e3) in a random orthonormal basis,
// and b standard normal, from Rng(seed, 0): the minimiser Q^-1 b.
struct Quadratic {
  arma::mat Q;
  arma::vec b;
  double operator()(const arma::vec& x, arma::vec& g) const {
    g = Q * x - b;
    return 0.5 * arma::dot(x, Q * x) - arma::dot(b, x);
  }
};

inline Quadratic ill_conditioned_quadratic(arma::uword n, std::uint64_t seed) {
  Rng rng(seed, 0);
  arma::mat G(n, n);
  for (auto& v : G) v = rng.normal();
  arma::mat Qo, R;
  arma::qr(Qo, R, G);
  Quadratic q;
  q.Q = Qo * arma::diagmat(arma::logspace(0, 3, n)) * Qo.t();
  q.Q = 0.5 * (q.Q + q.Q.t());
  q.b.set_size(n);
  for (auto& v : q.b) v = rng.normal();
  return q;
}

// Either minimiser (lbfgs_minimize, lean_lbfgs_minimize).
using Minimize = LbfgsResult (*)(const Objective&, const arma::vec&, const LbfgsOptions&);

// The 50-dimensional ill_conditioned_quadratic(50, 7) from 0 to a gradient
// norm of 1e-10: converged, and ||x - x*|| <= ||grad|| / lambda_min = 1e-10
// (checked to 1e-9). Returns the run.
inline LbfgsResult expect_quadratic_solved(Minimize minimize, int max_iterations) {
  const Quadratic f = ill_conditioned_quadratic(50, 7);
  LbfgsOptions o;
  o.gradient_tolerance = 1e-10;
  o.max_iterations = max_iterations;
  const LbfgsResult r = minimize(f, arma::zeros(50), o);
  EXPECT_EQ(r.status, LbfgsStatus::kGradientConverged) << to_string(r.status);
  EXPECT_LE(r.gradient_norm, 1e-10);
  EXPECT_LT(arma::norm(r.x - arma::solve(f.Q, f.b)), 1e-9);
  return r;
}

// Two runs from the same start take the same iterations and evaluations
// and end on the same bits.
inline void expect_same_bits_twice(Minimize minimize, const arma::vec& x0, const LbfgsOptions& o) {
  const LbfgsResult a = minimize(rosenbrock, x0, o);
  const LbfgsResult b = minimize(rosenbrock, x0, o);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_TRUE(arma::all(a.x == b.x));
}

// Allowed three iterations on Rosenbrock from (-1.2, 1), a minimiser stops
// there, not converged.
inline void expect_stop_at_max_iterations(Minimize minimize, LbfgsOptions o) {
  o.max_iterations = 3;
  const LbfgsResult r = minimize(rosenbrock, arma::vec{-1.2, 1.0}, o);
  EXPECT_EQ(r.status, LbfgsStatus::kMaxIterations) << to_string(r.status);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_FALSE(r.converged());
}

// f = -log(1 - x^2) is +inf outside (-1, 1), minimum 0 at x = 0: from
// x = 0.9 a minimiser shortens its non-finite trial points and converges.
inline void expect_barrier_minimised(Minimize minimize) {
  Objective barrier = [](const arma::vec& x, arma::vec& g) {
    g.set_size(1);
    const double t = 1.0 - x(0) * x(0);
    if (t <= 0) {
      g(0) = 0.0;
      return std::numeric_limits<double>::infinity();
    }
    g(0) = 2.0 * x(0) / t;
    return -std::log(t);
  };
  LbfgsOptions o;
  o.gradient_tolerance = 1e-10;
  const LbfgsResult r = minimize(barrier, arma::vec{0.9}, o);
  EXPECT_TRUE(r.converged()) << to_string(r.status);
  EXPECT_NEAR(r.x(0), 0.0, 1e-10);
}

// Finite only at the start point x = 0 exactly: no step can be taken, which
// is an error (StageError), not a silent stop.
inline void expect_nan_line_is_error(Minimize minimize) {
  Objective nan_line = [](const arma::vec& x, arma::vec& g) {
    g = arma::vec{1.0};
    return x(0) == 0.0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  };
  EXPECT_THROW(minimize(nan_line, arma::vec{0.0}, LbfgsOptions{}), StageError);
}

}  // namespace potts::test_problems
