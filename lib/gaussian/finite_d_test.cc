// The simulator against exact finite-D results (paper/spec.md §4.1).
//
// For λ → 0 and n > D + 1 the minimum-norm solution is ordinary least
// squares, ŵ = w* + (XᵀX)⁻¹Xᵀξ with noise ξ ~ N(0, σ²I) independent of X, and
// XᵀX is Wishart(Ω, n). Hence, at finite D and n,
//   E[m] = ρ,   E[q] = ρ + σ² D/(n − D − 1),   E[ε_g] = σ² (1 + D/(n − D − 1)),
// while the replica theory (the D → ∞ limit at fixed α = n/D) gives
// ε_g = σ² α/(α − 1) = σ² (1 + D/(n − D)). The simulation must agree with
// the first and, close to α = 1, be told apart from the second.
//
// Tolerance: each mean over R = 4000 realisations is compared at 4 standard
// errors (sample s.d./√R). n ≥ D + 10 keeps the fourth moment of the
// inverse Wishart finite (n − D − 5 > 0), so the standard error is itself
// well estimated. 12 comparisons at a two-sided p = 6.3e-5 each: a false
// alarm with probability below 1e-3 for a correct simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "lib/core/rng.h"
#include "lib/core/stats.h"
#include "lib/gaussian/gaussian.h"
#include "lib/gaussian/test_model.h"

namespace potts::gaussian {
namespace {

constexpr arma::uword kL = 41, kD = kL - 1, kMasked = 20, kR = 4000;

struct Sim {
  MeanSe eps, m, q;
  double sigma2 = 0, rho = 0;
};

// R realisations of n samples from the Δ = 3 GOE model, ridge at `lambda`.
Sim simulate(arma::uword n, double lambda, std::uint64_t seed) {
  const test_support::TestModel model = test_support::test_model(kL, kMasked, seed);
  const MaskedTeacher& t = model.teacher;
  std::vector<double> eps, m, q;
  Rng rng(seed, streams::kGaussianData + (n << 16));
  for (arma::uword r = 0; r < kR; ++r) {
    const arma::mat X = sample_gaussian(model.factor_C, n, rng);
    const arma::vec w = ridge(X.rows(model.rest).t(), X.row(kMasked).t(), lambda);
    const Overlaps o = generalisation_loss(t, w);
    eps.push_back(o.eps_g), m.push_back(o.m), q.push_back(o.q);
  }
  return {mean_se(eps), mean_se(m), mean_se(q), t.noise_sigma2, t.rho};
}

double excess(arma::uword n, double shift) { return double(kD) / (double(n) - double(kD) - shift); }

TEST(FiniteD, LeastSquaresMatchesTheExactWishartMoments) {
  for (arma::uword n : {50u, 60u, 80u, 160u}) {
    const Sim s = simulate(n, 0.0, 11);
    const double k = excess(n, 1.0);
    std::printf("n = %3u (alpha = %.3f): eps %.5f +- %.5f (exact %.5f, D -> inf %.5f); m %.5f +- %.5f (rho %.5f)\n",
                unsigned(n), double(n) / kD, s.eps.mean, s.eps.se, s.sigma2 * (1 + k), s.sigma2 * (1 + excess(n, 0.0)),
                s.m.mean, s.m.se, s.rho);
    EXPECT_NEAR(s.eps.mean, s.sigma2 * (1 + k), 4 * s.eps.se) << "n = " << n;
    EXPECT_NEAR(s.m.mean, s.rho, 4 * s.m.se) << "n = " << n;
    EXPECT_NEAR(s.q.mean, s.rho + s.sigma2 * k, 4 * s.q.se) << "n = " << n;
  }
}

// Power: the comparison resolves the finite-D term. Near α = 1 the D → ∞
// value σ²(1 + D/(n − D)) lies many standard errors below the simulation,
// the shift σ²D/((n − D − 1)(n − D)) that halves when D doubles at fixed α.
TEST(FiniteD, TheInfiniteDLimitIsRejectedNearTheThreshold) {
  const arma::uword n = 50;  // α = 1.25
  const Sim s = simulate(n, 0.0, 11);
  const double replica = s.sigma2 * (1 + excess(n, 0.0));
  EXPECT_GT(s.eps.mean - replica, 4 * s.eps.se) << "mean " << s.eps.mean << ", D -> inf " << replica;
}

// Power: a biased estimator fails the check. A strong ridge shrinks ŵ, so
// E[m] falls well below ρ.
TEST(FiniteD, AStrongRidgeFailsTheUnbiasedOverlap) {
  const arma::uword n = 80;
  const Sim s = simulate(n, double(n), 11);
  EXPECT_GT(s.rho - s.m.mean, 4 * s.m.se) << "m " << s.m.mean << ", rho " << s.rho;
}

}  // namespace
}  // namespace potts::gaussian
