// One site's log-softmax, in one fixed order: the shift by the maximum,
// the exponentials summed in state order, then the log (eq. PL1's
// normaliser log sum_a exp z_a). Every caller that computes the same
// quantity in the same order uses these, so the bits are the same
// everywhere; callers that sum in another order on purpose say why.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>

namespace potts {

// log sum_a exp z[a] over a = 0..C-1, shifted by the maximum.
inline double log_sum_exp(const double* z, std::size_t C) {
  double mx = z[0];
  for (std::size_t a = 1; a < C; ++a) mx = std::max(mx, z[a]);
  double sum = 0.0;
  for (std::size_t a = 0; a < C; ++a) sum += std::exp(z[a] - mx);
  return mx + std::log(sum);
}

// The cross-entropy of one site's logits z[0..C) at the observed state
// `target`: log sum_a exp z_a - z_target. With `grad`, z becomes its
// gradient times c: c (softmax(z) - e_target).
inline double site_cross_entropy(double* z, std::size_t C, std::size_t target, double c, bool grad) {
  const double lse = log_sum_exp(z, C);
  const double loss = lse - z[target];
  if (grad) {
    for (std::size_t a = 0; a < C; ++a) z[a] = c * std::exp(z[a] - lse);
    z[target] -= c;
  }
  return loss;
}

}  // namespace potts
