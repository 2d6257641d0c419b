// Unit tests of lib/gaussian (paper/spec.md §4): GOE couplings, precision
// and its errors, the masked-position teacher against a direct conditional-
// Gaussian computation, sampling, ridge against the normal equations, the
// exact generalisation loss (eq. 7) and the α grid.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "lib/core/rng.h"
#include "lib/gaussian/gaussian.h"
#include "tests/util/test_util.h"

namespace potts::gaussian {
namespace {

using testing_util::error_of;

arma::mat test_precision(int L, std::uint64_t seed) {
  Rng rng(seed, streams::kGaussianTeacher);
  return precision_matrix(goe_couplings(L, rng), 3.0);
}

TEST(Goe, SymmetricWithSemicircleScaling) {
  const int L = 400;
  Rng rng(7, streams::kGaussianTeacher);
  arma::mat J = goe_couplings(L, rng);
  EXPECT_EQ(arma::norm(J - J.t(), "inf"), 0.0);
  // Off-diagonal variance 1/L (≈ 80k entries: relative SE ≈ 0.5%), diagonal 2/L (400 entries: SE ≈ 7%).
  double off = 0, diag = 0;
  for (int i = 0; i < L; ++i) {
    diag += J(i, i) * J(i, i);
    for (int j = i + 1; j < L; ++j) off += J(i, j) * J(i, j);
  }
  off /= L * (L - 1) / 2.0;
  diag /= L;
  EXPECT_NEAR(off * L, 1.0, 0.03);
  EXPECT_NEAR(diag * L / 2, 1.0, 0.3);
  // Spectrum edge at 2 (finite-L fluctuations O(L^{-2/3}) ≈ 0.02).
  arma::vec ev = arma::eig_sym(J);
  EXPECT_NEAR(ev.max(), 2.0, 0.1);
  EXPECT_NEAR(ev.min(), -2.0, 0.1);
}

TEST(Goe, SameSeedSameMatrix) {
  Rng a(3, streams::kGaussianTeacher), b(3, streams::kGaussianTeacher), c(4, streams::kGaussianTeacher);
  arma::mat Ja = goe_couplings(30, a), Jb = goe_couplings(30, b), Jc = goe_couplings(30, c);
  EXPECT_TRUE(arma::approx_equal(Ja, Jb, "absdiff", 0.0));
  EXPECT_FALSE(arma::approx_equal(Ja, Jc, "absdiff", 1e-3));
}

TEST(Precision, DeltaAtMostTwoIsAnError) {
  Rng rng(1, streams::kGaussianTeacher);
  arma::mat J = goe_couplings(20, rng);
  for (double Delta : {2.0, 1.5, -1.0}) {
    std::string e = error_of([&] { precision_matrix(J, Delta); });
    EXPECT_NE(e.find("Delta = "), std::string::npos) << e;
    EXPECT_NE(e.find("must exceed 2"), std::string::npos) << e;
  }
  // Δ > 2 but a spectrum reaching past Δ: not positive definite, named.
  arma::mat big = 2.5 * arma::eye(5, 5);
  std::string e = error_of([&] { precision_matrix(big, 2.2, "m.json: key 'Delta'"); });
  EXPECT_NE(e.find("m.json: key 'Delta' = 2.2"), std::string::npos) << e;
  EXPECT_NE(e.find("not positive definite"), std::string::npos) << e;
  EXPECT_EQ(error_of([&] { precision_matrix(J, 3.0); }), "");
}

TEST(Teacher, MatchesDirectConditionalGaussian) {
  const int L = 25;
  arma::mat P = test_precision(L, 11);
  arma::mat S = arma::inv(P);  // independent of covariance_matrix's inv_sympd
  for (arma::uword i : {0u, 7u, 24u}) {
    MaskedTeacher t = masked_teacher(P, i);
    arma::uvec rest(L - 1);
    for (arma::uword k = 0, r = 0; k < (arma::uword)L; ++k)
      if (k != i) rest(r++) = k;
    // y | x_\i: mean Σ_{i,\i} Σ_{\i\i}⁻¹ x_\i, variance Σ_ii - Σ_{i,\i} Σ_{\i\i}⁻¹ Σ_{\i,i}.
    arma::mat Srr = S.submat(rest, rest);
    arma::vec s_ri = S.submat(rest, arma::uvec{i});
    arma::vec w_direct = arma::solve(Srr, s_ri);
    double sigma2_direct = S(i, i) - arma::dot(s_ri, w_direct);
    EXPECT_LT(arma::norm(t.teacher_w - w_direct, "inf"), 1e-12 * arma::norm(w_direct, "inf"));
    EXPECT_NEAR(t.noise_sigma2, sigma2_direct, 1e-12);
    EXPECT_LT(arma::norm(t.feature_covariance_Omega - Srr, "inf"), 1e-12);
    EXPECT_NEAR(t.rho, arma::dot(w_direct, Srr * w_direct), 1e-12);
    // Variance decomposition: Σ_ii = σ² + ρ.
    EXPECT_NEAR(t.noise_sigma2 + t.rho, S(i, i), 1e-12);
    // ε_g of the teacher itself is the noise.
    Overlaps o = generalisation_loss(t, t.teacher_w);
    EXPECT_NEAR(o.eps_g, t.noise_sigma2, 1e-13);
    EXPECT_NEAR(o.m, t.rho, 1e-13);
    EXPECT_NEAR(o.q, t.rho, 1e-13);
  }
  EXPECT_NE(error_of([&] { masked_teacher(P, L); }).find("masked_index"), std::string::npos);
}

TEST(Sampling, CovarianceAndExactLossAgreeWithMonteCarlo) {
  const int L = 12;
  const arma::uword N = 200000;
  arma::mat P = test_precision(L, 5);
  arma::mat S = covariance_matrix(P);
  Rng rng(9, streams::kGaussianData);
  arma::mat X = sample_gaussian(sampling_factor(S), N, rng);  // L×N
  arma::mat S_hat = X * X.t() / N;
  // Entry SE ≤ sqrt(2/N)·max Σ ≈ 0.003·max Σ; allow 5 SE.
  EXPECT_LT(arma::abs(S_hat - S).max(), 5 * std::sqrt(2.0 / N) * S.max());
  // Eq. 7 against the empirical test error of some ŵ (SE from the sample).
  MaskedTeacher t = masked_teacher(P, 4);
  arma::vec w_hat = t.teacher_w + 0.3 * arma::linspace(-1, 1, L - 1);
  arma::uvec rest(L - 1);
  for (arma::uword k = 0, r = 0; k < (arma::uword)L; ++k)
    if (k != 4) rest(r++) = k;
  arma::vec err2 = arma::square(X.row(4).t() - X.rows(rest).t() * w_hat);
  double se = arma::stddev(err2) / std::sqrt(double(N));
  EXPECT_NEAR(arma::mean(err2), generalisation_loss(t, w_hat).eps_g, 4 * se);
}

TEST(Ridge, MatchesNormalEquationsOnBothSides) {
  Rng rng(2, 99);
  for (auto [n, D] : {std::pair<int, int>{50, 20}, {20, 50}, {30, 30}}) {
    arma::mat X(n, D);
    arma::vec y(n);
    X.imbue([&] { return rng.normal(); });
    y.imbue([&] { return rng.normal(); });
    for (double lambda : {1e-4, 0.1, 3.0}) {
      arma::vec w = ridge(X, y, lambda);
      arma::vec w_normal = arma::inv(X.t() * X + lambda * arma::eye(D, D)) * X.t() * y;
      EXPECT_LT(arma::norm(w - w_normal), 1e-8 * arma::norm(w_normal)) << n << " " << D << " " << lambda;
    }
    // λ → 0⁺: the Moore–Penrose solution.
    arma::vec w0 = ridge(X, y, 0.0);
    arma::vec w_pinv = arma::pinv(X) * y;
    EXPECT_LT(arma::norm(w0 - w_pinv), 1e-8 * arma::norm(w_pinv)) << n << " " << D;
    // ... and the limit of small λ.
    arma::vec w_small = ridge(X, y, 1e-10);
    EXPECT_LT(arma::norm(w0 - w_small), 1e-5 * arma::norm(w0)) << n << " " << D;
  }
  arma::mat X(3, 2, arma::fill::ones);
  EXPECT_NE(error_of([&] { ridge(X, arma::vec(3, arma::fill::ones), -1.0); }).find("lambda"), std::string::npos);
  EXPECT_NE(error_of([&] { ridge(X, arma::vec(3, arma::fill::ones), 0.0); }).find("singular"), std::string::npos);
}

TEST(Grid, LogSpacedDenseAroundOneAndBadInputs) {
  AlphaGrid g;
  g.alpha_min = 0.1, g.alpha_max = 100, g.points_per_decade = 4, g.dense_min = 0.8, g.dense_max = 1.25,
  g.dense_points = 9;
  auto a = alpha_values(g);
  ASSERT_EQ(a.size(), 13u + 9u - 1u);  // α = 1 appears in both parts
  EXPECT_DOUBLE_EQ(a.front(), 0.1);
  EXPECT_DOUBLE_EQ(a.back(), 100);
  for (size_t k = 1; k < a.size(); ++k) EXPECT_GT(a[k], a[k - 1]);
  auto n = sample_counts(a, 40);
  EXPECT_EQ(n.front(), 4u);
  EXPECT_EQ(n.back(), 4000u);

  AlphaGrid bad = g;
  bad.alpha_min = 0;
  EXPECT_NE(error_of([&] { alpha_values(bad, "sim.json: alpha_grid"); }).find("sim.json: alpha_grid: alpha_min"),
            std::string::npos);
  bad = g;
  bad.alpha_min = -1;
  EXPECT_NE(error_of([&] { alpha_values(bad); }).find("must be > 0"), std::string::npos);
  bad = g;
  bad.points_per_decade = 0, bad.dense_points = 0;
  EXPECT_NE(error_of([&] { alpha_values(bad); }).find("empty alpha grid"), std::string::npos);
  EXPECT_NE(error_of([&] { sample_counts({}, 40); }).find("empty alpha grid"), std::string::npos);
  EXPECT_NE(error_of([&] { sample_counts({1.0, -0.5}, 40); }).find("must be > 0"), std::string::npos);
}

}  // namespace
}  // namespace potts::gaussian
