// Stage gaussian_merge: gathers the chunks of the simulation into one
// table per α (mean, standard error, spread of ε_g over realisations) and
// one table of all realisations; checks that every (α, realisation) of the
// model's grid is present exactly once.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from st.config(), inputs from st.input(...),
// outputs to st.output(...) (stages/runtime/stage.h).
void run_gaussian_merge(Stage& st);

}  // namespace potts
