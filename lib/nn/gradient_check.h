// Finite-difference gradient checks shared by lib/nn's tests (layers_test,
// models_test).
#pragma once
#include <algorithm>
#include <functional>

#include <armadillo>

#include "lib/core/rng.h"

namespace potts::nn::gradient_check {

inline arma::mat gaussian(arma::uword r, arma::uword c, Rng& rng, double scale = 1.0) {
  arma::mat m(r, c);
  for (auto& x : m) x = scale * rng.normal();
  return m;
}

// Relative error ||g_fd - g|| / max(||g_fd||, ||g||) between the analytic
// gradient `grad` of f with respect to the entries of x and central finite
// differences with step h. The truncation error is O(h^2 f''') ~ 1e-10 and
// the rounding error O(eps f / h) ~ 1e-11 for h = 1e-5 and O(1) functions,
// both far below the 1e-6 tolerance; a wrong gradient gives O(1).
inline double fd_error(arma::mat& x, const arma::mat& grad, const std::function<double()>& f, double h = 1e-5) {
  arma::mat fd(arma::size(x));
  for (arma::uword k = 0; k < x.n_elem; ++k) {
    const double x0 = x(k);
    x(k) = x0 + h;
    const double fp = f();
    x(k) = x0 - h;
    const double fm = f();
    x(k) = x0;
    fd(k) = (fp - fm) / (2 * h);
  }
  const double scale = std::max(arma::norm(fd, "fro"), arma::norm(grad, "fro"));
  // A parameter whose exact gradient vanishes (the key bias b_k: softmax is
  // invariant to adding q.b_k to every score) has only rounding noise
  // (~1e-12) on both sides; then the absolute error is returned instead.
  if (scale < 1e-8) return arma::norm(fd - grad, "fro");
  return arma::norm(fd - grad, "fro") / scale;
}

inline constexpr double kTol = 1e-6;

}  // namespace potts::nn::gradient_check
