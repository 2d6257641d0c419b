// The expected excess test loss of a fitted factored-attention model that a
// finite training set implies (paper/spec.md §8, claim 1b).
//
// For M independent training sequences, each contributing the loss ℓ_μ(θ)
// (cross-entropy summed over its L positions, eq. 3), and the minimiser θ̂ of
// their mean, the expected test loss exceeds the population optimum by
//   E[excess per sequence] ≈ tr(H⁻¹ G) / (2M),
// H the Hessian of the mean loss and G the covariance of the per-sequence
// gradients, both at θ̂ (the sandwich; White 1982). For a well-specified
// model G = H and the trace counts the free parameters, d_eff. The gauge
// directions of A·V (the scale shared by A and V, and the C shifts of V's
// columns) and A's unused diagonal have H = 0; the trace is taken on the
// subspace where H is positive, whose dimension is reported (it should be
// L(L − 1) + C² − C − 1).
//
// H is the central difference of the analytic gradient, column by column.
//
// Tested by //lib/factored:finite_sample_excess_test.
#pragma once
#include "lib/nn/factored_attention.h"
#include "lib/nn/mlm_model.h"

namespace potts {

struct FiniteSampleExcess {
  double excess_per_position = 0;  // tr(H⁺G) / (2 M L)
  double trace = 0;                // tr(H⁺G)
  int rank = 0;                    // dimension of the positive subspace of H
  double gradient_norm = 0;        // |mean gradient| at the fit (near 0 at a minimum)
};

// The free parameters of factored attention, L(L − 1) + C² − C − 1 (A off
// the diagonal, V less its C column shifts and the scale shared with A):
// the trace's value for a well-specified likelihood.
inline double factored_d_eff(double L, double C) { return L * (L - 1) + C * C - C - 1; }

// `model` holds the fitted parameters (restored on return). `step`: the
// finite-difference step; eigenvalues of H below `rank_tolerance` times the
// largest count as zero.
FiniteSampleExcess finite_sample_excess(nn::FactoredAttention& model, const nn::SequenceSet& train, double step = 1e-5,
                                        double rank_tolerance = 1e-7);

}  // namespace potts
