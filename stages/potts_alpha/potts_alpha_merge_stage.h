// Stage potts_alpha_merge: collects the chunks of the sample-complexity
// experiment (paper/spec.md §6, figure 3 right) into
//   potts_alpha.csv   alpha = M/L, M, mean test loss, its standard error
//                     (sample sd / sqrt(n)), n, mean training loss, mean
//                     e_rec, fraction converged, eps*;
//   realisations.csv  every realisation, ordered by (M, realisation);
//   summary.json      eps*, the peak, the losses at the smallest and the
//                     largest M, convergence counts.
// Fails if a (M, realisation) pair is missing or duplicated.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_potts_alpha_merge(Stage& stage);

}  // namespace potts
