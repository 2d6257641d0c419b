// Stage proteins_plm (paper/spec.md §9): the pseudo-likelihood baseline of
// the proteins branch, plmDCA's model (fields and symmetric couplings over
// q = 21, lib/plm/pseudo_likelihood.h) fitted by L-BFGS from zero on the
// training sequences (convex: no seed), and its contact scores.
//
// Input "family": the proteins_prepare stage's outputs.
// Config: "lambda_h", "lambda_W", "max_iterations", "gradient_tolerance".
// Outputs: params.h5 ("fields_h", "couplings_W"); scores.h5 ("scores": the
// APC-corrected Frobenius norms of the zero-sum-gauge coupling blocks, gap
// excluded); curves.csv (the objective per L-BFGS iteration, in the train
// stage's columns: epoch, train_loss, test_loss, lr); summary.json (test
// loss, final training loss over all positions, sizes, settings).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_plm(Stage& stage);

}  // namespace potts
