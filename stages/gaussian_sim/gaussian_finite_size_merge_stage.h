// Stage gaussian_finite_size_merge: the sizes of gaussian_finite_size
// (inputs d0, d1, ... in increasing D) at the same α values. Per α and per
// statistic (ε_g and m): the relative deviation of the simulated mean from
// the replica theory at each D, its fit c + a/D (config "order": 1, or 2
// for c + a/D + b/D²) and c's uncertainty from resampling realisations
// (lib/gaussian/finite_size.h). Per size: the χ² of the simulation against
// the theory and, for α with n ≥ D + 2, the largest |z| of ε_g against the
// exact finite-D mean and the largest relative difference of m from its
// exact value ρ (the simulator's check). Outputs finite_size.csv (one
// row per α, statistic and D), extrapolation.csv (one row per α and
// statistic) and summary.json.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_gaussian_finite_size_merge(Stage& stage);

}  // namespace potts
