// Stage gaussian_merge: gathers the chunks of the simulation into one
// table per α (mean, standard error, spread of ε_g over realisations) and
// one table of all realisations; checks that every (α, realisation) of the
// model's grid is present exactly once.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_gaussian_merge(Stage& stage);

}  // namespace potts
