// Unit tests of lib/replica (paper/spec.md §5): the damped fixed point of
// the RS saddle-point equations against the deterministic-equivalent closed
// form, the λ → 0 limit σ² α/(α-1), and errors for bad inputs and for
// non-convergence.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "lib/core/rng.h"
#include "lib/gaussian/gaussian.h"
#include "lib/replica/replica.h"
#include "tests/util/test_util.h"

namespace potts::replica {
namespace {

using testing_util::error_of;

// The spectrum of a Gaussian model as the stages draw it (Δ = 3).
Spectrum model_spectrum(int L, std::uint64_t seed) {
  Rng rng(seed, streams::kGaussianTeacher);
  arma::mat P = gaussian::precision_matrix(gaussian::goe_couplings(L, rng), 3.0);
  gaussian::MaskedTeacher t = gaussian::masked_teacher(P, L / 2);
  return spectrum_of(t.feature_covariance_Omega, t.teacher_w, t.noise_sigma2);
}

// α ∈ [0.1, 100] (log-spaced, plus points at and next to the threshold).
std::vector<double> test_alphas() {
  std::vector<double> a;
  for (int k = 0; k <= 24; ++k) a.push_back(std::pow(10.0, -1.0 + 3.0 * k / 24));
  for (double x : {0.9, 0.97, 0.99, 1.01, 1.03, 1.1}) a.push_back(x);
  return a;
}

// Claim: fixed point = deterministic equivalent to 1e-8 (relative) over
// α ∈ [0.1, 100], λ ∈ [1e-4, 1]. The fixed point is iterated to an estimated
// relative distance 1e-12, so 1e-8 leaves four decades for the conditioning
// near α = 1 (where ε_g ~ 1/(1 - df₂/n) is large).
TEST(Replica, FixedPointEqualsDeterministicEquivalent) {
  for (int L : {41, 201}) {
    Spectrum s = model_spectrum(L, 1);
    double worst = 0;
    for (double lambda : {1e-4, 1e-3, 1e-2, 1e-1, 1.0})
      for (double alpha : test_alphas()) {
        SaddlePoint fp = solve_saddle_point(s, alpha, lambda);
        ClosedForm cf = deterministic_equivalent(s, alpha, lambda);
        double rel = std::abs(fp.eps_g - cf.eps_g) / cf.eps_g;
        worst = std::max(worst, rel);
        EXPECT_LT(rel, 1e-8) << "L=" << L << " alpha=" << alpha << " lambda=" << lambda << " fp=" << fp.eps_g
                             << " cf=" << cf.eps_g << " iterations=" << fp.iterations;
        EXPECT_LT(std::abs(fp.m - cf.m), 1e-8 * s.rho) << alpha << " " << lambda;
        EXPECT_LT(std::abs(fp.V - cf.V), 1e-8 * cf.V) << alpha << " " << lambda;
        // V̂ = m̂ = n/(1+V) and κ = λ(1+V)/n: the two solutions share κ.
        EXPECT_LT(std::abs(lambda / fp.V_hat - cf.kappa), 1e-8 * cf.kappa) << alpha << " " << lambda;
      }
    std::printf("L = %d: worst relative difference fixed point vs closed form %.3g\n", L, worst);
  }
}

// Claim: λ → 0, α > 1 gives ε_g = σ² α/(α-1) to 1e-6. Done at λ = 0 exactly:
// the saddle-point equations stay finite there for α > 1 (V = D/(n - D)),
// and at λ = 1e-10, whose deviation is O(λ/((n - D) ω_min)) < 1e-8.
TEST(Replica, ZeroRidgeLimitAboveThreshold) {
  Spectrum s = model_spectrum(201, 2);
  for (double alpha : {1.2, 1.5, 2.0, 4.0, 10.0, 31.6, 100.0}) {
    double expected = s.sigma2 * alpha / (alpha - 1);
    for (double lambda : {0.0, 1e-10}) {
      SaddlePoint fp = solve_saddle_point(s, alpha, lambda);
      EXPECT_LT(std::abs(fp.eps_g - expected), 1e-6 * expected) << alpha << " " << lambda;
      ClosedForm cf = deterministic_equivalent(s, alpha, lambda);
      EXPECT_LT(std::abs(cf.eps_g - expected), 1e-6 * expected) << alpha << " " << lambda;
    }
  }
}

TEST(Replica, NonConvergenceIsAnErrorNeverANumber) {
  Spectrum s = model_spectrum(41, 1);
  // λ = 0 below the threshold: no fixed point (V diverges).
  std::string e = error_of([&] { solve_saddle_point(s, 0.5, 0.0); });
  EXPECT_NE(e.find("did not converge"), std::string::npos) << e;
  EXPECT_NE(e.find("alpha = 0.5"), std::string::npos) << e;
  // Too few iterations.
  FixedPointOptions few;
  few.max_iterations = 5;
  e = error_of([&] { solve_saddle_point(s, 1.0, 1e-4, few); });
  EXPECT_NE(e.find("max_iterations = 5"), std::string::npos) << e;
}

TEST(Replica, BadInputsAreErrors) {
  Spectrum s = model_spectrum(41, 1);
  for (double alpha : {0.0, -1.0}) {
    EXPECT_NE(error_of([&] { solve_saddle_point(s, alpha, 1e-3); }).find("alpha = n/D must be > 0"), std::string::npos);
    EXPECT_NE(error_of([&] { deterministic_equivalent(s, alpha, 1e-3); }).find("alpha = n/D must be > 0"),
              std::string::npos);
  }
  EXPECT_NE(error_of([&] { solve_saddle_point(s, 2.0, -1e-3); }).find("lambda"), std::string::npos);
  EXPECT_NE(error_of([&] { deterministic_equivalent(s, 1.0, 0.0); }).find("infinite"), std::string::npos);
  FixedPointOptions bad;
  bad.damping = 0;
  EXPECT_NE(error_of([&] { solve_saddle_point(s, 2.0, 1e-3, bad); }).find("damping"), std::string::npos);
}

}  // namespace
}  // namespace potts::replica
