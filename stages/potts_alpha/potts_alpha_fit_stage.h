// Stage potts_alpha_fit: one chunk of the sample-complexity experiment
// (paper/spec.md §6). For every M of the plan's grid and the realisations
// r = chunk, chunk + chunks, ...: a random subset of M training sequences,
// factored attention fitted by L-BFGS from a fresh initialisation, test loss
// on the full test set. Random streams depend on (seed, M, r) only.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_potts_alpha_fit(Stage& stage);

}  // namespace potts
