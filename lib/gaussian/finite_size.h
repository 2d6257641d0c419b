// Finite-size extrapolation of the Gaussian model's simulation against the
// replica theory (paper/spec.md §4.2).
//
// The replica theory is the D → ∞ limit at fixed α = n/D; a simulation at
// finite D sits off it by a shift of order 1/D (for λ → 0 and α > 1 exactly
// σ²[D/(n − D − 1) − 1/(α − 1)], paper/spec.md §4.1). Simulating several D
// at the same α and fitting the relative deviation
//   δ(D) = (mean_sim(D) − theory(D)) / theory(D) = c + a/D (+ b/D²)
// separates the shift (a, b) from a real disagreement (c ≠ 0).
//
// Tested by //lib/gaussian:finite_size_test.
#pragma once
#include <cstdint>
#include <vector>

namespace potts::gaussian {

// Weighted least squares of y_k = c + a/D_k (+ b/D_k² for order 2), weights
// 1/se_k²: the coefficients and the weighted residual sum of squares (χ²
// with D.size() − order − 1 degrees of freedom when the se are right).
struct InverseSizeFit {
  double c = 0, a = 0, b = 0;
  double chi2 = 0;
  int dof = 0;
};
InverseSizeFit fit_inverse_size(const std::vector<double>& D, const std::vector<double>& y,
                                const std::vector<double>& se, int order);

// One size's realisations of a statistic (e.g. the loss) and its theory.
struct SizeSample {
  double D = 0;
  double theory = 0;
  std::vector<double> values;  // one per independent realisation
};

// The fit of the relative deviation and its uncertainty from resampling:
// each bootstrap resample draws every size's realisations with replacement,
// recomputes the relative deviations and their standard errors, and refits.
// c_se is the standard deviation of c over resamples and c_lo, c_hi its 2.5
// and 97.5 percentiles (the statistic's null distribution is taken from the
// data, not from a normal or χ² table). Seeded, so deterministic.
struct ExtrapolationResult {
  InverseSizeFit fit;  // on the data themselves
  double c_se = 0, c_lo = 0, c_hi = 0;
  std::vector<double> deviation;     // δ per size, in the order given
  std::vector<double> deviation_se;  // its standard error (realisations)
};
ExtrapolationResult extrapolate(const std::vector<SizeSample>& sizes, int order, int resamples, std::uint64_t seed);

}  // namespace potts::gaussian
