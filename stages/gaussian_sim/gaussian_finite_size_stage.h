// Stage gaussian_finite_size: the Gaussian model of paper/spec.md §4 at one
// size D (config "D"; L = D + 1, the masked site D / 2), for the α values of
// the configuration. For each α: the replica theory (D → ∞, on this model's
// spectrum), the exact finite-D least-squares moments where they exist
// (λ → 0, n > D + 1; paper/spec.md §4.1) and, per realisation of the design,
// ε_g, m and q averaged exactly over the label noise (noise_average.h).
// Random stream of (α index k, realisation r): kGaussianData + (r << 16) +
// (k << 32), so a size's numbers do not depend on the other sizes.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_gaussian_finite_size(Stage& stage);

}  // namespace potts
