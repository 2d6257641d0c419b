// Claims stage (paper/paper.md, "Claims by reading"): the verdict on each of
// the paper's claims for each reading of the data regime, with the number
// behind it and its standard error (lib/claims/claims.h states the rules).
//
// Inputs:  <reading>_train/summary.json, <reading>_perturb/summary.json,
//          <reading>_potts/summary.json and realisations.csv for every
//          reading in the config, and <reading>_peak/ (the same files of the
//          experiment around the peak, used for claim 5 when present);
//          replica/summary.json, sim/summary.json.
// Config:  {"readings": [...], "bootstrap_resamples": n,
//           "thresholds": {"gap_good", "gap_bad", "erec_good", "erec_bad"}}
// Outputs: summary.json: {<reading>: {<claim id>: cell}, "gaussian": {...},
//          "table": [rows]}, claims.csv (reading index, claim, verdict code
//          0 holds / 1 weak / 2 does not hold, value, se).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from st.config(), inputs from st.input(...),
// outputs to st.output(...) (stages/runtime/stage.h).
void run_claims(Stage& st);

}  // namespace potts
