// The generalisation loss averaged exactly over the label noise, for one
// design X (paper/spec.md §4.1): a lower-variance estimator of E[ε_g].
//
// Ridge is linear in the labels, ŵ = R y with R = (XᵀX + λI)⁻¹Xᵀ (for
// λ = 0 and n < D the minimum-norm R = Xᵀ(XXᵀ)⁻¹), and y = Xw* + ξ with
// ξ ~ N(0, σ²I) independent of X. So, over ξ for fixed X, with w_b = R X w*,
//   E[m] = w*ᵀΩ w_b,   E[q] = w_bᵀΩ w_b + σ² tr(Ω R Rᵀ),
//   E[ε_g] = σ² + ρ − 2E[m] + E[q]                                  (eq. 7)
// Averaging these over designs gives the same expectation as simulating
// labels, with the label noise's share of the variance removed.
//
// Tested by //lib/gaussian:noise_average_test.
#pragma once
#include <armadillo>

#include "lib/gaussian/gaussian.h"

namespace potts::gaussian {

// `features`: the n x D design (one sample per row), as ridge() takes it.
Overlaps noise_averaged_loss(const MaskedTeacher& teacher, const arma::mat& features, double lambda);

}  // namespace potts::gaussian
