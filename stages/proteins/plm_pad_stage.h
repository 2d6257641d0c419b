// The proteins_plm_pad stage: the pseudo-likelihood model on the
// observation's data conventions (lib/plm/coupling_pad.h, eq. O2: the gap a
// pad, no input and no target; no sequence weights; the 20 amino acids),
// fitted from zero by the lean L-BFGS: claim P5's reference.
//
// Inputs: family/ (the proteins_prepare stage: train.h5, test.h5,
// columns.csv). Configuration: "lambda_h", "lambda_c", "max_iterations",
// "gradient_tolerance", "relative_decrease", "lbfgs_memory", "fit_on"
// ("all": every sequence, the contact tools' convention; "train": the
// training sequences only, so that the test loss is held out).
// Outputs: params.h5 ("x"), scores.h5 ("scores": the APC-corrected
// Frobenius norms of the coupling blocks over the 20 amino acids),
// curves.csv (the objective per L-BFGS iteration), summary.json (the fit
// summary of stages/proteins/fit_summary.h).
//
// Threaded (--threads): the same bytes at any thread count.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_plm_pad(Stage& stage);

}  // namespace potts
