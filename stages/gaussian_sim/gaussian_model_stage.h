// Stage gaussian_model: draws the Gaussian model of paper/spec.md §4
// (one seeded GOE J̃, P = Δ·I - J̃, the teacher of the masked position) and
// fixes the experiment that the simulation chunks and the replica stage
// share: ridge penalty λ, α grid, realisations per α, number of chunks.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_gaussian_model(Stage& stage);

}  // namespace potts
