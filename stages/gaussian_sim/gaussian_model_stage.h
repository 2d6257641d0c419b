// Stage gaussian_model: draws the Gaussian model of paper/spec.md §4
// (one seeded GOE J̃, P = Δ·I - J̃, the teacher of the masked position) and
// fixes the experiment that the simulation chunks and the replica stage
// share: ridge penalty λ, α grid, realisations per α, number of chunks.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from st.config(), inputs from st.input(...),
// outputs to st.output(...) (stages/runtime/stage.h).
void run_gaussian_model(Stage& st);

}  // namespace potts
