// Stage potts_alpha_plan: validates the sample-complexity experiment of
// paper/spec.md §6 (figure 3 right) against the sample stage's data and
// writes it as summary.json for the chunks and the merge: grid of M,
// realisations (one count, or one per M), chunks, the estimator (factored attention, L2 penalty,
// L-BFGS, initialisation), and eps* of the true model on the test set.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_potts_alpha_plan(Stage& stage);

}  // namespace potts
