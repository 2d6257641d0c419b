// Stage gaussian_simulate: one chunk of the simulation of paper/spec.md
// section 4. For the α points k ≡ chunk (mod chunks) of the model's grid and
// each realisation r: n = αD samples x ~ N(0, Σ), ridge estimate ŵ (eq. 6),
// exact generalisation loss ε_g (eq. 7). Random stream of (α index k,
// realisation r) is independent of the chunking, so chunks can be re-cut
// without changing a number.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_gaussian_simulate(Stage& stage);

}  // namespace potts
