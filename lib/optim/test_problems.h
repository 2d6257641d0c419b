// Problems with known minimisers for the optimisers' tests (lbfgs_test,
// lean_lbfgs_test).
#pragma once
#include <cstdint>

#include <armadillo>

#include "lib/core/rng.h"

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

}  // namespace potts::test_problems
