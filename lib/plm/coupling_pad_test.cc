// The pseudo-likelihood model with pads (coupling_pad.h): eq. O2 against a
// direct evaluation, its gradient against central differences, pads, and a
// fit that lowers the objective to a point where the gradient is small.
#include "lib/plm/coupling_pad.h"

#include <cmath>

#include <gtest/gtest.h>

#include "lib/core/rng.h"

namespace potts {
namespace {

constexpr arma::uword kL = 5, kA = 3;

arma::imat batch() {
  Rng rng(4, 1);
  arma::imat s(9, kL);
  for (auto& v : s) v = rng.uniform() < 0.2 ? arma::sword(kA) : arma::sword(rng.uniform() * double(kA));
  return s;
}

arma::vec point() {
  Rng rng(8, 2);
  arma::vec x(pad_plm_parameter_count(kL, kA));
  for (auto& v : x) v = rng.uniform() - 0.5;
  return x;
}

double direct(const arma::vec& x, const arma::imat& s, const PadPlmPenalty& pen) {
  arma::mat W(kL * kA, kL * kA, arma::fill::zeros);
  const arma::mat b(const_cast<double*>(x.memptr()), kA, kL, false, true);
  for (arma::uword i = 0; i < kL; ++i)
    for (arma::uword j = i + 1; j < kL; ++j) {
      const arma::mat blk(const_cast<double*>(x.memptr()) + kA * kL + kA * kA * pair_index(i, j, kL), kA, kA, false,
                          true);
      W.submat(i * kA, j * kA, i * kA + kA - 1, j * kA + kA - 1) = blk;
      W.submat(j * kA, i * kA, j * kA + kA - 1, i * kA + kA - 1) = blk.t();
    }
  double ce = 0.0;
  for (arma::uword n = 0; n < s.n_rows; ++n)
    for (arma::uword i = 0; i < kL; ++i) {
      if (s(n, i) >= arma::sword(kA)) continue;
      arma::vec z = b.col(i);
      for (arma::uword j = 0; j < kL; ++j)
        if (j != i && s(n, j) < arma::sword(kA)) z += W.col(j * kA + s(n, j)).subvec(i * kA, i * kA + kA - 1);
      ce += std::log(arma::accu(arma::exp(z))) - z(s(n, i));
    }
  return ce / double(kL * s.n_rows) + pen.lambda_h * arma::accu(b % b) + pen.lambda_c * arma::accu(W % W);
}

TEST(CouplingPad, ObjectiveIsEqO2AndGradientMatchesDifferences) {
  const arma::imat s = batch();
  const arma::vec x = point();
  PadPlmPenalty pen;
  pen.lambda_h = 0.03;
  pen.lambda_c = 0.05;
  PadDataWorkspace work;
  arma::vec g;
  const double f = pad_plm_objective(kL, kA, x, s, pen, &g, work);
  EXPECT_NEAR(f, direct(x, s, pen), 1e-13 * std::abs(f));
  const double h = 1e-5;
  double worst = 0.0;
  for (arma::uword e = 0; e < x.n_elem; ++e) {
    arma::vec xp = x, xm = x;
    xp(e) += h;
    xm(e) -= h;
    const double fd =
        (pad_plm_objective(kL, kA, xp, s, pen, nullptr, work) - pad_plm_objective(kL, kA, xm, s, pen, nullptr, work)) /
        (2 * h);
    worst = std::max(worst, std::abs(fd - g(e)));
  }
  // Truncation ~h^2 f''' ~ 1e-10, rounding ~1e-16 / h ~ 1e-11.
  EXPECT_LT(worst, 1e-8);
}

TEST(CouplingPad, FitLowersTheObjective) {
  const arma::imat s = batch();
  PadPlmPenalty pen;
  pen.lambda_h = 0.01;
  pen.lambda_c = 0.01;
  LbfgsOptions o;
  o.memory = 5;
  o.max_iterations = 500;
  o.gradient_tolerance = 1e-8;
  const LbfgsResult r = fit_pad_plm(kL, kA, s, pen, o);
  PadDataWorkspace work;
  const arma::vec zero(pad_plm_parameter_count(kL, kA), arma::fill::zeros);
  EXPECT_LT(r.value, pad_plm_objective(kL, kA, zero, s, pen, nullptr, work) - 0.01);
  EXPECT_LT(r.gradient_norm, 1e-6);
  EXPECT_GT(pad_plm_mean_loss(kL, kA, r.x, s), 0.0);
  const arma::mat F = pad_plm_block_norms(kL, kA, r.x);
  EXPECT_TRUE(F.is_symmetric());
  EXPECT_GT(F.max(), 0.0);
}

}  // namespace
}  // namespace potts
