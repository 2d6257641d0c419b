// Stage replica: the replica-symmetric theory of fig. 3 left (paper/spec.md
// section 5) for the model drawn by gaussian_model (same J̃, Δ, masked
// position, λ): the saddle point by damped fixed-point iteration on a fine α
// grid plus the simulation's α = n/D points, each checked against the
// deterministic-equivalent closed form. Non-convergence stops the stage.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_replica(Stage& stage);

}  // namespace potts
