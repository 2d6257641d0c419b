// Replica-symmetric theory of ridge regression on the Gaussian model
// (paper/spec.md §5; paper fig. 3 left, theory curve).
//
// Everything depends on the data only through the spectrum of the feature
// covariance Ω = Σ_k ω_k u_k u_kᵀ, the teacher components t_k = u_k·w*, the
// noise σ², the number of samples n = αD and the ridge penalty λ.
//
// Tested by //lib/replica:replica_test; against the simulation,
//  //stages/gaussian_sim:gaussian_science_test.
#pragma once
#include <string>

#include <armadillo>

#include "lib/core/error.h"

namespace potts::replica {

struct Spectrum {
  arma::vec omega;      // ω_k > 0, eigenvalues of Ω
  arma::vec teacher_t;  // t_k = u_k·w*
  double sigma2 = 0;    // σ²
  double rho = 0;       // Σ_k ω_k t_k² = w*ᵀΩw*
  arma::uword D() const { return omega.n_elem; }
};
// From Ω (symmetric positive definite), w* and σ².
Spectrum spectrum_of(const arma::mat& Omega, const arma::vec& teacher_w, double sigma2);

struct FixedPointOptions {
  double damping = 0.5;      // x ← (1-η) x + η F(x); η halves when the residual grows
  double tolerance = 1e-12;  // on the estimated relative distance to the fixed point
  long max_iterations = 20000000;
  double V_start = 1.0;  // initial V (m = q = 0)
};

// The RS saddle point at zero temperature (paper/spec.md §5):
//   V̂ = m̂ = n/(1+V),  q̂ = n(σ² + ρ - 2m + q)/(1+V)²
//   V = Σ ω/(λ+V̂ω),  m = Σ m̂ω²t²/(λ+V̂ω),  q = Σ ω(m̂²ω²t² + q̂ω)/(λ+V̂ω)²
//   ε_g = σ² + ρ - 2m + q
struct SaddlePoint {
  double alpha = 0, n = 0, lambda = 0;
  double V = 0, m = 0, q = 0, V_hat = 0, m_hat = 0, q_hat = 0;
  double eps_g = 0;
  long iterations = 0;
  double damping = 0;   // final damping
  double residual = 0;  // final relative residual
};
// Damped fixed-point iteration; λ ≥ 0 (λ = 0 needs α > 1). Non-convergence
// (or α ≤ 0, λ < 0) throws StageError naming α and λ: never a number.
SaddlePoint solve_saddle_point(const Spectrum& s, double alpha, double lambda, const FixedPointOptions& opt = {});

// Deterministic-equivalent closed form of ridge regression (independent check):
//   κ solves λ = κ (n - df₁(κ)),  df₁ = Σ ω/(ω+κ),  df₂ = Σ ω²/(ω+κ)²,
//   ε_g = σ² + [κ² Σ ω t²/(ω+κ)² + σ² df₂/n] / (1 - df₂/n),
// with the implied overlaps m = Σ ω²t²/(ω+κ), V = df₁/(n - df₁). κ by
// Boost.Math's TOMS 748 bracketing root finder. λ = 0: κ = 0 for n > D, the
// root of df₁(κ) = n for n < D; n = D with λ = 0 is an error (ε_g = ∞).
struct ClosedForm {
  double alpha = 0, n = 0, lambda = 0;
  double kappa = 0, df1 = 0, df2 = 0;
  double eps_g = 0, m = 0, q = 0, V = 0;
};
ClosedForm deterministic_equivalent(const Spectrum& s, double alpha, double lambda);

}  // namespace potts::replica
