// The proteins_couplings stage: a coupling model of the family fitted by
// weighted pseudo-likelihood, deterministically by full-batch L-BFGS
// (lib/couplings/coupling_models.h): the full model (plmDCA), factored
// attention with H heads (eq. 4 summed over heads), or attention with
// positional softmax queries and keys; each with or without fields,
// sequence weights and an L2 penalty.
//
// Inputs: family/ (the proteins_prepare stage: train.h5 and test.h5 with
// their sequences and weights at the family's identity threshold,
// columns.csv).
// Configuration: "form" (full, factored, softmax); "heads", "head_dim" (softmax
// only), "value_rank" (0: V^h full) and "symmetrise" (factored forms only);
// "fields"; "weights" ("identity": the prepare stage's, "none": all one);
// "fit_on" ("all": every sequence, the convention of contact tools; "train":
// the training sequences only, so that the test loss is held out);
// "lambda_h", "lambda_c"; "init_std_couplings", "init_std_values",
// "fields_from_profile" and "restarts" (factored forms only); "max_iterations",
// "gradient_tolerance".
// Outputs: params.h5 (the packed parameters "x" and the fields "h"),
// scores.h5 ("scores": APC-corrected Frobenius norms of the zero-sum-gauge
// coupling blocks, gap excluded, as for the other models), curves.csv (the
// objective per L-BFGS iteration of the kept restart), summary.json (the
// form, parameter count, training and test loss and which sequences each is
// on, the optimiser's iterations and evaluations, the fit time and the time
// per evaluation).
//
// Tested by //stages/proteins:couplings_quick_test.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_couplings(Stage& stage);

}  // namespace potts
