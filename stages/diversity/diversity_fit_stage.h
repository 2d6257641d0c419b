// Stage diversity_fit: one point of the diversity study (paper/spec.md
// section 7): on one sample-stage data set (its own colour kind and
// calibrated beta), factored attention by L-BFGS from several random starts
// and from the data-only plm start, against the full pseudo-likelihood
// baseline, each penalty given or chosen by validation
// (lib/studies/recovery.h). Outputs every fit (fits.csv) and the point's
// summary (summary.json, with the validation curves) for the merge.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_diversity_fit(Stage& stage);

}  // namespace potts
