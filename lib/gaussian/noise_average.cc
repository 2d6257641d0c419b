#include "lib/gaussian/noise_average.h"

#include <cmath>

#include "lib/core/error.h"

namespace potts::gaussian {

Overlaps noise_averaged_loss(const MaskedTeacher& t, const arma::mat& X, double lambda) {
  if (!(lambda >= 0.0) || !std::isfinite(lambda))
    throw StageError("noise_averaged_loss: lambda = " + format_number(lambda, 6) + " must be a finite number >= 0");
  const arma::uword n = X.n_rows, D = X.n_cols;
  if (D != t.teacher_w.n_elem)
    throw StageError("noise_averaged_loss: the design has " + std::to_string(D) + " columns, the teacher " +
                     std::to_string(t.teacher_w.n_elem));
  arma::mat R;  // D x n: ŵ = R y
  bool ok;
  if (n >= D) {
    arma::mat G = X.t() * X;
    G.diag() += lambda;
    ok = arma::solve(R, G, X.t(), arma::solve_opts::likely_sympd + arma::solve_opts::no_approx);
  } else {
    arma::mat K = X * X.t();  // R = Xᵀ K⁻¹, so Rᵀ = K⁻¹ X (K symmetric)
    K.diag() += lambda;
    arma::mat Rt;
    ok = arma::solve(Rt, K, X, arma::solve_opts::likely_sympd + arma::solve_opts::no_approx);
    if (ok) R = Rt.t();
  }
  if (!ok) throw StageError("noise_averaged_loss: the design is singular (lambda = 0 needs full rank)");
  const arma::mat& Om = t.feature_covariance_Omega;
  const arma::vec w_b = R * (X * t.teacher_w);
  const arma::vec Om_wb = Om * w_b;
  Overlaps o;
  o.rho = t.rho;
  o.m = arma::dot(t.teacher_w, Om_wb);
  o.q = arma::dot(w_b, Om_wb) + t.noise_sigma2 * arma::accu((Om * R) % R);  // tr(Ω R Rᵀ)
  o.eps_g = generalisation_error(t.noise_sigma2, o.rho, o.m, o.q);
  return o;
}

}  // namespace potts::gaussian
