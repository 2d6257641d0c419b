// Gaussian model of a masked position (paper/spec.md §4; paper fig. 3 left).
//
// The mean-field relaxation of the Potts model: x ~ N(0, Σ) in R^L with
// precision P = Δ·I - J̃ (J̃ a GOE matrix), the masked coordinate y = x_i is
// regressed on the other D = L - 1 coordinates by ridge regression (eq. 6),
// and the generalisation loss of any estimate ŵ is exact (eq. 7).
//
// Tested by //lib/gaussian:gaussian_test; against the theory,
//  //stages/gaussian_sim:gaussian_science_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <armadillo>

#include "lib/core/config.h"
#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts::gaussian {

// J̃: L×L GOE, off-diagonal N(0, 1/L), diagonal N(0, 2/L); spectrum fills
// [-2, 2]. Entries drawn row by row over the upper triangle (i ≤ j).
arma::mat goe_couplings(int L, Rng& rng);

// P = Δ·I - J̃. Throws StageError naming `field` (e.g. "f.json: key 'Delta'") when
// Δ ≤ 2 or when P is not positive definite (finite-L spectra can poke past 2).
arma::mat precision_matrix(const arma::mat& couplings_J_tilde, double Delta, const std::string& field = "Delta");

// Σ = P⁻¹ (symmetrised).
arma::mat covariance_matrix(const arma::mat& precision_P);

// The model stage's model.h5 as read by the replica and simulation stages:
// precision_P (L x L, finite, L >= 3), lambda (finite, >= 0) and
// masked_index (an integer in 0..L-1). Errors name the file and dataset.
struct ModelFile {
  arma::mat precision_P;
  double lambda = 0;
  arma::uword masked_index = 0;
};
ModelFile read_model_h5(const std::string& path);

// The regression problem of masked position i, exact (conditional Gaussian):
//   y | x_\i ~ N(w*·x_\i, σ²),  w* = -P_{i,\i} / P_ii,  σ² = 1 / P_ii,
//   Ω = Σ without row and column i,  ρ = w*ᵀ Ω w*.
struct MaskedTeacher {
  arma::uword masked_index = 0;
  arma::vec teacher_w;                 // w*, length D
  double noise_sigma2 = 0;             // σ²
  arma::mat feature_covariance_Omega;  // Ω, D×D
  double rho = 0;                      // w*ᵀ Ω w*
};
MaskedTeacher masked_teacher(const arma::mat& precision_P, arma::uword masked_index);

// Lower Cholesky factor C of Σ = C Cᵀ; throws if Σ is not positive definite.
arma::mat sampling_factor(const arma::mat& covariance_Sigma);

// n samples x = C z, z ~ N(0, I): returned as an L×n matrix, one sample per
// column; the normals are drawn sample by sample, coordinate by coordinate.
arma::mat sample_gaussian(const arma::mat& factor_C, arma::uword n, Rng& rng);

// Ridge regression (eq. 6): ŵ = argmin Σ_μ (y_μ - w·x_μ)² + λ‖w‖²
//   = (XᵀX + λI)⁻¹ Xᵀy = Xᵀ(XXᵀ + λI)⁻¹ y   (X: n×D, one sample per row),
// solved on the smaller side. λ = 0 is the λ → 0⁺ limit, the minimum-norm
// (Moore–Penrose) solution X⁺y; it needs X of full rank.
arma::vec ridge(const arma::mat& X, const arma::vec& y, double lambda);

// Eq. 7: ε_g = E(y - ŵ·x)² = σ² + ρ - 2m + q,  m = w*ᵀΩŵ,  q = ŵᵀΩŵ: the
// one definition, used by the simulation here and by the replica theory.
inline double generalisation_error(double sigma2, double rho, double m, double q) { return sigma2 + rho - 2 * m + q; }
struct Overlaps {
  double rho = 0, m = 0, q = 0, eps_g = 0;
};
Overlaps generalisation_loss(const MaskedTeacher& teacher, const arma::vec& w_hat);

// A grid of α = n/D: `points_per_decade` log-spaced points from alpha_min to
// alpha_max (both included), plus `dense_points` log-spaced points in
// [dense_min, dense_max] around the interpolation threshold α = 1; sorted,
// duplicates removed. Errors (StageError, naming `origin`) for α ≤ 0, an
// inverted range, or an empty grid.
struct AlphaGrid {
  double alpha_min = 0.1, alpha_max = 100;
  int points_per_decade = 8;
  double dense_min = 0.8, dense_max = 1.25;
  int dense_points = 0;
};
std::vector<double> alpha_values(const AlphaGrid& grid, const std::string& origin = "alpha_grid");

// Reads an AlphaGrid from a config section {alpha_min, alpha_max,
// points_per_decade, dense_min, dense_max, dense_points} and checks it.
AlphaGrid alpha_grid_from(Config& section);

// Integer sample counts n = round(α D) ≥ 1 for a grid (duplicates removed,
// sorted); errors for α ≤ 0 or an empty grid.
std::vector<arma::uword> sample_counts(const std::vector<double>& alphas, arma::uword D,
                                       const std::string& origin = "alpha_grid");

// Least-squares slope of log(y - offset) against log α over α ∈ [lo, hi]
// (the α⁻¹ tail: slope -1). Error if fewer than 3 points or y ≤ offset.
double loglog_slope(const std::vector<double>& alpha, const std::vector<double>& y, double offset, double lo,
                    double hi);

}  // namespace potts::gaussian
