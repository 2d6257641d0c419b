#include "lib/factored/finite_sample_excess.h"

#include <cmath>

#include "lib/core/error.h"

namespace potts {

FiniteSampleExcess finite_sample_excess(nn::FactoredAttention& model, const nn::SequenceSet& train, double step,
                                        double rank_tolerance) {
  const arma::uword M = train.M, L = train.L;
  if (M < 2) throw StageError("finite_sample_excess: needs 2 or more training sequences");
  const arma::vec theta = nn::pack_parameters(model);
  const arma::uword P = theta.n_elem;

  // Per-sequence gradients (loss summed over the sequence's positions).
  arma::mat G(P, P, arma::fill::zeros);
  arma::vec mean_g(P, arma::fill::zeros);
  {
    nn::SequenceSet one;
    one.M = 1;
    one.L = L;
    one.s.resize(L);
    nn::FullBatchObjective f(model, one, 1.0, 0.0);
    arma::vec g;
    for (arma::uword m = 0; m < M; ++m) {
      std::copy(train.row(m), train.row(m) + L, one.s.begin());
      f(theta, &g);
      mean_g += g;
      G += g * g.t();
    }
    mean_g /= double(M);
    G = G / double(M) - mean_g * mean_g.t();
  }

  // H: central differences of the mean gradient, symmetrised.
  nn::FullBatchObjective f(model, train, double(M), 0.0);
  arma::mat H(P, P);
  arma::vec gp, gm, x = theta;
  for (arma::uword k = 0; k < P; ++k) {
    const double h = step * std::max(1.0, std::abs(theta(k)));
    x(k) = theta(k) + h;
    f(x, &gp);
    x(k) = theta(k) - h;
    f(x, &gm);
    x(k) = theta(k);
    H.col(k) = (gp - gm) / (2 * h);
  }
  H = 0.5 * (H + H.t());
  nn::unpack_parameters(model, theta);

  arma::vec lambda;
  arma::mat U;
  if (!arma::eig_sym(lambda, U, H)) throw StageError("finite_sample_excess: eigendecomposition of H failed");
  const double cut = rank_tolerance * lambda.max();
  FiniteSampleExcess out;
  for (arma::uword k = 0; k < P; ++k) {
    if (!(lambda(k) > cut)) continue;
    out.trace += arma::as_scalar(U.col(k).t() * G * U.col(k)) / lambda(k);
    ++out.rank;
  }
  if (!std::isfinite(out.trace)) throw StageError("finite_sample_excess: the trace is not finite");
  out.excess_per_position = out.trace / (2.0 * double(M) * double(L));
  out.gradient_norm = arma::norm(mean_g);
  return out;
}

}  // namespace potts
